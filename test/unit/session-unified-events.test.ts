// Unit tests of `toUnifiedEvents`: canonical thread events -> agent-spaces' unified session events.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { withRaw } from "../../src/events/raw.js";
import type {
  DynamicToolCallItem,
  ExtendedCommandExecutionItem,
  ExtendedFileChangeItem,
  ExtendedItemCompletedEvent,
  ExtendedItemStartedEvent,
  ExtendedMcpToolCallItem,
  ExtendedThreadEvent,
  ExtendedThreadItem,
  ItemDeltaEvent,
  NotificationEvent,
  Usage,
} from "../../src/events/types.js";
import { toUnifiedEvents, type UnifiedTurnState } from "../../src/session/unified-events.js";
import type {
  ToolExecutionEndEvent,
  UnifiedSessionEvent,
} from "../../src/session/unified-types.js";

const THREAD = "thread-1";
const TURN = "turn-1";

const usage: Usage = {
  input_tokens: 10,
  cached_input_tokens: 0,
  cache_write_input_tokens: 0,
  output_tokens: 5,
  reasoning_output_tokens: 0,
};

/** The unified events of one canonical event, with a fresh turn state unless one is given. */
function map(event: ExtendedThreadEvent, state: UnifiedTurnState = {}): UnifiedSessionEvent[] {
  return toUnifiedEvents(event, state);
}

/** The one unified event `event` maps to. */
function one(event: ExtendedThreadEvent, state: UnifiedTurnState = {}): UnifiedSessionEvent {
  const events = map(event, state);
  assert.equal(events.length, 1, `one event for ${JSON.stringify(events)}`);
  return events[0] as UnifiedSessionEvent;
}

const started = (item: ExtendedThreadItem): ExtendedItemStartedEvent => ({
  type: "item.started",
  thread_id: THREAD,
  turn_id: TURN,
  item,
});

const completed = (item: ExtendedThreadItem): ExtendedItemCompletedEvent => ({
  type: "item.completed",
  thread_id: THREAD,
  turn_id: TURN,
  item,
});

/** The tool_execution_end of a completed item. */
function toolEnd(item: ExtendedThreadItem): ToolExecutionEndEvent {
  const event = one(completed(item));
  assert.equal(event.type, "tool_execution_end");
  return event as ToolExecutionEndEvent;
}

const command = (
  over: Partial<ExtendedCommandExecutionItem> = {},
): ExtendedCommandExecutionItem => ({
  id: "cmd_1",
  type: "command_execution",
  command: "echo hi",
  aggregated_output: "hi\n",
  exit_code: 0,
  status: "completed",
  cwd: "/work",
  duration_ms: 42,
  ...over,
});

const fileChange = (status: ExtendedFileChangeItem["status"]): ExtendedFileChangeItem => ({
  id: "patch_1",
  type: "file_change",
  changes: [{ path: "/work/a.txt", kind: "add", diff: "hello\n" }],
  status,
});

const mcpCall = (over: Partial<ExtendedMcpToolCallItem> = {}): ExtendedMcpToolCallItem => ({
  id: "mcp_1",
  type: "mcp_tool_call",
  server: "files",
  tool: "read",
  arguments: { path: "a.txt" },
  status: "completed",
  ...over,
});

const dynamicCall = (over: Partial<DynamicToolCallItem> = {}): DynamicToolCallItem => ({
  id: "dyn_1",
  type: "dynamic_tool_call",
  tool: "lookup",
  arguments: { q: 1 },
  status: "completed",
  ...over,
});

const notification = (method: string, params: unknown): NotificationEvent => ({
  type: "notification",
  thread_id: THREAD,
  turn_id: TURN,
  method,
  params,
});

