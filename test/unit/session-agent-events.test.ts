// Unit tests of `toAgentEvents` (unified events -> AgentEvents) and `AgentEventEmitter`.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type AgentEvent,
  type AgentEventBody,
  AgentEventEmitter,
  toAgentEvents,
} from "../../src/session/agent-events.js";
import type { UnifiedSessionEvent } from "../../src/session/unified-types.js";

const IDS = { externalSessionId: "ext-session", externalRunId: "run-1" };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("toAgentEvents", () => {
  it("maps a message_update with text to a message_delta", () => {
    const wire = { method: "item/agentMessage/delta" };
    assert.deepEqual(
      toAgentEvents({ type: "message_update", messageId: "m", textDelta: "Hel", payload: wire }),
      [{ type: "message_delta", role: "assistant", delta: "Hel", payload: wire }],
    );
  });

  it("maps an empty or missing delta to nothing", () => {
    assert.deepEqual(toAgentEvents({ type: "message_update", messageId: "m", textDelta: "" }), []);
    assert.deepEqual(toAgentEvents({ type: "message_update", messageId: "m" }), []);
  });

  it("maps message_end to a message with the text of a string", () => {
    const wire = { method: "item/completed" };
    assert.deepEqual(
      toAgentEvents({
        type: "message_end",
        messageId: "m",
        message: { role: "assistant", content: "All done." },
        payload: wire,
      }),
      [{ type: "message", role: "assistant", content: "All done.", payload: wire }],
    );
  });

  it("maps message_end with content blocks to the concatenated text blocks", () => {
    assert.deepEqual(
      toAgentEvents({
        type: "message_end",
        message: {
          role: "assistant",
          content: [
            { type: "text", text: "Hello, " },
            { type: "image", data: "AAAA", mimeType: "image/png" },
            { type: "text", text: "world." },
          ],
        },
      }),
      [{ type: "message", role: "assistant", content: "Hello, world.", payload: undefined }],
    );
  });

  it("maps an empty message_end to nothing", () => {
    assert.deepEqual(toAgentEvents({ type: "message_end", messageId: "m" }), []);
    assert.deepEqual(
      toAgentEvents({ type: "message_end", message: { role: "assistant", content: "" } }),
      [],
    );
    assert.deepEqual(
      toAgentEvents({
        type: "message_end",
        message: {
          role: "assistant",
          content: [{ type: "image", data: "x", mimeType: "image/png" }],
        },
      }),
      [],
    );
  });

  it("maps tool starts and ends to tool_call and tool_result with a boolean isError", () => {
    const wire = { method: "item/started" };
    assert.deepEqual(
      toAgentEvents({
        type: "tool_execution_start",
        toolUseId: "cmd_1",
        toolName: "command_execution",
        input: { command: "ls" },
        payload: wire,
      }),
      [
        {
          type: "tool_call",
          toolUseId: "cmd_1",
          toolName: "command_execution",
          input: { command: "ls" },
          payload: wire,
        },
      ],
    );
    const result = { content: [{ type: "text" as const, text: "a\nb\n" }] };
    assert.deepEqual(
      toAgentEvents({
        type: "tool_execution_end",
        toolUseId: "cmd_1",
        toolName: "command_execution",
        result,
      }),
      [
        {
          type: "tool_result",
          toolUseId: "cmd_1",
          toolName: "command_execution",
          output: result,
          isError: false,
          payload: undefined,
        },
      ],
    );
    const [failed] = toAgentEvents({
      type: "tool_execution_end",
      toolUseId: "cmd_2",
      toolName: "command_execution",
      result,
      isError: true,
    });
    assert.equal(failed?.type === "tool_result" && failed.isError, true);
  });

  it("maps a notice to a log with its level and fields.code", () => {
    for (const level of ["info", "warn", "error"] as const) {
      const wire = { method: "configWarning" };
      assert.deepEqual(
        toAgentEvents({
          type: "notice",
          level,
          code: "config_warning",
          message: "unknown key",
          payload: wire,
        }),
        [
          {
            type: "log",
            level,
            message: "unknown key",
            fields: { code: "config_warning" },
            payload: wire,
          },
        ],
      );
    }
  });

  it("maps turn, agent and other events to nothing", () => {
    const events: UnifiedSessionEvent[] = [
      { type: "agent_start", sessionId: "s", sdkSessionId: "t" },
      { type: "agent_end", reason: "stopped" },
      { type: "turn_start", turnId: "turn-1" },
      { type: "turn_end", turnId: "turn-1", payload: { status: "completed" } },
      { type: "message_start", messageId: "m", message: { role: "assistant", content: "" } },
      { type: "tool_execution_update", toolUseId: "cmd_1", partialOutput: "x" },
      { type: "sdk_session_id", sdkSessionId: "t" },
    ];
    for (const event of events) assert.deepEqual(toAgentEvents(event), [], event.type);
  });
});

