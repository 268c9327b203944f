// Unit tests of the telemetry gate and the turn's mapping to spans, with a recording fake tracer
// (this file never loads @opentelemetry/api).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { answeredBy, decisionLabel } from "../../src/approvals/approval-telemetry.js";
import { CodexHarnessError } from "../../src/errors.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import { contextOf, isTraceCarrier } from "../../src/telemetry/carrier.js";
import { otelApi, providerRegistered } from "../../src/telemetry/gate.js";
import type { Attributes, OtelApi, OtelContext, OtelSpan } from "../../src/telemetry/otel-types.js";
import { clip, MAX_CONTENT_CHARS, toolEnd, toolStart } from "../../src/turns/tool-spans.js";
import { errorTypeOf, traceTurn } from "../../src/turns/turn-telemetry.js";
import type { TurnObserver } from "../../src/turns/turn-transport.js";
import { repoRoot } from "../support/paths.js";

const SLOT = Symbol.for("opentelemetry.js.api.1");
const slots = globalThis as unknown as Record<symbol, unknown>;

afterEach(() => {
  delete slots[SLOT];
});

/** A span the fake tracer made: its name, options, parent and what was set on it. */
interface FakeSpan extends OtelSpan {
  name: string;
  kind: number | undefined;
  parent: FakeSpan | undefined;
  attributes: Attributes;
  events: { name: string; attributes?: Attributes }[];
  status: { code: number; message?: string } | undefined;
  ended: boolean;
}

/** A structural api whose tracer records spans and whose instruments record measurements. */
function fakeApi() {
  const spans: FakeSpan[] = [];
  const records: { name: string; value: number; attributes?: Attributes }[] = [];
  const PARENT = Symbol("parent");
  const context = (span?: FakeSpan): OtelContext => ({
    getValue: (key) => (key === PARENT ? span : undefined),
  });
  const api: OtelApi = {
    trace: {
      getTracerProvider: () => ({
        getTracer: () => ({
          startSpan(name, options, ctx) {
            const span: FakeSpan = {
              name,
              kind: options?.kind,
              parent: ctx?.getValue(PARENT) as FakeSpan | undefined,
              attributes: { ...options?.attributes },
              events: [],
              status: undefined,
              ended: false,
              setAttribute(key, value) {
                span.attributes[key] = value;
              },
              setAttributes(attributes) {
                Object.assign(span.attributes, attributes);
              },
              addEvent(eventName, attributes) {
                span.events.push({ name: eventName, ...(attributes ? { attributes } : {}) });
              },
              setStatus(status) {
                span.status = status;
              },
              end() {
                span.ended = true;
              },
              isRecording: () => !span.ended,
              spanContext: () => ({
                traceId: "a".repeat(32),
                spanId: spans.indexOf(span).toString(16).padStart(16, "1"),
                traceFlags: 1,
              }),
            };
            spans.push(span);
            return span;
          },
        }),
      }),
      setSpan: (_ctx, span) => context(span as FakeSpan),
      getSpanContext: (ctx) => (ctx.getValue(PARENT) as FakeSpan | undefined)?.spanContext(),
      setSpanContext: (_ctx, remote) => context({ remote } as unknown as FakeSpan),
    },
    metrics: {
      getMeter: () => ({
        createHistogram: (name) => ({
          record: (value, attributes) => records.push({ name, value, attributes }),
        }),
        createCounter: (name) => ({
          add: (value, attributes) => records.push({ name, value, attributes }),
        }),
        createObservableGauge: () => ({ addCallback() {}, removeCallback() {} }),
        addBatchObservableCallback() {},
        removeBatchObservableCallback() {},
      }),
    },
    context: { active: () => context() },
    // No propagator registered (as with a bare BasicTracerProvider): nothing written or read.
    propagation: { inject() {}, extract: (ctx) => ctx },
    ROOT_CONTEXT: context(),
  };
  return { api, spans, records };
}

const NOOP: TurnObserver = { onOpen() {}, onEvent() {}, onEnd() {} };

function traced(api: OtelApi, recordContent = false) {
  slots[SLOT] = { version: "1.9.1", trace: {} };
  const turn = traceTurn(
    {
      transport: "app-server",
      recordContent,
      threadId: null,
      input: [{ type: "text", text: "PROMPT" }],
    },
    () => api,
  );
  assert.ok(turn);
  return { turn, observer: turn.observe(NOOP) };
}

const usage = {
  input_tokens: 10,
  cached_input_tokens: 4,
  cache_write_input_tokens: 0,
  output_tokens: 3,
  reasoning_output_tokens: 1,
};

