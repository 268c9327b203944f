// Unit tests of the exec JSONL -> canonical event mapping.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EXEC_ITEM_TYPES, execLineToEvents, execThreadIdOf } from "../../src/events/exec-events.js";
import { rawOf } from "../../src/events/raw.js";
import { interruptedTurnEvent } from "../../src/events/turn-events.js";

const THREAD = "01a2008d-a060-7dd0-a7a4-ab4af04544f8";

/** One event for one line, checked to keep the line as non-enumerable `raw`. */
function single(line: unknown, threadId?: string): Record<string, unknown> {
  const events = execLineToEvents(line, threadId);
  assert.equal(events.length, 1);
  const [event] = events as unknown as [Record<string, unknown>];
  assert.equal(rawOf(event), line);
  assert.ok(!Object.keys(event).includes("raw"));
  assert.equal(JSON.stringify(event).includes('"raw"'), false);
  return event;
}

const ITEMS: Record<string, Record<string, unknown>> = {
  agent_message: { id: "item_1", type: "agent_message", text: "hello" },
  reasoning: { id: "item_2", type: "reasoning", text: "thinking" },
  command_execution: {
    id: "item_3",
    type: "command_execution",
    command: "/bin/bash -lc 'echo hi'",
    aggregated_output: "hi\n",
    exit_code: 0,
    status: "completed",
  },
  file_change: {
    id: "item_4",
    type: "file_change",
    changes: [{ path: "/w/a.txt", kind: "add" }],
    status: "completed",
  },
  mcp_tool_call: {
    id: "item_5",
    type: "mcp_tool_call",
    server: "s",
    tool: "t",
    arguments: { a: 1 },
    result: { content: [], structured_content: null },
    status: "completed",
  },
  web_search: { id: "item_6", type: "web_search", query: "codex" },
  todo_list: { id: "item_7", type: "todo_list", items: [{ text: "a", completed: false }] },
  error: { id: "item_0", type: "error", message: "Model metadata not found" },
};

describe("execLineToEvents", () => {
  it("keeps thread.started as it is, with its own thread id", () => {
    const line = { type: "thread.started", thread_id: THREAD };
    assert.deepEqual(single(line), line);
    assert.deepEqual(single(line, "older-id"), line);
    assert.equal(execThreadIdOf(line), THREAD);
    assert.equal(execThreadIdOf({ type: "turn.started" }), undefined);
  });

  it("adds the known thread id to every other event", () => {
    assert.deepEqual(single({ type: "turn.started" }, THREAD), {
      type: "turn.started",
      thread_id: THREAD,
    });
    assert.deepEqual(single({ type: "turn.started" }), { type: "turn.started" });
    assert.deepEqual(single({ type: "error", message: "stream broke" }, THREAD), {
      type: "error",
      message: "stream broke",
      thread_id: THREAD,
    });
  });

  it("defaults cache_write_input_tokens to 0 on turn.completed and marks it completed", () => {
    const usage = {
      input_tokens: 100,
      cached_input_tokens: 4,
      output_tokens: 20,
      reasoning_output_tokens: 1,
    };
    assert.deepEqual(single({ type: "turn.completed", usage }, THREAD), {
      type: "turn.completed",
      thread_id: THREAD,
      usage: { ...usage, cache_write_input_tokens: 0 },
      status: "completed",
    });
    const written = { ...usage, cache_write_input_tokens: 7 };
    const event = single({ type: "turn.completed", usage: written });
    assert.deepEqual(event.usage, written);
    assert.notEqual(event.usage, written, "the line's usage object is not mutated");
    assert.deepEqual(single({ type: "turn.completed" }).usage, {
      input_tokens: 0,
      cached_input_tokens: 0,
      cache_write_input_tokens: 0,
      output_tokens: 0,
      reasoning_output_tokens: 0,
    });
  });

  it("passes turn.failed through with its error", () => {
    const line = { type: "turn.failed", error: { message: "scripted meltdown" } };
    assert.deepEqual(single(line, THREAD), { ...line, thread_id: THREAD });
    assert.deepEqual(single({ type: "turn.failed" }).error, {
      message: "codex exec reported a failed turn",
    });
  });

  it("passes every official item type through unchanged, for started/updated/completed", () => {
    assert.deepEqual([...EXEC_ITEM_TYPES].sort(), Object.keys(ITEMS).sort());
    for (const type of ["item.started", "item.updated", "item.completed"]) {
      for (const item of Object.values(ITEMS)) {
        const event = single({ type, item }, THREAD);
        assert.deepEqual(event, { type, item, thread_id: THREAD });
        assert.notEqual(event.item, item, "the item is copied");
      }
    }
  });

  it("turns an item of an unknown type into a notification", () => {
    const line = { type: "item.completed", item: { id: "item_9", type: "collab_tool_call" } };
    assert.deepEqual(single(line, THREAD), {
      type: "notification",
      thread_id: THREAD,
      method: "item.completed",
      params: line,
    });
    const broken = { type: "item.started", item: null };
    assert.deepEqual(single(broken), {
      type: "notification",
      method: "item.started",
      params: broken,
    });
  });

  it("turns unknown event types and odd lines into notifications, never throwing", () => {
    const line = { type: "turn.diff", diff: "x" };
    assert.deepEqual(single(line, THREAD), {
      type: "notification",
      thread_id: THREAD,
      method: "turn.diff",
      params: line,
    });
    for (const odd of [null, 3, "text", [1, 2], {}, { type: 5 }]) {
      assert.deepEqual(single(odd), { type: "notification", method: "unknown", params: odd });
    }
    const noId = { type: "thread.started" };
    assert.deepEqual(single(noId), {
      type: "notification",
      method: "thread.started",
      params: noId,
    });
    assert.deepEqual(single(noId, THREAD), { type: "thread.started", thread_id: THREAD });
  });
});

describe("interruptedTurnEvent", () => {
  it("is a turn.completed with status interrupted and zero usage", () => {
    const event = interruptedTurnEvent(THREAD);
    assert.deepEqual(event, {
      type: "turn.completed",
      thread_id: THREAD,
      usage: {
        input_tokens: 0,
        cached_input_tokens: 0,
        cache_write_input_tokens: 0,
        output_tokens: 0,
        reasoning_output_tokens: 0,
      },
      status: "interrupted",
    });
    assert.equal(rawOf(event), undefined);
    assert.equal("thread_id" in interruptedTurnEvent(), false);
  });
});
