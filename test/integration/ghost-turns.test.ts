// A turn we reported as failed never runs: a `turn/start` that timed out while codex was stopped
// (SIGSTOP) and that codex answers once it runs again (SIGCONT) is stopped there at once.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { ConfigObject } from "../../src/app-server/codex-config.js";
import { allowAll } from "../../src/approvals/policies.js";
import { inputTexts } from "../../src/testing/recorded.js";
import type { ScriptStep } from "../../src/testing/script.js";
import { execCommand, reply, response } from "../../src/testing/script.js";
import { type CodexApiFixture, startCodexApi } from "../support/codex-api-fixture.js";
import { stopProcess } from "../support/codex-processes.js";

const TIMEOUT_MS = 1_500;
let fixture: CodexApiFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/**
 * Starts a thread, stops codex, runs a turn that times out, lets codex go on, and returns what
 * happened: the run's error, whether the command's file exists, and the turns codex recorded.
 */
async function ghostTurn(steps: ScriptStep[], config: ConfigObject, allow = false) {
  fixture = await startCodexApi("app-server", steps, {
    config,
    codex: { requestTimeoutMs: TIMEOUT_MS, ...(allow ? { approvals: allowAll() } : {}) },
  });
  const { codex, workdir } = fixture;
  const thread = codex.startThread({ workingDirectory: workdir, skipGitRepoCheck: true });
  const { id } = await thread.start();
  const pid = (await codex.appServer.client()).pid as number;
  await stopProcess(pid);
  let error: unknown;
  try {
    await thread.run("write the file");
  } catch (caught) {
    error = caught;
  } finally {
    process.kill(pid, "SIGCONT");
  }
  // Time for codex to start the late turn, ask the model, and (if nothing stopped it) run.
  await sleep(3_000);
  const { thread: read } = await codex.appServer.readThread(id, { includeTurns: true });
  return {
    error,
    ran: existsSync(path.join(workdir, "ghost.txt")),
    statuses: read.turns.map((turn) => turn.status),
    requests: fixture.model.requests.length,
  };
}

describe("a turn we gave up on never runs at codex", () => {
  it("interrupts a turn codex starts after its turn/start timed out", async () => {
    // The model answers after 500 ms, as a real one takes its time: the stop lands first.
    const outcome = await ghostTurn(
      [response([execCommand("echo ghost > ghost.txt")], { delayMs: 500 }), reply("done")],
      { sandbox_mode: "danger-full-access", approval_policy: "never" },
    );
    assert.equal((outcome.error as { code?: string }).code, "timeout", String(outcome.error));
    assert.equal(outcome.ran, false, "the late turn's command must not run");
    assert.deepEqual(outcome.statuses, ["interrupted"], "codex recorded the turn as interrupted");
    assert.ok(outcome.requests <= 1, `the model was asked ${outcome.requests} times`);
  });

  it("declines the late turn's approvals even when the Codex's handlers would accept", async () => {
    const outcome = await ghostTurn(
      [execCommand("echo ghost > ghost.txt", { escalated: true }), reply("done"), reply("done")],
      { sandbox_mode: "workspace-write", approval_policy: "on-request" },
      true,
    );
    assert.equal((outcome.error as { code?: string }).code, "timeout", String(outcome.error));
    assert.equal(outcome.ran, false, "allowAll() must not approve a turn we gave up on");
    assert.deepEqual(outcome.statuses, ["interrupted"]);
  });

  it("stops a turn the idle watchdog gave up at once: no warning, the thread free again", async () => {
    // Answered by the turn's own prompt, not in order: a loaded codex can be quiet 400 ms before
    // it asks the model at all, and the first turn is then given up before it asked.
    const step: ScriptStep = (request) =>
      inputTexts(request).at(-1) === "again"
        ? reply("again")
        : response([reply("too late")], { delayMs: 8_000 });
    fixture = await startCodexApi("app-server", [step, step], {
      codex: { turnIdleTimeoutMs: 400 },
    });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(String(warning));
    process.on("warning", onWarning);
    try {
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      await assert.rejects(thread.run("be quiet"), { code: "turn_idle_timeout" });
      // The next turn waits for the thread until codex ended the first: that takes no 10 s.
      const started = Date.now();
      assert.equal((await thread.run("again")).finalResponse, "again");
      assert.ok(Date.now() - started < 4_000, `the next turn took ${Date.now() - started} ms`);
      assert.deepEqual(warnings, []);
    } finally {
      process.off("warning", onWarning);
    }
  });
});
