// The projection onto @openai/codex-sdk's events, on notifications the scripted model cannot make
// codex 0.169.0 send (plans, reroutes, MCP calls, reconciled items), checked against codex exec's
// own rules (codex-rs/exec, event_processor_with_jsonl_output.rs).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppServerTurnMapper } from "../../src/events/app-server-events.js";
import { withRaw } from "../../src/events/raw.js";
import { sdkEventProjector } from "../../src/events/sdk-events.js";
import type { ThreadEvent } from "../../src/events/sdk-types.js";
import { interruptedTurnEvent, threadStartedEvent } from "../../src/events/turn-events.js";
import type { RpcNotification } from "../../src/protocol/messages.js";

const THREAD = "thread-1";
const TURN = "turn-1";

/** What the default (`events: "sdk"`) stream of a turn made of these notifications yields. */
function project(notifications: RpcNotification[]): ThreadEvent[] {
  const mapper = new AppServerTurnMapper(THREAD, TURN);
  const projector = sdkEventProjector("app-server");
  return notifications.flatMap((notification) =>
    mapper.map(notification).flatMap((event) => projector.project(event)),
  );
}

const note = (method: string, params: Record<string, unknown> = {}): RpcNotification => ({
  method,
  params: { threadId: THREAD, turnId: TURN, ...params },
});

const completed = (status: string, extra: Record<string, unknown> = {}) =>
  note("turn/completed", {
    turn: { id: TURN, items: [], status, error: null, ...extra },
  });

const command = (id: string, status: string, exitCode: number | null) => ({
  type: "commandExecution",
  id,
  command: "ls",
  cwd: "/w",
  processId: null,
  source: "agent",
  status,
  commandActions: [],
  aggregatedOutput: status === "inProgress" ? null : "a\n",
  exitCode,
  durationMs: null,
});

/** One model request, the turn's only one: its tokens are the thread's total so far. */
const request = {
  totalTokens: 12,
  inputTokens: 10,
  cachedInputTokens: 4,
  cacheWriteInputTokens: 0,
  outputTokens: 2,
  reasoningOutputTokens: 0,
};
const usage = note("thread/tokenUsage/updated", { tokenUsage: { total: request, last: request } });