const log = (message: string): AgentEventBody => ({ type: "log", level: "info", message });

describe("AgentEventEmitter", () => {
  it("numbers events 1, 2, 3 and stamps them with ISO times and the ids", async () => {
    const seen: AgentEvent[] = [];
    const emitter = new AgentEventEmitter((event) => {
      seen.push(event);
    }, IDS);
    const before = Date.now();
    await emitter.emit({ type: "state", state: "running" });
    await emitter.emit(log("one"));
    await emitter.emit({ type: "complete", result: { success: true, finalOutput: "done" } });
    const afterwards = Date.now();
    assert.deepEqual(
      seen.map((event) => event.seq),
      [1, 2, 3],
    );
    for (const event of seen) {
      assert.match(event.ts, ISO);
      const time = Date.parse(event.ts);
      assert.ok(time >= before - 1 && time <= afterwards + 1, event.ts);
      assert.equal(event.externalSessionId, "ext-session");
      assert.equal(event.externalRunId, "run-1");
      assert.equal("harnessSessionId" in event, false);
    }
    assert.deepEqual(seen[2], {
      type: "complete",
      result: { success: true, finalOutput: "done" },
      ts: seen[2]?.ts,
      seq: 3,
      externalSessionId: "ext-session",
      externalRunId: "run-1",
    });
  });

  it("sets harnessSessionId on every event once it is assigned", async () => {
    const seen: AgentEvent[] = [];
    const emitter = new AgentEventEmitter((event) => {
      seen.push(event);
    }, IDS);
    await emitter.emit(log("before"));
    emitter.harnessSessionId = "thread-9";
    await emitter.emit(log("after"));
    await emitter.emit(log("later"));
    assert.deepEqual(
      seen.map((event) => event.harnessSessionId),
      [undefined, "thread-9", "thread-9"],
    );
    assert.equal("harnessSessionId" in (seen[0] as AgentEvent), false);

    const known: AgentEvent[] = [];
    const given = new AgentEventEmitter(
      (event) => {
        known.push(event);
      },
      IDS,
      "thread-1",
    );
    await given.emit(log("x"));
    assert.equal(known[0]?.harnessSessionId, "thread-1");
  });

  it("delivers async callbacks strictly in order, even when an earlier one is slow", async () => {
    const trace: string[] = [];
    const emitter = new AgentEventEmitter(async (event) => {
      const message = event.type === "log" ? event.message : event.type;
      trace.push(`start ${event.seq} ${message}`);
      if (event.seq === 1) await sleep(40);
      else if (event.seq === 2) await sleep(5);
      trace.push(`end ${event.seq}`);
    }, IDS);
    const first = emitter.emit(log("slow"));
    const second = emitter.emit(log("medium"));
    const third = emitter.emit(log("fast"));
    let secondDone = false;
    void second.then(() => {
      secondDone = true;
    });
    await first;
    assert.equal(secondDone, false, "the second event is not delivered before the first ends");
    await third;
    assert.equal(secondDone, true);
    assert.deepEqual(trace, [
      "start 1 slow",
      "end 1",
      "start 2 medium",
      "end 2",
      "start 3 fast",
      "end 3",
    ]);
  });

  it("records a throwing callback in failures and still delivers later events", async () => {
    const delivered: number[] = [];
    const boom = new Error("callback failed");
    const emitter = new AgentEventEmitter(async (event) => {
      delivered.push(event.seq);
      if (event.seq === 1) throw boom;
      if (event.seq === 2) await Promise.reject(new Error("async failure"));
    }, IDS);
    await emitter.emit(log("a"));
    await emitter.emit(log("b"));
    await emitter.emit(log("c"));
    assert.deepEqual(delivered, [1, 2, 3]);
    assert.equal(emitter.failures.length, 2);
    assert.equal(emitter.failures[0], boom);
    assert.match((emitter.failures[1] as Error).message, /async failure/);
  });

  it("records a synchronously throwing callback too", async () => {
    const delivered: number[] = [];
    const emitter = new AgentEventEmitter((event) => {
      delivered.push(event.seq);
      if (event.seq === 1) throw new Error("sync failure");
    }, IDS);
    await assert.doesNotReject(emitter.emit(log("a")));
    await emitter.emit(log("b"));
    assert.deepEqual(delivered, [1, 2]);
    assert.equal(emitter.failures.length, 1);
  });

  it("idle() resolves once every queued event was delivered", async () => {
    const delivered: number[] = [];
    const emitter = new AgentEventEmitter(async (event) => {
      await sleep(5);
      delivered.push(event.seq);
    }, IDS);
    await emitter.idle();
    void emitter.emit(log("a"));
    void emitter.emit(log("b"));
    void emitter.emit(log("c"));
    assert.deepEqual(delivered, []);
    await emitter.idle();
    assert.deepEqual(delivered, [1, 2, 3]);
  });
});
