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
    return await program(sdk, env, workdir);
  } finally {
    await model.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** The shape of a value: its type, and for objects the shapes of the keys `reference` has. */
function shapeLike(value: unknown, reference: unknown): unknown {
  if (Array.isArray(reference)) {
    return Array.isArray(value)
      ? value.map((v, i) => shapeLike(v, reference[i] ?? reference[0]))
      : typeof value;
  }
  if (reference && typeof reference === "object") {
    if (!value || typeof value !== "object") return typeof value;
    return Object.fromEntries(
      Object.keys(reference).map((key) => [
        key,
        shapeLike(
          (value as Record<string, unknown>)[key],
          (reference as Record<string, unknown>)[key],
        ),
      ]),
    );
  }
  return value === null || value === undefined ? "nullish" : typeof value;
}

/** The official events that both transports emit alike (not item.started/updated, not warnings). */
function lifecycle(events: { type: string; item?: { type: string } }[]): string[] {
  const kept = new Set([
    "thread.started",
    "turn.started",
    "item.completed",
    "turn.completed",
    "turn.failed",
  ]);
  return events
    .filter((event) => kept.has(event.type) && event.item?.type !== "error")
    .map((event) => (event.item ? `${event.type}:${event.item.type}` : event.type));
}

const withoutWarnings = <T extends { type: string }>(items: T[]) =>
  items.filter((item) => item.type !== "error");

describe("a program written for @openai/codex-sdk runs on codex-harness with only its import changed", () => {
  /** Compares our results with the official SDK's, turn by turn and event by event. */
  function assertSameShape(theirs: Outcome, ours: Outcome): void {
    for (const turn of ["first", "third"] as const) {
      const a = theirs[turn];
      const b = ours[turn];
      assert.equal(b.finalResponse, a.finalResponse);
      if (turn === "first")
        assert.deepEqual(b.usage, a.usage, "a new thread's turn uses the same tokens");
      // On a continued thread `codex exec` reports the thread's running total; we report the turn's own.
      assert.deepEqual(shapeLike(b.usage, a.usage), shapeLike(a.usage, a.usage));
      const theirItems = withoutWarnings(a.items);
      const ourItems = withoutWarnings(b.items);
      assert.deepEqual(
        ourItems.map((item) => item.type),
        theirItems.map((item) => item.type),
      );
      assert.deepEqual(
        ourItems.map((item, index) => shapeLike(item, theirItems[index])),
        theirItems.map((item) => shapeLike(item, item)),
        "every official field is there, with the same type",
      );
      for (const key of Object.keys(a)) assert.ok(key in b, `run() result has ${key}`);
    }
    // The same lifecycle: codex-harness adds item.started for messages, deltas and diffs on top.
    assert.deepEqual(lifecycle(ours.events), lifecycle(theirs.events));
    const theirDone = theirs.events.at(-1);
    const ourDone = ours.events.at(-1);
    assert.ok(theirDone?.type === "turn.completed" && ourDone?.type === "turn.completed");
    assert.deepEqual(shapeLike(ourDone, theirDone), shapeLike(theirDone, theirDone));
    assert.match(ours.threadId ?? "", /\S/);
  }

  let theirs: Outcome;
  before(async () => {
    theirs = await runWith(official);
  });

  it("gives results of the same shape (app-server transport, the default)", async () => {
    assertSameShape(theirs, await runWith(harness as unknown as typeof official));
  });

  it('gives results of the same shape with transport: "exec"', async () => {
    class ExecCodex extends harness.Codex {
      constructor(options: harness.CodexOptions = {}) {
        super({ ...options, transport: "exec" });
      }
    }
    const ours = await runWith({ ...harness, Codex: ExecCodex } as unknown as typeof official);
    assertSameShape(theirs, ours);
    assert.deepEqual(
      ours.third.usage,
      theirs.third.usage,
      "exec reports usage exactly as the SDK does",
    );
  });
});