describe("toUnifiedEvents: turns", () => {
  it("maps turn.started to turn_start with the turn id", () => {
    const event: ExtendedThreadEvent = { type: "turn.started", thread_id: THREAD, turn_id: TURN };
    assert.deepEqual(map(event), [{ type: "turn_start", turnId: TURN, payload: event }]);
  });

  it("maps a turn.started without a turn id to a turn_start without one", () => {
    const event: ExtendedThreadEvent = { type: "turn.started" };
    const [unified] = map(event);
    assert.deepEqual(unified, { type: "turn_start", payload: event });
    assert.equal(unified !== undefined && "turnId" in unified, false);
  });

  it("remembers the diff and plan and reports them in a completed turn_end", () => {
    const state: UnifiedTurnState = {};
    assert.deepEqual(
      map({ type: "turn.diff.updated", turn_id: TURN, diff: "--- a\n+++ b\n" }, state),
      [],
    );
    assert.deepEqual(
      map({ type: "turn.diff.updated", turn_id: TURN, diff: "--- a\n+++ c\n" }, state),
      [],
    );
    assert.deepEqual(
      map(
        {
          type: "turn.plan.updated",
          turn_id: TURN,
          explanation: "first",
          plan: [{ step: "read", status: "in_progress" }],
        },
        state,
      ),
      [],
    );
    const plan = {
      explanation: null,
      plan: [
        { step: "read", status: "completed" as const },
        { step: "write", status: "pending" as const },
      ],
    };
    assert.deepEqual(map({ type: "turn.plan.updated", turn_id: TURN, ...plan }, state), []);
    assert.deepEqual(state, { diff: "--- a\n+++ c\n", plan });

    const end: ExtendedThreadEvent = {
      type: "turn.completed",
      thread_id: THREAD,
      turn_id: TURN,
      usage,
      status: "completed",
    };
    assert.deepEqual(map(end, state), [
      {
        type: "turn_end",
        turnId: TURN,
        payload: { status: "completed", diff: "--- a\n+++ c\n", plan, raw: end },
      },
    ]);
  });

  it("reports completed when turn.completed has no status, and no diff or plan when none came", () => {
    const end: ExtendedThreadEvent = { type: "turn.completed", turn_id: TURN, usage };
    assert.deepEqual(map(end), [
      { type: "turn_end", turnId: TURN, payload: { status: "completed", raw: end } },
    ]);
  });

  it("reports an interrupted turn", () => {
    const state: UnifiedTurnState = {};
    map({ type: "turn.diff.updated", turn_id: TURN, diff: "d" }, state);
    const end: ExtendedThreadEvent = {
      type: "turn.completed",
      turn_id: TURN,
      usage,
      status: "interrupted",
    };
    assert.deepEqual(map(end, state), [
      { type: "turn_end", turnId: TURN, payload: { status: "interrupted", diff: "d", raw: end } },
    ]);
  });

  it("reports a failed turn with its error and codexErrorInfo", () => {
    const state: UnifiedTurnState = {};
    map({ type: "turn.diff.updated", turn_id: TURN, diff: "partial" }, state);
    const end: ExtendedThreadEvent = {
      type: "turn.failed",
      thread_id: THREAD,
      turn_id: TURN,
      error: { message: "usage limit reached", codex_error_info: "usageLimitExceeded" },
    };
    assert.deepEqual(map(end, state), [
      {
        type: "turn_end",
        turnId: TURN,
        payload: {
          status: "failed",
          error: { message: "usage limit reached", codexErrorInfo: "usageLimitExceeded" },
          diff: "partial",
          raw: end,
        },
      },
    ]);
  });

  it("leaves codexErrorInfo out of a failed turn_end when codex gave none", () => {
    const end: ExtendedThreadEvent = {
      type: "turn.failed",
      turn_id: TURN,
      error: { message: "boom", codex_error_info: null },
    };
    assert.deepEqual(map(end), [
      {
        type: "turn_end",
        turnId: TURN,
        payload: { status: "failed", error: { message: "boom" }, raw: end },
      },
    ]);
  });

  it("puts the raw wire message of the turn's completion in turn_end's payload.raw", () => {
    const wire = { method: "turn/completed", params: { threadId: THREAD, turn: { id: TURN } } };
    const end = withRaw<ExtendedThreadEvent>(
      { type: "turn.completed", turn_id: TURN, usage },
      wire,
    );
    const event = one(end);
    assert.equal(event.type, "turn_end");
    assert.equal(event.type === "turn_end" && event.payload.raw, wire);
  });
});

