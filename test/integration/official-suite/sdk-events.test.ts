// The default events, side by side with @openai/codex-sdk's: for each scripted turn, what the
// official SDK yields (codex exec underneath) and what codex-harness yields on both transports
// must be equal, object for object (thread ids and temp paths aside).
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import type { ThreadEvent } from "@openai/codex-sdk";
import {
  applyPatch,
  execCommand,
  httpError,
  rawEvents,
  reasoning,
  reply,
  response,
  type ScriptStep,
} from "../../../src/testing/script.js";
import { VARIANTS, type Variant, withCodex } from "./support.js";

interface Outcome {
  events: ThreadEvent[];
  run?: unknown;
}

const webSearch = rawEvents([
  {
    type: "response.output_item.added",
    output_index: 0,
    item: { id: "ws_1", type: "web_search_call", status: "in_progress" },
  },
  {
    type: "response.output_item.done",
    output_index: 0,
    item: {
      id: "ws_1",
      type: "web_search_call",
      status: "completed",
      action: { type: "search", query: "weather in Paris" },
    },
  },
]);

interface Scenario {
  steps: () => ScriptStep[];
  /** Item types the official SDK's events must contain, so the scenario checks what it names. */
  shows: string[];
}

// No plan scenario: codex 0.169.0 offers the model no `update_plan` tool, so no turn has a plan.
const SCENARIOS: Record<string, Scenario> = {
  "reasoning and a reply": {
    steps: () => [response([reasoning("Thinking it over"), reasoning([]), reply("Hello")])],
    shows: ["reasoning", "agent_message"],
  },
  // One stream only: how stdout and stderr interleave is up to the race between the two pipes.
  "a command that fails": {
    steps: () => [execCommand("echo out; exit 3"), reply("It failed.")],
    shows: ["command_execution"],
  },
  "a command then a patch": {
    steps: () => [
      execCommand("echo made > made.txt"),
      applyPatch("*** Add File: notes.txt\n+hi"),
      reply("Made and patched."),
    ],
    shows: ["command_execution", "file_change"],
  },
  "a web search": {
    steps: () => [response([webSearch, reply("Sunny.")])],
    shows: ["web_search"],
  },
  "a failed turn": { steps: () => [httpError(400, { message: "bad request body" })], shows: [] },
};

/** Runs one scripted turn with `variant`, streamed, and once more with `run()`. */
async function outcome(variant: Variant, steps: () => ScriptStep[]): Promise<Outcome> {
  const work = await mkdtemp(path.join(tmpdir(), "sdk-events-work-"));
  const result: Outcome = { events: [] };
  try {
    await withCodex(variant, steps(), async ({ client }) => {
      const options = {
        workingDirectory: work,
        skipGitRepoCheck: true,
        sandboxMode: "danger-full-access",
      } as const;
      try {
        const { events } = await client().startThread(options).runStreamed("go");
        for await (const event of events) result.events.push(event);
      } catch {
        // After `turn.failed` the official SDK also throws "Codex Exec exited with code 1" and
        // exec's stderr; codex-harness ends the stream there. The events are what is compared.
      }
    });
    await withCodex(variant, steps(), async ({ client }) => {
      try {
        result.run = await client()
          .startThread({ ...SAFE, workingDirectory: work })
          .run("go");
      } catch (error) {
        result.run = { error: (error as Error).message };
      }
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return normalized(result, work);
}

const SAFE = { skipGitRepoCheck: true, sandboxMode: "danger-full-access" } as const;

/** Thread ids and the temp folder replaced by placeholders. */
function normalized(result: Outcome, work: string): Outcome {
  const text = JSON.stringify(result)
    .replaceAll(work, "<work>")
    .replace(/"thread_id":"[^"]+"/g, '"thread_id":"<thread>"');
  return JSON.parse(text) as Outcome;
}

describe("events by default, side by side with @openai/codex-sdk", () => {
  const [control, ...ours] = VARIANTS as [Variant, ...Variant[]];
  for (const [name, { steps, shows }] of Object.entries(SCENARIOS)) {
    it(name, async () => {
      const expected = await outcome(control, steps);
      const types: string[] = expected.events.flatMap((event) =>
        "item" in event ? [event.item.type] : [],
      );
      for (const type of shows) assert.ok(types.includes(type), `the official SDK shows ${type}`);
      assert.ok(expected.events.length > 0, "the official SDK yielded events");
      for (const variant of ours) {
        const got = await outcome(variant, steps);
        assert.deepEqual(got.events, expected.events, `${variant.name}: the streamed events`);
        assert.deepEqual(got.run, expected.run, `${variant.name}: what run() resolves with`);
      }
    });
  }
});