describe("the telemetry gate", () => {
  it("with no provider registered, nothing is loaded", () => {
    let loads = 0;
    assert.equal(providerRegistered(), false);
    assert.equal(
      otelApi(() => {
        loads++;
        return {};
      }),
      undefined,
    );
    slots[SLOT] = { version: "1.9.1", diag: {} };
    assert.equal(providerRegistered(), false);
    assert.equal(loads, 0);
    const cached = Object.keys(createRequire(import.meta.url).cache);
    assert.deepEqual(
      cached.filter((file) => file.includes("@opentelemetry")),
      [],
    );
  });

  it("with a provider, the api is loaded; one that cannot be loaded (or is not the api) is off", () => {
    slots[SLOT] = { version: "1.9.1", metrics: {} };
    const { api } = fakeApi();
    assert.equal(
      otelApi(() => api),
      api,
    );
    assert.equal(
      otelApi(() => {
        throw Object.assign(new Error("Cannot find module"), { code: "MODULE_NOT_FOUND" });
      }),
      undefined,
    );
    assert.equal(
      otelApi(() => ({ trace: {} })),
      undefined,
    );
  });
});

describe("the package's declarations", () => {
  it("import no @opentelemetry package (programs without the api still type-check)", () => {
    const src = path.join(repoRoot, "build", "src");
    const naming = readdirSync(src, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".d.ts"))
      .filter((file) =>
        /(?:from|import\()\s*["']@opentelemetry\//.test(readFileSync(path.join(src, file), "utf8")),
      );
    assert.deepEqual(naming, []);
  });
});

describe("a traced turn", () => {
  it("maps a turn's events to invoke_agent, execute_tool and approval spans and its metrics", () => {
    const { api, spans, records } = fakeApi();
    const { turn, observer } = traced(api);
    observer.onOpen();
    turn.threadOpened({ model: "m-1", modelProvider: "scripted" });
    const events: ExtendedThreadEvent[] = [
      { type: "thread.started", thread_id: "th-1" },
      { type: "turn.started", thread_id: "th-1", turn_id: "tu-1" },
      {
        type: "item.started",
        item: {
          id: "it-1",
          type: "command_execution",
          command: "echo SECRET",
          aggregated_output: "",
          status: "in_progress",
        },
      },
      { type: "item.delta", item_id: "it-1", stream: "command_output", delta: "SECRET" },
      {
        type: "item.completed",
        item: {
          id: "it-1",
          type: "command_execution",
          command: "echo SECRET",
          aggregated_output: "SECRET\n",
          exit_code: 3,
          status: "failed",
          duration_ms: 12,
        },
      },
      { type: "item.completed", item: { id: "m", type: "agent_message", text: "ANSWER" } },
      { type: "turn.completed", usage, status: "completed" },
    ];
    const wait = turn.approvalStarted({ kind: "commandExecution", requestId: 7, itemId: "it-1" });
    wait?.end({
      decision: "decline",
      decidedBy: "timeout",
      reason: "nobody answered within 10 min",
    });
    for (const event of events) observer.onEvent(event);
    observer.onEnd();

    const [agent, approval, tool] = spans;
    assert.equal(spans.length, 3);
    assert.equal(agent?.name, "invoke_agent");
    assert.equal(agent?.kind, 2);
    assert.equal(agent?.attributes["gen_ai.provider.name"], "scripted");
    assert.equal(agent?.attributes["gen_ai.response.model"], "m-1");
    assert.equal(agent?.attributes["gen_ai.conversation.id"], "th-1");
    assert.equal(agent?.attributes["codex_harness.turn.id"], "tu-1");
    assert.equal(agent?.attributes["gen_ai.usage.cache_read.input_tokens"], 4);
    assert.equal(agent?.attributes["codex_harness.turn.outcome"], "completed");
    assert.equal(agent?.status, undefined);
    assert.ok(agent?.ended);

    assert.equal(approval?.name, "approval commandExecution");
    assert.equal(approval?.parent, agent);
    assert.equal(approval?.attributes["codex_harness.approval.decided_by"], "timeout");
    assert.equal(approval?.attributes["codex_harness.approval.reason"], undefined);

    assert.equal(tool?.name, "execute_tool exec_command");
    assert.equal(tool?.parent, agent);
    assert.equal(tool?.attributes["process.exit.code"], 3);
    assert.equal(tool?.attributes["error.type"], "tool_failed");
    assert.equal(tool?.status?.code, 2);

    const text = spans.flatMap((span) => Object.values(span.attributes).map(String)).join(" ");
    assert.ok(!/SECRET|ANSWER|PROMPT|nobody answered/.test(text), text);
    assert.deepEqual(
      records.map((record) => [record.name, record.attributes?.["gen_ai.token.type"]]),
      [
        ["codex_harness.approval.wait.duration", undefined],
        ["gen_ai.client.operation.duration", undefined],
        ["gen_ai.client.token.usage", "input"],
        ["gen_ai.client.token.usage", "output"],
        ["codex_harness.turns", undefined],
      ],
    );
  });

  it("records content when asked: prompt, answer, command and output, reason", () => {
    const { api, spans } = fakeApi();
    const { turn, observer } = traced(api, true);
    observer.onOpen();
    const wait = turn.approvalStarted({ kind: "commandExecution", requestId: 1, itemId: "i" });
    wait?.end({
      decision: "accept",
      decidedBy: "handler",
      reason: "approved by you at the prompt",
    });
    observer.onEvent({
      type: "item.completed",
      item: {
        id: "i",
        type: "command_execution",
        command: "echo SECRET",
        aggregated_output: "OUT",
        exit_code: 0,
        status: "completed",
      },
    });
    observer.onEvent({
      type: "item.completed",
      item: { id: "m", type: "agent_message", text: "ANSWER" },
    });
    observer.onEvent({ type: "turn.completed", usage });
    const [agent, approval, tool] = spans;
    assert.match(String(agent?.attributes["gen_ai.input.messages"]), /PROMPT/);
    assert.match(String(agent?.attributes["gen_ai.output.messages"]), /ANSWER/);
    assert.match(String(tool?.attributes["gen_ai.tool.call.arguments"]), /echo SECRET/);
    assert.equal(tool?.attributes["gen_ai.tool.call.result"], "OUT");
    assert.equal(approval?.attributes["codex_harness.approval.answered_by"], "you");
    assert.equal(approval?.attributes["codex_harness.approval.surface"], "terminal");
    assert.equal(
      approval?.attributes["codex_harness.approval.reason"],
      "approved by you at the prompt",
    );
  });

  it("a failed turn has error.type and ERROR; a stream that ends without an end is cancelled", () => {
    const failed = fakeApi();
    const one = traced(failed.api);
    one.observer.onOpen();
    one.observer.onEvent({
      type: "turn.failed",
      error: { message: "x".repeat(500), codex_error_info: "usageLimitExceeded" },
    });
    assert.equal(failed.spans[0]?.attributes["error.type"], "usageLimitExceeded");
    assert.equal(failed.spans[0]?.status?.code, 2);
    assert.equal(failed.spans[0]?.status?.message?.length, 200);

    const left = fakeApi();
    const two = traced(left.api);
    two.observer.onOpen();
    two.observer.onEnd(Object.assign(new Error("aborted"), { name: "AbortError" }));
    assert.equal(left.spans[0]?.attributes["codex_harness.turn.outcome"], "cancelled");
    assert.equal(left.spans[0]?.status, undefined);

    const lost = fakeApi();
    const three = traced(lost.api);
    three.observer.onOpen();
    three.observer.onEnd(new CodexHarnessError("turn_idle_timeout", "quiet"));
    assert.equal(lost.spans[0]?.attributes["error.type"], "turn_idle_timeout");
    assert.equal(lost.spans[0]?.attributes["codex_harness.turn.outcome"], "failed");
  });

  it("a turn the thread refuses (busy) is not traced", () => {
    const { api, spans } = fakeApi();
    slots[SLOT] = { version: "1.9.1", trace: {} };
    const turn = traceTurn(
      { transport: "exec", recordContent: false, threadId: null, input: [] },
      () => api,
    );
    const observer = turn?.observe({
      onOpen() {
        throw new CodexHarnessError("thread_busy", "busy");
      },
      onEvent() {},
      onEnd() {},
    });
    assert.throws(() => observer?.onOpen(), /busy/);
    assert.equal(spans.length, 0);
  });
});

describe("the names and labels", () => {
  it("labels decisions without their values", () => {
    assert.equal(decisionLabel("acceptForSession"), "acceptForSession");
    assert.equal(
      decisionLabel({ acceptWithExecpolicyAmendment: ["rm", "-rf"] }),
      "acceptWithExecpolicyAmendment",
    );
    assert.equal(decisionLabel({ answers: { q: { answers: ["secret"] } } }), "answers");
    assert.equal(decisionLabel(42), "other");
  });

  it("reads who answered from the bridge's and the prompt's words only", () => {
    assert.deepEqual(answeredBy("approved by Alice, Bob in the channels runtime"), {
      by: "Alice, Bob",
      surface: "channels",
    });
    assert.deepEqual(answeredBy("declined (turn interrupted) by carol in the channels runtime"), {
      by: "carol",
      surface: "channels",
    });
    assert.equal(answeredBy('denied by [deny] exec "git push" in rules.toml'), undefined);
    assert.equal(answeredBy(undefined), undefined);
  });

  it("error types from codex's error info", () => {
    assert.equal(errorTypeOf("usageLimitExceeded"), "usageLimitExceeded");
    assert.equal(
      errorTypeOf({ httpConnectionFailed: { httpStatusCode: 502 } }),
      "httpConnectionFailed",
    );
    assert.equal(errorTypeOf(null), "_OTHER");
  });

  it("tool spans: names and types; content only when asked, clipped", () => {
    const mcp = {
      id: "c",
      type: "mcp_tool_call" as const,
      server: "notes",
      tool: "add",
      arguments: { text: "SECRET" },
      status: "completed" as const,
    };
    assert.equal(toolStart(mcp)?.name, "execute_tool add");
    assert.equal(toolStart(mcp)?.attributes["codex_harness.mcp.server"], "notes");
    assert.equal(toolStart({ id: "r", type: "reasoning", text: "" }), undefined);
    const dynamic = {
      id: "d",
      type: "dynamic_tool_call" as const,
      tool: "t",
      arguments: {},
      status: "completed" as const,
    };
    assert.equal(toolStart(dynamic)?.attributes["gen_ai.tool.type"], "function");
    assert.deepEqual(toolEnd(mcp, false).attributes, {});
    assert.match(String(toolEnd(mcp, true).attributes["gen_ai.tool.call.arguments"]), /SECRET/);
    const declined = toolEnd(
      { id: "f", type: "file_change", changes: [], status: "declined" },
      false,
    );
    assert.deepEqual(declined.attributes, { "codex_harness.tool.status": "declined" });
    assert.equal(declined.errorType, undefined);
    assert.equal(clip("x".repeat(MAX_CONTENT_CHARS + 5)).length, MAX_CONTENT_CHARS + 1);
  });
});

describe("trace carriers", () => {
  it("a turn's span gives its carrier; a carrier given is the turn span's parent", () => {
    const { api, spans } = fakeApi();
    slots[SLOT] = { version: "1.9.1", trace: {} };
    const parent = `00-${"b".repeat(32)}-${"c".repeat(16)}-01`;
    const turn = traceTurn(
      {
        transport: "app-server",
        recordContent: false,
        threadId: null,
        input: [],
        parent: { traceparent: parent },
      },
      () => api,
    );
    assert.ok(turn);
    assert.equal(turn.carrier(), undefined, "no carrier before the span starts");
    turn.observe(NOOP).onOpen();
    const [span] = spans;
    assert.deepEqual(
      (span?.parent as unknown as { remote: unknown } | undefined)?.remote,
      { traceId: "b".repeat(32), spanId: "c".repeat(16), traceFlags: 1, isRemote: true },
      "the remote parent is the carrier's span",
    );
    assert.deepEqual(turn.carrier(), { traceparent: `00-${"a".repeat(32)}-1111111111111110-01` });
  });

  it("only well-formed traceparents are carriers; a malformed parent falls back to the active one", () => {
    const ok = `00-${"1a".repeat(16)}-${"2b".repeat(8)}-00`;
    assert.ok(isTraceCarrier({ traceparent: ok }));
    assert.ok(isTraceCarrier({ traceparent: ok, tracestate: "a=b" }));
    for (const bad of [
      null,
      "x",
      {},
      { traceparent: ok.toUpperCase() },
      { traceparent: `00-${"0".repeat(32)}-${"2".repeat(16)}-00` },
      { traceparent: `00-${"1".repeat(32)}-${"0".repeat(16)}-00` },
      { traceparent: `01-${"1".repeat(32)}-${"2".repeat(16)}-00` },
      { traceparent: ok, tracestate: 3 },
    ]) {
      assert.equal(isTraceCarrier(bad), false, JSON.stringify(bad));
    }
    const { api } = fakeApi();
    assert.equal(contextOf(api, { traceparent: "00-nope" }), undefined);
    assert.equal(contextOf(api, undefined), undefined);
  });
});