describe("toUnifiedEvents: agent messages", () => {
  it("maps agent_message start and completion to message_start and message_end", () => {
    const item: ExtendedThreadItem = { id: "msg_1", type: "agent_message", text: "" };
    const start = started(item);
    assert.deepEqual(map(start), [
      {
        type: "message_start",
        messageId: "msg_1",
        message: { role: "assistant", content: "" },
        payload: start,
      },
    ]);
    const end = completed({ id: "msg_1", type: "agent_message", text: "All done." });
    assert.deepEqual(map(end), [
      {
        type: "message_end",
        messageId: "msg_1",
        message: { role: "assistant", content: "All done." },
        payload: end,
      },
    ]);
  });

  it("maps an agent_message delta to message_update with the text delta", () => {
    const delta: ItemDeltaEvent = {
      type: "item.delta",
      item_id: "msg_1",
      stream: "agent_message",
      delta: "Hel",
    };
    assert.deepEqual(map(delta), [
      { type: "message_update", messageId: "msg_1", textDelta: "Hel", payload: delta },
    ]);
  });

  it("gives a delta of a known turn the wire message rebuilt from it as payload", () => {
    const delta: ItemDeltaEvent = {
      type: "item.delta",
      thread_id: THREAD,
      turn_id: TURN,
      item_id: "msg_1",
      stream: "agent_message",
      delta: "lo",
    };
    assert.deepEqual(one(delta).payload, {
      method: "item/agentMessage/delta",
      params: { threadId: THREAD, turnId: TURN, itemId: "msg_1", delta: "lo" },
    });
  });
});

