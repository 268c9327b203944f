// A thread's goal through the SDK (real codex with its goals feature, ScriptedModel): codex works
// on it turn after turn; runGoal follows those turns to the goal's end, a turn limit, or an abort.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { ConfigObject } from "../../src/app-server/codex-config.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import { execCommand, functionCall, reply, response } from "../../src/testing/script.js";
import type { CodexOptions, ThreadOptions } from "../../src/turns/options.js";
import {
  FULL_ACCESS,
  fixturesClosedAfterAll,
  type startCodexApi,
} from "../support/codex-api-fixture.js";
import { allAttributeText, parentOf, registerInMemoryOtel, spansNamed } from "../support/otel.js";

const fixtureOf = fixturesClosedAfterAll();

/**
 * codex with its goals feature on, on a model playing `steps`, and a thread in its work folder
 * (full access unless `config` says otherwise; `codex` and `thread` options added).
 */
async function goalThread(
  steps: Parameters<typeof startCodexApi>[1],
  options: {
    config?: ConfigObject;
    codex?: CodexOptions<"extended">;
    thread?: ThreadOptions<"extended">;
  } = {},
) {
  const fixture = await fixtureOf("app-server", steps, {
    config: { ...(options.config ?? FULL_ACCESS), features: { goals: true } },
    ...(options.codex ? { codex: options.codex } : {}),
  });
  const thread = fixture.codex.startThread({
    workingDirectory: fixture.workdir,
    skipGitRepoCheck: true,
    ...options.thread,
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

  it("runGoalStreamed is one stream across codex's continuation turns; leaving it stops the goal", async () => {
    const { fixture, thread } = await goalThread([
      reply("First step."),
      functionCall("update_goal", { status: "complete" }),
      reply("Second step, done."),
      reply("Another goal's first step."),
      response([reply("never read")], { delayMs: 3_000 }),
    ]);
    const { events } = await thread.runGoalStreamed("two steps");
    const seen: string[] = [];
    for await (const event of events) {
      if (event.type === "goal.updated") seen.push(`goal:${event.goal.status}`);
      else if (event.type === "goal.ended")
        seen.push(`ended:${event.endedBy}:${event.turns.length}`);
      else if (event.type === "turn.started" || event.type === "turn.completed") {
        seen.push(event.type);
      } else if (event.type === "item.completed" && event.item.type === "agent_message") {
        seen.push(event.item.text);
      }
    }
    // Each turn whole, one after the other, the goal's updates where codex sent them.
    const turnsOnly = seen.filter((entry) => !entry.startsWith("goal:"));
    assert.deepEqual(turnsOnly, [
      "turn.started",
      "First step.",
      "turn.completed",
      "turn.started",
      "Second step, done.",
      "turn.completed",
      "ended:goal:2",
    ]);
    assert.equal(seen[0], "goal:active");
    assert.ok(seen.includes("goal:complete"), seen.join(", "));

    // Left after its first turn: the loop exits once the goal is paused and nothing of it runs.
    // codex may start a continuation turn as the pause lands (it decided to continue as the first
    // turn completed); that turn is interrupted before the loop exits (codex has been seen to send
    // its model request after the interrupt all the same, under load).
    const turns = new Map<string, string | undefined>();
    const client = await fixture.codex.appServer.client();
    const off = client.onAnyNotification(({ method, params }) => {
      const turn = (params as { turn?: { id: string; status: string } } | undefined)?.turn;
      if (method === "turn/started" && turn) turns.set(turn.id, undefined);
      if (method === "turn/completed" && turn) turns.set(turn.id, turn.status);
    });
    const next = await thread.runGoalStreamed("another goal");
    for await (const event of next.events) {
      if (event.type === "turn.started") {
        await assert.rejects(thread.runGoal("too soon"), { code: "thread_busy" });
      }
      if (event.type === "turn.completed") break;
    }
    assert.equal((await thread.goal())?.status, "paused", "paused once the loop exits");
    const [first, ...late] = turns.values();
    assert.equal(first, "completed");
    for (const status of late) assert.equal(status, "interrupted", "a late turn was stopped");
    const asked = fixture.model.requests.length;
    await sleep(1_000);
    off();
    assert.equal(fixture.model.requests.length, asked, "the left goal asked nothing more");
    assert.equal(turns.size, late.length + 1, "and started no turn");
  });

  it("runGoal after a paused goal works on the new one (the old one's late update is not taken)", async () => {
    const { thread } = await goalThread([
      reply("Working on the new goal."),
      functionCall("update_goal", { status: "complete" }),
      reply("The new goal is done."),
    ]);
    const paused = await thread.setGoal("the old goal", { status: "paused" });
    assert.equal(paused.status, "paused");
    const run = await thread.runGoal("the new goal");
    assert.equal(run.goal.objective, "the new goal");
    assert.equal(run.goal.status, "complete");
    assert.equal(run.turns.length, 2, "the new goal's turns were followed");
    assert.equal(run.turns.at(-1)?.finalResponse, "The new goal is done.");
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

  it("a goal's turns are the thread's: its approvals decide their requests", async () => {
    const { fixture, thread } = await goalThread(
      [
        execCommand("echo yes > goal.txt", { escalated: true, justification: "for the goal" }),
        reply("Wrote it."),
        functionCall("update_goal", { status: "complete" }),
        reply("Done."),
      ],
      {
        // read-only + on-request: the escalated command asks. The Codex says no, the thread yes.
        config: {},
        codex: { approvals: { commandExecution: () => "decline" } },
        thread: { approvals: { commandExecution: () => "accept" } },
      },
    );
    const events: ExtendedThreadEvent[] = [];
    const run = await thread.runGoal("write goal.txt", { onEvent: (e) => events.push(e) });
    assert.equal(run.goal.status, "complete");
    const resolved = events.filter((e) => e.type === "approval.resolved");
    assert.equal(resolved.length, 1, JSON.stringify(resolved));
    assert.equal(resolved[0]?.type === "approval.resolved" && resolved[0].decision, "accept");
    assert.equal(readFileSync(path.join(fixture.workdir, "goal.txt"), "utf8").trim(), "yes");
  });

  it("a goal's run is traced: a goal span, each of its turns an invoke_agent with its tools and waits", async () => {
    const otel = registerInMemoryOtel();
    try {
      const { thread } = await goalThread(
        [
          execCommand("echo GOAL-CMD-5a1e > goal.txt", { escalated: true }),
          reply("Wrote it."),
          functionCall("update_goal", { status: "complete" }),
          reply("Done."),
        ],
        { config: {}, thread: { approvals: { commandExecution: () => "accept" } } },
      );
      const run = await thread.runGoal("GOAL-OBJECTIVE-9b2c: write goal.txt");
      assert.equal(run.turns.length, 2);
      const spans = otel.spans();
      const [goal] = spansNamed(spans, "codex_harness.goal");
      assert.ok(goal, spans.map((span) => span.name).join(", "));
      assert.equal(goal.attributes["codex_harness.goal.ended_by"], "goal");
      assert.equal(goal.attributes["codex_harness.goal.status"], "complete");
      assert.equal(goal.attributes["codex_harness.goal.turns"], 2);
      assert.equal(goal.attributes["gen_ai.conversation.id"], thread.id);
      const turns = spansNamed(spans, "invoke_agent");
      assert.equal(turns.length, 2, "each goal turn is a turn span");
      for (const turn of turns) {
        assert.equal(parentOf(turn), goal.spanContext().spanId);
        assert.equal(turn.attributes["codex_harness.turn.outcome"], "completed");
      }
      const [tool] = spansNamed(spans, "execute_tool");
      const [wait] = spansNamed(spans, "approval");
      assert.ok(tool && wait);
      assert.equal(parentOf(tool), turns[0]?.spanContext().spanId);
      assert.equal(parentOf(wait), turns[0]?.spanContext().spanId);
      assert.equal(wait.attributes["codex_harness.approval.decision"], "accept");
      for (const text of allAttributeText(spans)) {
        assert.ok(!/GOAL-(CMD|OBJECTIVE)/.test(text), `no content in telemetry: ${text}`);
      }
    } finally {
      await otel.close();
    }
  });

  it("an abort ends the goal's running turn and everything its command started", async () => {
    const marker = "late-marker.txt";
    const { fixture, thread } = await goalThread([
      // A command that leaves a process of its own session behind, then waits.
      execCommand(`setsid sh -c 'sleep 1.5; echo late > ${marker}' & sleep 30`),
      reply("never"),
    ]);
    const controller = new AbortController();
    const run = thread.runGoal("run the command", {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "item.started" && event.item.type === "command_execution") {
          setTimeout(() => controller.abort(new Error("stop the goal")), 200);
        }
      },
    });
    await assert.rejects(run, /stop the goal/);
    assert.notEqual((await thread.goal())?.status, "active");
    await sleep(2_500);
    assert.equal(existsSync(path.join(fixture.workdir, marker)), false, "nothing ran on");
  });

  it("a quiet goal turn is given up by the idle watchdog, and the goal paused", async () => {
    const { fixture, thread } = await goalThread(
      [response([reply("too late")], { delayMs: 8_000 })],
      { codex: { turnIdleTimeoutMs: 400 } },
    );
    const outcome = await thread.runGoal("a quiet goal").then(
      () => undefined,
      (error: unknown) => error,
    );
    const gaveUpAt = Date.now();
    assert.equal((outcome as { code?: string } | undefined)?.code, "turn_idle_timeout");
    // Timed from the model's request, not from codex's start (which a loaded machine has taken
    // 1-3 s): 400 ms of quiet, then the stop, well before the reply's 8 s. A loaded codex can also
    // be quiet 400 ms before it asks the model at all: then the watchdog gives the turn up before
    // any request (no reply could have come), and there is no request to time it from.
    const asked = fixture.model.modelRequests[0]?.receivedAt;
    if (asked !== undefined) {
      assert.ok(gaveUpAt - asked < 4_000, `gave up ${gaveUpAt - asked} ms after the request`);
    }
    assert.equal((await thread.goal())?.status, "paused");
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
