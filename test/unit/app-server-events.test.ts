import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { AppServerTurnMapper } from "../../src/events/app-server-events.js";
import { toCanonicalItem } from "../../src/events/items.js";
import { rawOf } from "../../src/events/raw.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import type { RpcNotification } from "../../src/protocol/messages.js";
import { ActiveTurn } from "../../src/turns/active-turn.js";
import { repoRoot } from "../support/paths.js";

/** A real turn recorded from codex 0.169.0: reasoning, a command, a patch, a reply, 4 model requests. */
const recorded = readFileSync(path.join(repoRoot, "test/fixtures/app-server-turn.jsonl"), "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as RpcNotification);
const THREAD = "01a2008b-681d-7d82-b878-54b0a4f8fea0";
const TURN = "01a2008b-6848-79e1-a173-cc2fdfe71d9b";

async function eventsOf(turn: ActiveTurn): Promise<ExtendedThreadEvent[]> {
  const all: ExtendedThreadEvent[] = [];
  for await (const event of turn.events) all.push(event);
  return all;
}

describe("AppServerTurnMapper on a recorded turn", () => {
  it("keeps notifications that arrive before the turn id is known, and ends at turn/completed", async () => {
    const turn = new ActiveTurn(THREAD);
    for (const notification of recorded) turn.receive(notification);
    assert.equal(turn.events.closed, false, "nothing is mapped before the turn id is known");
    turn.start(TURN);
    const events = await eventsOf(turn);
    assert.equal(events.at(-1)?.type, "turn.completed");
    assert.ok(events.every((event) => event.thread_id === THREAD && event.turn_id === TURN));
  });

  it("maps items to the official snake_case shapes, keeping the extra fields", async () => {
    const turn = new ActiveTurn(THREAD);
    turn.start(TURN);
    for (const notification of recorded) turn.receive(notification);
    const events = await eventsOf(turn);
    const completed = events.flatMap((e) => (e.type === "item.completed" ? [e.item] : []));
    assert.deepEqual(
      completed.map((item) => item.type),
      ["reasoning", "command_execution", "file_change", "agent_message"],
    );
    const [thinking, command, change, message] = completed;
    assert.deepEqual(thinking, {
      id: "rs_1_0",
      type: "reasoning",
      text: "Think first",
      summary: ["Think first"],
      content: [],
    });
    assert.ok(command?.type === "command_execution");
    assert.equal(command.command, "/bin/bash -lc 'echo hi && echo err >&2'");
    assert.equal(command.aggregated_output, "hi\nerr\n");
    assert.equal(command.exit_code, 0);
    assert.equal(command.status, "completed");
    assert.equal(command.cwd, "/tmp/probe-39e49j/work");
    assert.equal(command.process_id, "7628");
    assert.equal(command.duration_ms, 91);
    assert.deepEqual(command.command_actions, [
      { type: "unknown", command: "echo hi && echo err >&2" },
    ]);
    assert.deepEqual(change, {
      id: "call_2_0",
      type: "file_change",
      changes: [{ path: "/tmp/probe-39e49j/work/a.txt", kind: "add", diff: "hello\n" }],
      status: "completed",
    });
    assert.deepEqual(message, {
      id: "msg_4_0",
      type: "agent_message",
      text: "All done.",
      phase: null,
    });
  });

  it("emits item.delta for message, reasoning summary and command output", async () => {
    const turn = new ActiveTurn(THREAD);
    turn.start(TURN);
    for (const notification of recorded) turn.receive(notification);
    const events = await eventsOf(turn);
    const text = (stream: string) =>
      events
        .filter((e) => e.type === "item.delta" && e.stream === stream)
        .map((e) => (e.type === "item.delta" ? e.delta : ""))
        .join("");
    assert.equal(text("agent_message"), "All done.");
    assert.equal(text("reasoning_summary"), "Think first");
    assert.equal(text("command_output"), "hi\nerr\n");
  });

  it("reports the turn's own usage (all its requests), the thread total and the last request", async () => {
    const turn = new ActiveTurn(THREAD);
    turn.start(TURN);
    for (const notification of recorded) turn.receive(notification);
    const last = (await eventsOf(turn)).at(-1);
    assert.ok(last?.type === "turn.completed");
    assert.deepEqual(last.usage, {
      input_tokens: 100,
      cached_input_tokens: 3,
      cache_write_input_tokens: 0,
      output_tokens: 26,
      reasoning_output_tokens: 0,
    });
    assert.equal(last.last_usage?.input_tokens, 40);
    assert.equal(last.total_usage?.input_tokens, 100);
    assert.equal(last.status, "completed");
    assert.match(turn.mapper.diff ?? "", /\+hello/);
  });

  it("counts only this turn's tokens on a thread that already used some", () => {
    const mapper = new AppServerTurnMapper(THREAD, TURN);
    const breakdown = (input: number, output: number) => ({
      totalTokens: input + output,
      inputTokens: input,
      cachedInputTokens: 0,
      cacheWriteInputTokens: 0,
      outputTokens: output,
      reasoningOutputTokens: 0,
    });
    const usage = (total: [number, number], last: [number, number], window?: number) => ({
      method: "thread/tokenUsage/updated",
      params: {
        threadId: THREAD,
        turnId: TURN,
        tokenUsage: {
          total: breakdown(...total),
          last: breakdown(...last),
          ...(window ? { modelContextWindow: window } : {}),
        },
      },
    });
    const [first] = mapper.map(usage([1000 + 50, 200 + 5], [50, 5]));
    assert.ok(first?.type === "usage.updated", "each update is a usage.updated event");
    assert.equal(first.total.input_tokens, 1050);
    assert.equal(first.last.output_tokens, 5);
    assert.equal(first.model_context_window, null, "no window said: null");
    assert.equal(first.turn_id, TURN);
    const [second] = mapper.map(usage([1000 + 50 + 70, 200 + 5 + 9], [70, 9], 258_400));
    assert.ok(second?.type === "usage.updated");
    assert.equal(second.model_context_window, 258_400);
    assert.deepEqual(
      mapper.map({ method: "thread/tokenUsage/updated", params: { tokenUsage: {} } }),
      [],
      "a malformed update is no event",
    );
    const [completed] = mapper.map({
      method: "turn/completed",
      params: { threadId: THREAD, turn: { id: TURN, status: "completed", error: null } },
    });
    assert.ok(completed?.type === "turn.completed");
    assert.equal(completed.usage.input_tokens, 120);
    assert.equal(completed.usage.output_tokens, 14);
  });

  it("maps plan updates to turn.plan.updated and a todo_list item completed at the end", () => {
    const mapper = new AppServerTurnMapper(THREAD, TURN);
    const plan = (status: string) => ({
      method: "turn/plan/updated",
      params: {
        threadId: THREAD,
        turnId: TURN,
        explanation: "why",
        plan: [
          { step: "read", status: "completed" },
          { step: "write", status },
        ],
      },
    });
    const first = mapper.map(plan("inProgress"));
    assert.deepEqual(
      first.map((e) => e.type),
      ["turn.plan.updated", "item.started"],
    );
    assert.deepEqual(first[0], {
      type: "turn.plan.updated",
      thread_id: THREAD,
      turn_id: TURN,
      explanation: "why",
      plan: [
        { step: "read", status: "completed" },
        { step: "write", status: "in_progress" },
      ],
    });
    const second = mapper.map(plan("completed"));
    assert.equal(second[1]?.type, "item.updated");
    const end = mapper.map({
      method: "turn/completed",
      params: { threadId: THREAD, turn: { id: TURN, status: "completed", error: null } },
    });
    assert.deepEqual(
      end.map((e) => e.type),
      ["item.completed", "turn.completed"],
    );
    const todo = end[0];
    assert.ok(todo?.type === "item.completed" && todo.item.type === "todo_list");
    assert.deepEqual(todo.item.items, [
      { text: "read", completed: true },
      { text: "write", completed: true },
    ]);
    assert.equal(mapper.plan?.plan.length, 2);
  });

  it("fails a turn with codex's error info, and interrupted turns end as completed/interrupted", () => {
    const failed = new AppServerTurnMapper(THREAD, TURN).map({
      method: "turn/completed",
      params: {
        threadId: THREAD,
        turn: {
          id: TURN,
          status: "failed",
          error: {
            message: "quota",
            codexErrorInfo: "usageLimitExceeded",
            additionalDetails: "later",
          },
        },
      },
    });
    assert.deepEqual(failed[0], {
      type: "turn.failed",
      thread_id: THREAD,
      turn_id: TURN,
      error: {
        message: "quota",
        codex_error_info: "usageLimitExceeded",
        additional_details: "later",
      },
    });
    const interrupted = new AppServerTurnMapper(THREAD, TURN).map({
      method: "turn/completed",
      params: { threadId: THREAD, turn: { id: TURN, status: "interrupted", error: null } },
    });
    assert.ok(interrupted[0]?.type === "turn.completed" && interrupted[0].status === "interrupted");
  });

  it("passes unknown methods, item types and fields through as notifications, never throwing", () => {
    const mapper = new AppServerTurnMapper(THREAD, TURN);
    const unknownMethod = { method: "future/thing", params: { threadId: THREAD, x: 1 } };
    const [a] = mapper.map(unknownMethod);
    assert.deepEqual(a, {
      type: "notification",
      thread_id: THREAD,
      turn_id: TURN,
      method: "future/thing",
      params: { threadId: THREAD, x: 1 },
    });
    assert.equal(rawOf(a as object), unknownMethod);
    const [b] = mapper.map({
      method: "item/started",
      params: { item: { type: "hologram", id: "h1" } },
    });
    assert.equal(b?.type, "notification");
    const [c] = mapper.map({
      method: "item/completed",
      params: {
        item: { type: "agentMessage", id: "m", text: "hi", brandNewField: { deep: true } },
      },
    });
    assert.ok(
      c?.type === "item.completed" && c.item.type === "agent_message" && c.item.text === "hi",
    );
    assert.doesNotThrow(() => mapper.map({ method: "item/completed", params: null }));
    assert.doesNotThrow(() =>
      mapper.map({ method: "turn/plan/updated", params: { plan: "garbage" } }),
    );
    assert.equal(toCanonicalItem({ type: "userMessage", id: "u" }), undefined);
  });

  it("gives an MCP tool call codex's environment id (0.171.0 on), and none when codex sends none", () => {
    const wire = {
      type: "mcpToolCall",
      id: "m1",
      server: "notes",
      tool: "read_notes",
      status: "completed",
      arguments: {},
      result: null,
      error: null,
      durationMs: 3,
    };
    const of = (extra: Record<string, unknown>) =>
      toCanonicalItem({ ...wire, ...extra } as Parameters<typeof toCanonicalItem>[0]);
    assert.deepEqual(of({ environmentId: "devbox" }), {
      id: "m1",
      type: "mcp_tool_call",
      server: "notes",
      environment_id: "devbox",
      tool: "read_notes",
      arguments: {},
      status: "completed",
      duration_ms: 3,
    });
    const thread = of({ environmentId: null });
    assert.ok(thread?.type === "mcp_tool_call" && thread.environment_id === null);
    const older = of({});
    assert.ok(older?.type === "mcp_tool_call" && !("environment_id" in older));
  });

  it("ignores notifications of another turn of the same thread", async () => {
    const turn = new ActiveTurn(THREAD);
    turn.start(TURN);
    turn.receive({
      method: "item/agentMessage/delta",
      params: { threadId: THREAD, turnId: "old", itemId: "x", delta: "stale" },
    });
    turn.receive({
      method: "turn/completed",
      params: { threadId: THREAD, turn: { id: "old", status: "completed" } },
    });
    assert.equal(turn.events.closed, false);
    turn.receive({
      method: "turn/completed",
      params: { threadId: THREAD, turn: { id: TURN, status: "completed" } },
    });
    const events = await eventsOf(turn);
    assert.deepEqual(
      events.map((e) => e.type),
      ["turn.completed"],
    );
  });
});

describe("a malformed turn/completed", () => {
  it("is reported and ignored: it neither ends nor changes the turn", async () => {
    const turn = new ActiveTurn(THREAD);
    turn.start(TURN);
    const ending = (value: unknown): RpcNotification => ({
      method: "turn/completed",
      params: { threadId: THREAD, turn: value },
    });
    for (const value of [null, [], {}, "completed", { id: TURN }, { status: "completed" }]) {
      turn.receive(ending(value));
    }
    assert.equal(turn.events.closed, false, "the turn goes on");
    assert.equal(turn.mapper.outcome, undefined);
    turn.receive({
      method: "item/completed",
      params: {
        threadId: THREAD,
        turnId: TURN,
        item: { type: "agentMessage", id: "m", text: "on" },
      },
    });
    turn.receive(ending({ id: TURN, items: [], status: "completed", error: null }));
    const events = await eventsOf(turn);
    const notices = events.filter((event) => event.type === "notice");
    assert.equal(notices.length, 6);
    assert.ok(notices.every((event) => event.type === "notice" && event.code === "protocol_error"));
    assert.deepEqual(
      events.filter((event) => event.type !== "notice").map((event) => event.type),
      ["item.completed", "turn.completed"],
    );
  });
});