describe("events: sdk on app-server", () => {
  it("numbers items per turn, skips messages' starts and empty reasoning, drops the extras", () => {
    const events = project([
      note("turn/started"),
      note("item/started", { item: { type: "agentMessage", id: "msg_1", text: "" } }),
      note("item/agentMessage/delta", { itemId: "msg_1", delta: "Hi" }),
      note("item/completed", { item: { type: "reasoning", id: "rs_1", summary: [], content: [] } }),
      note("item/started", { item: command("call_1", "inProgress", null) }),
      note("turn/diff/updated", { diff: "diff --git" }),
      note("item/completed", { item: command("call_1", "completed", 0) }),
      note("item/completed", { item: { type: "agentMessage", id: "msg_1", text: "Hi" } }),
      note("thread/status/changed", { status: { type: "idle" } }),
      usage,
      completed("completed"),
    ]);
    const running = {
      id: "item_0",
      type: "command_execution",
      command: "ls",
      aggregated_output: "",
      exit_code: null,
      status: "in_progress",
    };
    assert.deepEqual(events, [
      { type: "turn.started" },
      { type: "item.started", item: running },
      {
        type: "item.completed",
        item: { ...running, aggregated_output: "a\n", exit_code: 0, status: "completed" },
      },
      { type: "item.completed", item: { id: "item_1", type: "agent_message", text: "Hi" } },
      {
        type: "turn.completed",
        usage: {
          input_tokens: 10,
          cached_input_tokens: 4,
          cache_write_input_tokens: 0,
          output_tokens: 2,
          reasoning_output_tokens: 0,
        },
      },
    ]);
  });

  it("makes the plan a todo_list: started, updated, completed when the turn ends", () => {
    const plan = (second: string) =>
      note("turn/plan/updated", {
        explanation: null,
        plan: [
          { step: "look", status: "completed" },
          { step: "fix", status: second },
        ],
      });
    const events = project([plan("pending"), plan("completed"), completed("completed")]);
    const list = (fixed: boolean) => ({
      id: "item_0",
      type: "todo_list",
      items: [
        { text: "look", completed: true },
        { text: "fix", completed: fixed },
      ],
    });
    assert.deepEqual(events.slice(0, 3), [
      { type: "item.started", item: list(false) },
      { type: "item.updated", item: list(true) },
      { type: "item.completed", item: list(true) },
    ]);
    assert.equal(events[3]?.type, "turn.completed");
  });

  it("completes items codex never reported complete from the turn's own list", () => {
    const events = project([
      note("item/started", { item: command("call_1", "inProgress", null) }),
      completed("completed", { items: [command("call_1", "failed", 1)] }),
    ]);
    assert.deepEqual(
      events.map((event) => [event.type, "item" in event ? event.item.id : undefined]),
      [
        ["item.started", "item_0"],
        ["item.completed", "item_0"],
        ["turn.completed", undefined],
      ],
    );
  });

  it("updates a file change in place and reports a declined one as failed", () => {
    const change = (status: string) => ({
      type: "fileChange",
      id: "call_p",
      changes: [{ path: "/w/a.txt", kind: { type: "add" }, diff: "+a" }],
      status,
    });
    const events = project([
      note("item/started", { item: change("inProgress") }),
      note("item/fileChange/patchUpdated", {
        itemId: "call_p",
        changes: [
          { path: "/w/a.txt", kind: { type: "add" }, diff: "+a" },
          { path: "/w/b.txt", kind: { type: "update", move_path: null }, diff: "" },
        ],
      }),
      note("item/started", { item: change("inProgress") }),
      note("item/completed", { item: change("declined") }),
    ]);
    assert.deepEqual(
      events.map((event) => event.type),
      ["item.started", "item.updated", "item.updated", "item.completed"],
    );
    assert.deepEqual(events[1], {
      type: "item.updated",
      item: {
        id: "item_0",
        type: "file_change",
        changes: [
          { path: "/w/a.txt", kind: "add" },
          { path: "/w/b.txt", kind: "update" },
        ],
        status: "in_progress",
      },
    });
    assert.deepEqual(events[3], {
      type: "item.completed",
      item: {
        id: "item_0",
        type: "file_change",
        changes: [{ path: "/w/a.txt", kind: "add" }],
        status: "failed",
      },
    });
  });

  it("words errors, warnings and reroutes as codex exec does", () => {
    const events = project([
      note("error", {
        error: { message: "Reconnecting... 1/5", additionalDetails: "stream closed" },
        willRetry: true,
      }),
      note("configWarning", { summary: "Unknown key", details: "in config.toml" }),
      note("deprecationNotice", { summary: "Old flag", details: null }),
      note("warning", { message: "Model metadata not found" }),
      note("model/rerouted", { fromModel: "a", toModel: "b", reason: "highRiskCyberActivity" }),
      completed("failed"),
    ]);
    const errorItem = (id: string, message: string) => ({
      type: "item.completed",
      item: { id, type: "error", message },
    });
    assert.deepEqual(events, [
      { type: "error", message: "Reconnecting... 1/5 (stream closed)" },
      errorItem("item_0", "Unknown key (in config.toml)"),
      errorItem("item_1", "Old flag"),
      errorItem("item_2", "Model metadata not found"),
      errorItem("item_3", "model rerouted: a -> b (HighRiskCyberActivity)"),
      // No error of its own: the last error codex reported.
      { type: "turn.failed", error: { message: "Reconnecting... 1/5 (stream closed)" } },
    ]);
    assert.deepEqual(project([completed("failed")]), [
      { type: "turn.failed", error: { message: "turn failed" } },
    ]);
    assert.deepEqual(
      project([completed("failed", { error: { message: "Quota", additionalDetails: "upgrade" } })]),
      [{ type: "turn.failed", error: { message: "Quota (upgrade)" } }],
    );
  });

  it("ends an interrupted turn without an event", () => {
    assert.deepEqual(project([note("turn/started"), completed("interrupted")]), [
      { type: "turn.started" },
    ]);
    const projector = sdkEventProjector("app-server");
    assert.deepEqual(projector.project(interruptedTurnEvent(THREAD)), []);
  });

  it("shapes MCP calls and web searches as codex exec prints them", () => {
    const events = project([
      note("item/completed", {
        item: {
          type: "mcpToolCall",
          id: "mcp_1",
          server: "docs",
          tool: "search",
          status: "completed",
          arguments: { q: "x" },
          result: { content: [{ type: "text", text: "hit" }], structuredContent: null, _meta: {} },
          error: null,
          durationMs: 5,
        },
      }),
      note("item/completed", {
        item: {
          type: "webSearch",
          id: "ws_1",
          query: "q",
          action: { type: "openPage", url: "https://example.com" },
        },
      }),
    ]);
    assert.deepEqual(events, [
      {
        type: "item.completed",
        item: {
          id: "item_0",
          type: "mcp_tool_call",
          server: "docs",
          tool: "search",
          arguments: { q: "x" },
          result: { content: [{ type: "text", text: "hit" }], structured_content: null },
          error: null,
          status: "completed",
        },
      },
      // exec's JSON names `id` twice; the search's own id is the one a parser keeps.
      {
        type: "item.completed",
        item: { id: "ws_1", type: "web_search", query: "q", action: { type: "other" } },
      },
    ]);
  });

  it("gives thread.started and the transport's own failures the official shape", () => {
    const projector = sdkEventProjector("app-server");
    assert.deepEqual(projector.project(threadStartedEvent(THREAD)), [
      { type: "thread.started", thread_id: THREAD },
    ]);
    const died = withRaw(
      { type: "turn.failed" as const, thread_id: THREAD, error: { message: "codex exited" } },
      undefined,
    );
    assert.deepEqual(projector.project(died), [
      { type: "turn.failed", error: { message: "codex exited" } },
    ]);
  });
});

describe("events: sdk on exec", () => {
  it("yields exec's own lines as parsed, and nothing the transport made itself", () => {
    const projector = sdkEventProjector("exec");
    const line = {
      type: "item.completed",
      item: { id: "item_0", type: "agent_message" as const, text: "x" },
    };
    const event = withRaw(
      { type: "item.completed" as const, thread_id: THREAD, item: line.item },
      line,
    );
    const [projected] = projector.project(event);
    assert.equal(projected, line);
    assert.deepEqual(projector.project(threadStartedEvent(THREAD)), []);
  });
});