describe("toUnifiedEvents: tools", () => {
  it("maps a command start to tool_execution_start with command and cwd", () => {
    const start = started(command({ status: "in_progress", exit_code: null }));
    assert.deepEqual(map(start), [
      {
        type: "tool_execution_start",
        toolUseId: "cmd_1",
        toolName: "command_execution",
        input: { command: "echo hi", cwd: "/work" },
        payload: start,
      },
    ]);
  });

  it("maps a command that exited 0 to a tool_execution_end without isError, with durationMs", () => {
    const end = completed(command());
    assert.deepEqual(map(end), [
      {
        type: "tool_execution_end",
        toolUseId: "cmd_1",
        toolName: "command_execution",
        result: {
          content: [{ type: "text", text: "hi\n" }],
          details: { exitCode: 0, status: "completed" },
        },
        durationMs: 42,
        payload: end,
      },
    ]);
  });

  it("marks a non-zero exit, a failed and a declined command as errors", () => {
    const nonZero = toolEnd(command({ exit_code: 2, aggregated_output: "nope\n" }));
    assert.equal(nonZero.isError, true);
    assert.deepEqual(nonZero.result.details, { exitCode: 2, status: "completed" });
    assert.deepEqual(nonZero.result.content, [{ type: "text", text: "nope\n" }]);

    const failed = toolEnd(command({ status: "failed", exit_code: null }));
    assert.equal(failed.isError, true);
    assert.deepEqual(failed.result.details, { exitCode: null, status: "failed" });

    const declined = toolEnd(
      command({ status: "declined", exit_code: undefined, aggregated_output: "" }),
    );
    assert.equal(declined.isError, true);
    assert.deepEqual(declined.result.details, { exitCode: null, status: "declined" });
  });

  it("leaves durationMs out when the command has none", () => {
    const end = toolEnd(command({ duration_ms: null }));
    assert.equal("durationMs" in end, false);
    assert.equal("isError" in end, false);
  });

  it("maps file changes, marking declined and failed patches as errors", () => {
    const start = started(fileChange("in_progress"));
    const [unifiedStart] = map(start);
    assert.deepEqual(unifiedStart, {
      type: "tool_execution_start",
      toolUseId: "patch_1",
      toolName: "file_change",
      input: { changes: [{ path: "/work/a.txt", kind: "add", diff: "hello\n" }] },
      payload: start,
    });

    const ok = toolEnd(fileChange("completed"));
    assert.equal(ok.toolName, "file_change");
    assert.equal("isError" in ok, false);
    assert.deepEqual(ok.result, {
      content: [
        {
          type: "text",
          text: JSON.stringify([{ path: "/work/a.txt", kind: "add", diff: "hello\n" }], null, 2),
        },
      ],
      details: { status: "completed" },
    });
    assert.equal(toolEnd(fileChange("declined")).isError, true);
    assert.equal(toolEnd(fileChange("failed")).isError, true);
  });

  it("maps MCP tool calls as mcp:<server>/<tool>, marking an error", () => {
    const start = started(mcpCall({ status: "in_progress" }));
    assert.deepEqual(map(start), [
      {
        type: "tool_execution_start",
        toolUseId: "mcp_1",
        toolName: "mcp:files/read",
        input: { server: "files", tool: "read", arguments: { path: "a.txt" } },
        payload: start,
      },
    ]);

    const result = { content: [{ type: "text", text: "contents" }], structured_content: null };
    const ok = toolEnd(mcpCall({ result, duration_ms: 7 }));
    assert.equal(ok.toolName, "mcp:files/read");
    assert.equal("isError" in ok, false);
    assert.equal(ok.durationMs, 7);
    assert.deepEqual(ok.result.content, [{ type: "text", text: JSON.stringify(result, null, 2) }]);

    const failed = toolEnd(mcpCall({ status: "failed", error: { message: "no such file" } }));
    assert.equal(failed.isError, true);
    assert.deepEqual(failed.result.content, [{ type: "text", text: "no such file" }]);
    assert.deepEqual(failed.result.details, { status: "failed" });

    // An error counts even when codex reports the call as completed.
    assert.equal(toolEnd(mcpCall({ error: { message: "bad" } })).isError, true);
  });

  it("maps web searches and image views", () => {
    const search: ExtendedThreadItem = {
      id: "ws_1",
      type: "web_search",
      query: "node test runner",
    };
    assert.deepEqual(map(started(search)), [
      {
        type: "tool_execution_start",
        toolUseId: "ws_1",
        toolName: "web_search",
        input: { query: "node test runner" },
        payload: started(search),
      },
    ]);
    const searchEnd = toolEnd(search);
    assert.equal(searchEnd.toolName, "web_search");
    assert.equal("isError" in searchEnd, false);
    assert.deepEqual(searchEnd.result, {
      content: [{ type: "text", text: "web_search: node test runner" }],
    });

    const view: ExtendedThreadItem = { id: "iv_1", type: "image_view", path: "/work/cat.png" };
    assert.deepEqual(map(started(view)), [
      {
        type: "tool_execution_start",
        toolUseId: "iv_1",
        toolName: "image_view",
        input: { path: "/work/cat.png" },
        payload: started(view),
      },
    ]);
    const viewEnd = toolEnd(view);
    assert.equal(viewEnd.toolName, "image_view");
    assert.deepEqual(viewEnd.result.content, [{ type: "text", text: "image_view: /work/cat.png" }]);
  });

  it("maps dynamic tool calls as dynamic:[<namespace>/]<tool>, marking failures", () => {
    const start = started(dynamicCall({ status: "in_progress" }));
    assert.deepEqual(map(start), [
      {
        type: "tool_execution_start",
        toolUseId: "dyn_1",
        toolName: "dynamic:lookup",
        input: { tool: "lookup", arguments: { q: 1 } },
        payload: start,
      },
    ]);
    const items = [{ type: "inputText", text: "42" }];
    const ok = toolEnd(
      dynamicCall({ namespace: "kb", content_items: items, success: true, duration_ms: 3 }),
    );
    assert.equal(ok.toolName, "dynamic:kb/lookup");
    assert.equal("isError" in ok, false);
    assert.equal(ok.durationMs, 3);
    assert.deepEqual(ok.result.content, [{ type: "text", text: JSON.stringify(items, null, 2) }]);

    assert.equal(toolEnd(dynamicCall({ success: false })).isError, true);
    assert.equal(toolEnd(dynamicCall({ status: "failed" })).isError, true);
  });

  it("maps command and file-change output deltas to tool_execution_update", () => {
    const out: ItemDeltaEvent = {
      type: "item.delta",
      item_id: "cmd_1",
      stream: "command_output",
      delta: "line 1\n",
    };
    assert.deepEqual(map(out), [
      {
        type: "tool_execution_update",
        toolUseId: "cmd_1",
        partialOutput: "line 1\n",
        payload: out,
      },
    ]);
    const patchOut: ItemDeltaEvent = {
      type: "item.delta",
      item_id: "patch_1",
      stream: "file_change_output",
      delta: "Success.",
    };
    assert.deepEqual(map(patchOut), [
      {
        type: "tool_execution_update",
        toolUseId: "patch_1",
        partialOutput: "Success.",
        payload: patchOut,
      },
    ]);
  });

  it("maps item/mcpToolCall/progress to tool_execution_update with its message", () => {
    const progress = notification("item/mcpToolCall/progress", {
      threadId: THREAD,
      turnId: TURN,
      itemId: "mcp_1",
      message: "50% read",
    });
    assert.deepEqual(map(progress), [
      { type: "tool_execution_update", toolUseId: "mcp_1", message: "50% read", payload: progress },
    ]);
  });

  it("maps nothing for reasoning, plan and todo items or reasoning deltas", () => {
    const reasoning: ExtendedThreadItem = { id: "rs_1", type: "reasoning", text: "think" };
    assert.deepEqual(map(started(reasoning)), []);
    assert.deepEqual(map(completed(reasoning)), []);
    assert.deepEqual(map(completed({ id: "todo_1", type: "todo_list", items: [] })), []);
    for (const stream of ["reasoning", "reasoning_summary", "plan"] as const) {
      assert.deepEqual(
        map({ type: "item.delta", turn_id: TURN, item_id: "rs_1", stream, delta: "x" }),
        [],
        stream,
      );
    }
  });
});

