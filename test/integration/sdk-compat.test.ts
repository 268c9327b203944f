import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { before, describe, it } from "node:test";
import * as official from "@openai/codex-sdk";
import * as harness from "codex-harness";
import { findCodexBinary } from "../../src/app-server/codex-binary.js";
import { applyPatch, execCommand, reasoning, reply, response } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { FULL_ACCESS } from "../support/codex-api-fixture.js";

/**
 * A program written for @openai/codex-sdk. It is run unchanged against both packages: only the
 * module it gets (`sdk`) differs, as if its import line were changed.
 */
async function program(sdk: typeof official, env: Record<string, string>, workdir: string) {
  const codex = new sdk.Codex({ codexPathOverride: findCodexBinary().executablePath, env });
  const thread = codex.startThread({ workingDirectory: workdir, skipGitRepoCheck: true });
  const first = await thread.run("Make a file and a patch");
  const events: official.ThreadEvent[] = [];
  const { events: stream } = await thread.runStreamed("And now just answer");
  for await (const event of stream) events.push(event);
  const again = sdk.Codex.prototype.resumeThread.call(codex, thread.id as string, {
    workingDirectory: workdir,
    skipGitRepoCheck: true,
  }) as official.Thread;
  const third = await again.run("One more");
  await (codex as unknown as { close?: () => Promise<void> }).close?.();
  return { first, events, third, threadId: thread.id };
}

const script = () => [
  response([reasoning("Plan"), execCommand("echo made > made.txt")], {
    usage: { input_tokens: 11, output_tokens: 3 },
  }),
  response([applyPatch("*** Add File: patched.txt\n+patched")], {
    usage: { input_tokens: 13, output_tokens: 4 },
  }),
  response([reply("Made both.")], { usage: { input_tokens: 17, output_tokens: 5 } }),
  reply("Just an answer."),
  reply("Third turn."),
];

type Outcome = Awaited<ReturnType<typeof program>>;

async function runWith(sdk: typeof official): Promise<Outcome> {
  const root = await mkdtemp(path.join(tmpdir(), "codex-harness-compat-"));
  const home = path.join(root, "home");
  const workdir = path.join(root, "work");
  await mkdir(workdir, { recursive: true });
  const model = await ScriptedModel.start({ responses: script() });
  try {
    await model.writeCodexHome(home, FULL_ACCESS);
    const env = { ...(process.env as Record<string, string>), CODEX_HOME: home };
    return normalized(await program(sdk, env, workdir), workdir);
  } finally {
    await model.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** The outcome with the thread id and the temp folder replaced by placeholders. */
function normalized(outcome: Outcome, workdir: string): Outcome {
  const text = JSON.stringify(outcome)
    .replaceAll(workdir, "<work>")
    .replaceAll(outcome.threadId ?? "<no thread>", "<thread>");
  return JSON.parse(text) as Outcome;
}

/**
 * On a continued thread `codex exec` reports the thread's running total; app-server reports the
 * turn's own tokens (a difference the README lists). Everything else must be equal.
 */
function withoutContinuedUsage(outcome: Outcome): unknown {
  return {
    ...outcome,
    events: outcome.events.map((event) =>
      event.type === "turn.completed" ? { ...event, usage: "<usage>" } : event,
    ),
    third: { ...outcome.third, usage: "<usage>" },
  };
}

describe("a program written for @openai/codex-sdk runs on codex-harness with only its import changed", () => {
  let theirs: Outcome;
  before(async () => {
    theirs = await runWith(official);
  });

  it("gives the same results and events (app-server transport, the default)", async () => {
    const ours = await runWith(harness as unknown as typeof official);
    assert.deepEqual(ours.first, theirs.first, "a new thread's turn: equal, usage included");
    assert.deepEqual(withoutContinuedUsage(ours), withoutContinuedUsage(theirs));
  });

  it('gives the same results and events with transport: "exec"', async () => {
    class ExecCodex extends harness.Codex {
      constructor(options: harness.CodexOptions<"sdk"> = {}) {
        super({ ...options, transport: "exec" });
      }
    }
    const ours = await runWith({ ...harness, Codex: ExecCodex } as unknown as typeof official);
    assert.deepEqual(ours, theirs, "exec: equal, usage of continued turns included");
  });
});
