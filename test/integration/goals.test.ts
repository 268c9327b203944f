// A thread's goal through the SDK (real codex with its goals feature, ScriptedModel): codex works
// on it turn after turn; runGoal follows those turns to the goal's end, a turn limit, or an abort.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import { functionCall, reply, response } from "../../src/testing/script.js";
import {
  FULL_ACCESS,
  fixturesClosedAfterAll,
  type startCodexApi,
} from "../support/codex-api-fixture.js";

const fixtureOf = fixturesClosedAfterAll();

/** codex with its goals feature on, on a model playing `steps`, and a thread in its work folder. */
async function goalThread(steps: Parameters<typeof startCodexApi>[1]) {
  const fixture = await fixtureOf("app-server", steps, {
    config: { ...FULL_ACCESS, features: { goals: true } },
  });
  const thread = fixture.codex.startThread({
    workingDirectory: fixture.workdir,
    skipGitRepoCheck: true,
  });
  return { fixture, thread };
}

describe("goals through the SDK (real codex, ScriptedModel)", () => {
  it("runGoal follows codex's turns until the model marks the goal complete", async () => {
    const { thread } = await goalThread([
      reply("Working on the report."),
      functionCall("update_goal", { status: "complete" }),
      reply("The report is written."),
    ]);
    const events: ExtendedThreadEvent[] = [];
    const run = await thread.runGoal("write the report", { onEvent: (e) => events.push(e) });
    assert.equal(run.endedBy, "goal");
    assert.equal(run.goal.status, "complete");
    assert.equal(run.goal.objective, "write the report");
    assert.equal(run.turns.length, 2, "two turns: one working, one completing");
    assert.equal(run.turns[0]?.finalResponse, "Working on the report.");
    assert.equal(run.turns[1]?.finalResponse, "The report is written.");
    assert.equal(events.filter((event) => event.type === "turn.completed").length, 2);
    assert.equal((await thread.goal())?.status, "complete");
    await thread.clearGoal();
    assert.equal(await thread.goal(), null);
  });

  it("past maxTurns the goal is paused here, and codex runs no more turns for it", async () => {
    const { fixture, thread } = await goalThread(
      Array.from({ length: 8 }, (_, step) => reply(`Step ${step + 1}.`)),
    );
    const run = await thread.runGoal("keep going", { maxTurns: 2 });
    assert.equal(run.endedBy, "max_turns");
    assert.equal(run.turns.length, 2);
    assert.equal(run.goal.status, "paused");
    // No turn runs on: none in progress, and the model is asked nothing more.
    const { turns } = await thread.read({ includeTurns: true });
    assert.ok(
      turns?.every((turn) => turn.status !== "inProgress"),
      JSON.stringify(turns),
    );
    const asked = fixture.model.requests.length;
    await sleep(1_000);
    assert.equal(fixture.model.requests.length, asked, "nothing ran after the pause");
  });

  it("an abort pauses the goal and stops its running turn; setGoal and bad input", async () => {
    const { fixture, thread } = await goalThread([
      response([reply("too late")], { delayMs: 4_000 }),
      reply("never"),
    ]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stop the goal")), 500);
    const started = Date.now();
    await assert.rejects(
      thread.runGoal("a long goal", { signal: controller.signal }),
      /stop the goal/,
    );
    assert.ok(Date.now() - started < 3_500, `stopped in ${Date.now() - started} ms`);
    // Paused, or (aborted before codex had it) never set.
    assert.notEqual((await thread.goal())?.status, "active");
    const asked = fixture.model.requests.length;
    await sleep(4_500);
    assert.equal(fixture.model.requests.length, asked, "the goal asked nothing more");
    assert.ok(asked <= 1);

    const set = await thread.setGoal("another goal", { status: "paused", tokenBudget: 5_000 });
    assert.equal(set.objective, "another goal");
    assert.equal(set.tokenBudget, 5_000);
    await assert.rejects(thread.setGoal(" "), { code: "invalid_input" });
    await assert.rejects(thread.runGoal("x", { maxTurns: 0 }), { code: "invalid_option" });
    const exec = await fixtureOf("exec", []);
    await assert.rejects(exec.codex.startThread({ skipGitRepoCheck: true }).goal(), {
      code: "unsupported_operation",
    });
  });

  it("codex closing under a goal's run ends it with why, instead of waiting for ever", async () => {
    const { fixture, thread } = await goalThread([
      response([reply("too late")], { delayMs: 10_000 }),
    ]);
    const run = thread.runGoal("a goal codex will not finish").then(
      () => "resolved",
      (error: unknown) => error,
    );
    await fixture.model.waitForRequest(1, { timeoutMs: 20_000 });
    const started = Date.now();
    await fixture.codex.close();
    const outcome = await run;
    assert.ok(outcome instanceof Error, `rejected, got ${String(outcome)}`);
    assert.ok(Date.now() - started < 5_000, `ended ${Date.now() - started} ms after the close`);
  });
});