describe("toUnifiedEvents: notices", () => {
  it("maps warning, configWarning and deprecationNotice notifications to warn notices", () => {
    const cases = [
      ["warning", { message: "disk almost full" }, "warning", "disk almost full"],
      [
        "configWarning",
        { summary: "unknown key", details: "foo.bar in config.toml" },
        "config_warning",
        "unknown key: foo.bar in config.toml",
      ],
      ["deprecationNotice", { summary: "old flag", details: null }, "deprecation", "old flag"],
    ] as const;
    for (const [method, params, code, message] of cases) {
      const event = notification(method, params);
      assert.deepEqual(map(event), [
        { type: "notice", level: "warn", code, message, payload: event },
      ]);
    }
  });

  it("falls back to the method name for a warning notification without text", () => {
    const event = notification("configWarning", {});
    assert.deepEqual(map(event), [
      {
        type: "notice",
        level: "warn",
        code: "config_warning",
        message: "configWarning",
        payload: event,
      },
    ]);
  });

  it("maps other notifications to nothing", () => {
    assert.deepEqual(map(notification("thread/tokenUsage/updated", { usage: {} })), []);
    assert.deepEqual(map(notification("item/mcpToolCall/progress", { message: "no id" })), []);
  });

  it("maps an error that codex retries to a warn notice with code retrying", () => {
    const event: ExtendedThreadEvent = {
      type: "error",
      turn_id: TURN,
      message: "stream disconnected; retrying 1/5",
      will_retry: true,
    };
    assert.deepEqual(map(event), [
      {
        type: "notice",
        level: "warn",
        code: "retrying",
        message: "stream disconnected; retrying 1/5",
        payload: event,
      },
    ]);
  });

  it("maps a notice event to a warn notice with its code", () => {
    const event: ExtendedThreadEvent = {
      type: "notice",
      thread_id: "new-thread",
      code: "thread_replaced",
      message: "thread old-thread was lost; started new-thread",
      replaced_thread_id: "old-thread",
    };
    assert.deepEqual(map(event), [
      {
        type: "notice",
        level: "warn",
        code: "thread_replaced",
        message: "thread old-thread was lost; started new-thread",
        payload: event,
      },
    ]);
  });

  it("maps an error item to a warn notice", () => {
    const event = completed({ id: "err_1", type: "error", message: "file too large to show" });
    assert.deepEqual(map(event), [
      {
        type: "notice",
        level: "warn",
        code: "warning",
        message: "file too large to show",
        payload: event,
      },
    ]);
    assert.deepEqual(map(started({ id: "err_1", type: "error", message: "x" })), []);
  });

  it("maps a decided approval with a reason to an approval notice: info, warn when declined", () => {
    const resolved = (decision: "accept" | "decline", reason?: string): ExtendedThreadEvent => ({
      type: "approval.resolved",
      thread_id: THREAD,
      turn_id: TURN,
      request_id: 7,
      kind: "commandExecution",
      item_id: "call_1",
      decision,
      decided_by: "handler",
      ...(reason === undefined ? {} : { reason }),
    });
    const accepted = resolved("accept", "approved by Alice, Bob in the channels runtime");
    assert.deepEqual(map(accepted), [
      {
        type: "notice",
        level: "info",
        code: "approval",
        message: "approved by Alice, Bob in the channels runtime",
        payload: accepted,
      },
    ]);
    const declined = resolved("decline", "declined: no one allowed to answer (group:release)");
    assert.equal((map(declined)[0] as { level?: string }).level, "warn");
    assert.deepEqual(map(resolved("accept")), [], "nothing said, nothing mapped");
  });

  it("maps thread.started and item.updated to nothing", () => {
    assert.deepEqual(map({ type: "thread.started", thread_id: THREAD }), []);
    assert.deepEqual(
      map({ type: "item.updated", turn_id: TURN, item: command({ status: "in_progress" }) }),
      [],
    );
  });
});

describe("toUnifiedEvents: payload", () => {
  it("carries the raw wire message when the event has one, else the event itself", () => {
    const cases: [ExtendedThreadEvent, string][] = [
      [{ type: "turn.started", turn_id: TURN }, "turn/started"],
      [started({ id: "msg_1", type: "agent_message", text: "" }), "item/started"],
      [completed({ id: "msg_1", type: "agent_message", text: "hi" }), "item/completed"],
      [started(command()), "item/started"],
      [completed(command()), "item/completed"],
      [completed({ id: "err_1", type: "error", message: "m" }), "item/completed"],
      [
        {
          type: "item.delta",
          turn_id: TURN,
          item_id: "cmd_1",
          stream: "command_output",
          delta: "x",
        },
        "item/commandExecution/outputDelta",
      ],
      [
        {
          type: "item.delta",
          turn_id: TURN,
          item_id: "msg_1",
          stream: "agent_message",
          delta: "x",
        },
        "item/agentMessage/delta",
      ],
      [{ type: "error", message: "retry", will_retry: true }, "error"],
      [{ type: "notice", code: "c", message: "m" }, "notice"],
      [notification("warning", { message: "w" }), "warning"],
      [notification("item/mcpToolCall/progress", { itemId: "mcp_1", message: "m" }), "progress"],
    ];
    for (const [event, method] of cases) {
      const [plain] = map(event);
      assert.ok(plain, `${method} maps to an event`);
      if (event.type === "item.delta") {
        // Deltas carry no raw: their wire message is rebuilt from the event.
        assert.deepEqual(plain.payload, {
          method,
          params: { threadId: undefined, turnId: TURN, itemId: event.item_id, delta: "x" },
        });
      } else {
        assert.equal(plain.payload, event, `${method} without raw is the event`);
      }

      const wire = { jsonrpc: "2.0", method, params: { marker: method } };
      const [withWire] = map(withRaw({ ...event }, wire));
      assert.ok(withWire);
      assert.equal(withWire.payload, wire, `${method} with raw`);
    }
  });
});
