// A turn as OpenTelemetry sees it: the invoke_agent span, its execute_tool and approval children,
// and the turn's metrics — mapped from the canonical events, in one observer per turn.
import { startApprovalWait } from "../approvals/approval-telemetry.js";
import { everyCaseHandled } from "../events/exhaustive.js";
import type { ExtendedThreadEvent, ExtendedThreadItem, Usage } from "../events/types.js";
import { carrierOf, contextOf, type TraceCarrier } from "../telemetry/carrier.js";
import {
  errorTypeOfError,
  type Telemetry,
  telemetryFailed,
  turnTelemetry,
} from "../telemetry/core.js";
import type { ApiLoader } from "../telemetry/gate.js";
import type { ApprovalWait, ApprovalWaitStart, TurnTraceHooks } from "../telemetry/hooks.js";
import {
  type Attributes,
  type OtelContext,
  type OtelSpan,
  SPAN_KIND,
  STATUS_CODE,
} from "../telemetry/otel-types.js";
import {
  ATTR_APPROVAL_DECIDED_BY,
  ATTR_APPROVAL_KIND,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOKEN_TYPE,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  ATTR_TRANSPORT,
  ATTR_TURN_ID,
  ATTR_TURN_OUTCOME,
  ERROR_TYPE_OTHER,
  EVENT_NOTICE,
  EVENT_STREAM_ERROR,
  GEN_AI_OPERATION_INVOKE_AGENT,
  GEN_AI_PROVIDER_OPENAI,
  GEN_AI_TOKEN_TYPE_INPUT,
  GEN_AI_TOKEN_TYPE_OUTPUT,
} from "../telemetry/semconv.js";
import type { UserInput } from "./options.js";
import { clip, toolEnd, toolStart } from "./tool-spans.js";
import type { TurnObserver } from "./turn-transport.js";

/** How a turn ended, as `codex_harness.turn.outcome` says. */
export type TurnOutcome = "completed" | "interrupted" | "failed" | "cancelled";

/** What a traced turn knows before it starts. */
export interface TraceTurnOptions {
  transport: "app-server" | "exec";
  /** Record the prompt, the answer, tool arguments and results, approval reasons. */
  recordContent: boolean;
  /** The model provider configured for the thread, if any (codex's own word replaces it). */
  providerName?: string | undefined;
  /** The model asked for (the thread's or the turn's `model`), if any. */
  requestModel?: string | undefined;
  /** The thread, when it has an id already. */
  threadId: string | null;
  input: readonly UserInput[];
  /** The remote parent of the turn's span (default: the program's active context). */
  parent?: TraceCarrier | undefined;
}

/**
 * The tracing of a turn when a provider is registered; undefined (and nothing loaded) when
 * OpenTelemetry is off. `load` is for tests.
 */
export function traceTurn(options: TraceTurnOptions, load?: ApiLoader): TracedTurn | undefined {
  const telemetry = turnTelemetry(load);
  return telemetry ? new TracedTurn(telemetry, options) : undefined;
}

/**
 * One turn's spans and metrics. {@link observe} wraps the Thread's observer: the `invoke_agent`
 * span (CLIENT) starts when the stream opens and ends with the turn; each tool item is an
 * `execute_tool` child; each server request's wait an `approval {kind}` child (through the hooks,
 * from the broker). Nothing it does can fail the turn: an error of its own ends its tracing.
 */
export class TracedTurn implements TurnTraceHooks {
  private span: OtelSpan | undefined;
  private context: OtelContext | undefined;
  private started = 0;
  private providerName: string;
  private requestModel: string | undefined;
  private responseModel: string | undefined;
  private readonly tools = new Map<string, OtelSpan>();
  private lastAnswer: string | undefined;
  private done = false;

  constructor(
    private readonly telemetry: Telemetry,
    private readonly options: TraceTurnOptions,
  ) {
    this.providerName = options.providerName ?? GEN_AI_PROVIDER_OPENAI;
    this.requestModel = options.requestModel;
  }

  /** `inner`, with this turn's tracing around it (inner first: a refused turn is not traced). */
  observe(inner: TurnObserver): TurnObserver {
    return {
      onOpen: () => {
        inner.onOpen();
        this.safely(() => this.open());
      },
      onEvent: (event) => {
        inner.onEvent(event);
        this.safely(() => this.take(event));
      },
      onEnd: (error) => {
        inner.onEnd(error);
        this.safely(() => this.endWithout(error));
      },
    };
  }

  threadOpened(info: { model?: string | undefined; modelProvider?: string | undefined }): void {
    this.safely(() => {
      if (info.modelProvider) this.providerName = info.modelProvider;
      if (info.model) {
        this.requestModel ??= info.model;
        this.responseModel ??= info.model;
      }
      if (this.span?.isRecording()) this.span.setAttributes(this.modelAttributes());
    });
  }

  /** The turn span's W3C context (for codex's `trace` field and `TRACEPARENT`), once it started. */
  carrier(): TraceCarrier | undefined {
    if (!this.span || !this.context) return undefined;
    try {
      return carrierOf(this.telemetry.api, this.span, this.context);
    } catch (error) {
      this.broke(error);
      return undefined;
    }
  }

  approvalStarted(request: ApprovalWaitStart): ApprovalWait | undefined {
    const context = this.context;
    if (!context || this.done) return undefined;
    try {
      const wait = startApprovalWait(this.telemetry, context, request, this.options.recordContent);
      return {
        carrier: wait.carrier,
        end: (outcome) => this.safely(() => wait.end(outcome)),
      };
    } catch (error) {
      this.broke(error);
      return undefined;
    }
  }

  private open(): void {
    const { api, tracer } = this.telemetry;
    this.started = performance.now();
    const { options } = this;
    const attributes: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_INVOKE_AGENT,
      ...this.modelAttributes(),
      [ATTR_TRANSPORT]: options.transport,
      ...(options.threadId === null ? {} : { [ATTR_GEN_AI_CONVERSATION_ID]: options.threadId }),
    };
    if (options.recordContent)
      attributes[ATTR_GEN_AI_INPUT_MESSAGES] = inputMessages(options.input);
    // The parent given, else the program's active span (under NodeSDK's context manager), else a root.
    const parent = contextOf(api, options.parent) ?? api.context.active();
    const span = tracer.startSpan(
      GEN_AI_OPERATION_INVOKE_AGENT,
      { kind: SPAN_KIND.CLIENT, attributes },
      parent,
    );
    this.span = span;
    this.context = api.trace.setSpan(parent, span);
  }

  private take(event: ExtendedThreadEvent): void {
    const span = this.span;
    if (!span || this.done) return;
    switch (event.type) {
      case "thread.started":
        if (span.isRecording()) span.setAttribute(ATTR_GEN_AI_CONVERSATION_ID, event.thread_id);
        return;
      case "turn.started":
        if (event.turn_id && span.isRecording()) span.setAttribute(ATTR_TURN_ID, event.turn_id);
        return;
      case "item.started":
        this.startTool(event.item);
        return;
      case "item.completed":
        if (event.item.type === "agent_message") this.lastAnswer = event.item.text;
        else this.endTool(event.item);
        return;
      case "notification":
        if (event.method === "model/rerouted") {
          const { toModel } = (event.params ?? {}) as { toModel?: unknown };
          if (typeof toModel === "string") this.responseModel = toModel;
        }
        return;
      case "error":
        if (span.isRecording()) {
          span.addEvent(EVENT_STREAM_ERROR, {
            will_retry: event.will_retry === true,
            [ATTR_ERROR_TYPE]: errorTypeOf(event.codex_error_info),
          });
        }
        return;
      case "notice":
        if (span.isRecording()) span.addEvent(EVENT_NOTICE, { code: event.code });
        return;
      case "approval.resolved":
        // codex's own reviewer decided: codex never asked us, so no wait was seen. A point span.
        if (event.decided_by === "auto_review") this.reviewed(event.kind, event.item_id);
        return;
      case "turn.completed":
        this.finish(event.status ?? "completed", event.usage);
        return;
      case "turn.failed":
        this.finish(
          "failed",
          undefined,
          errorTypeOf(event.error.codex_error_info),
          event.error.message,
        );
        return;
      case "item.updated":
      case "item.delta":
      case "turn.diff.updated":
      case "turn.plan.updated":
      case "usage.updated":
      case "approval.requested":
        return;
      default:
        everyCaseHandled(event);
    }
  }

  /** The stream ended without codex's end of the turn: aborted, given up, or left by its reader. */
  private endWithout(error: unknown): void {
    if (this.done || !this.span) return;
    if (error === undefined || (error instanceof Error && error.name === "AbortError")) {
      this.finish("cancelled");
      return;
    }
    const code = errorTypeOfError(error);
    this.finish("failed", undefined, code, error instanceof Error ? error.message : undefined);
  }

  private finish(outcome: TurnOutcome, usage?: Usage, errorType?: string, message?: string): void {
    const span = this.span;
    if (!span || this.done) return;
    this.done = true;
    for (const tool of this.tools.values()) tool.end();
    this.tools.clear();
    const seconds = (performance.now() - this.started) / 1000;
    const metric: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_INVOKE_AGENT,
      ...this.modelAttributes(),
      ...(errorType === undefined ? {} : { [ATTR_ERROR_TYPE]: errorType }),
    };
    const { instruments } = this.telemetry;
    instruments.operationDuration.record(seconds, metric);
    if (usage) {
      instruments.tokenUsage.record(usage.input_tokens, {
        ...metric,
        [ATTR_GEN_AI_TOKEN_TYPE]: GEN_AI_TOKEN_TYPE_INPUT,
      });
      instruments.tokenUsage.record(usage.output_tokens, {
        ...metric,
        [ATTR_GEN_AI_TOKEN_TYPE]: GEN_AI_TOKEN_TYPE_OUTPUT,
      });
    }
    instruments.turns.add(1, {
      [ATTR_TURN_OUTCOME]: outcome,
      [ATTR_TRANSPORT]: this.options.transport,
      ...(errorType === undefined ? {} : { [ATTR_ERROR_TYPE]: errorType }),
    });
    if (span.isRecording()) {
      span.setAttributes({ ...metric, [ATTR_TURN_OUTCOME]: outcome });
      if (usage) span.setAttributes(usageAttributes(usage));
      if (this.options.recordContent && this.lastAnswer !== undefined) {
        span.setAttribute(ATTR_GEN_AI_OUTPUT_MESSAGES, outputMessages(this.lastAnswer));
      }
      if (errorType !== undefined) {
        span.setStatus({
          code: STATUS_CODE.ERROR,
          ...(message === undefined ? {} : { message: message.slice(0, 200) }),
        });
      }
    }
    span.end();
  }

  private startTool(item: ExtendedThreadItem, startTime?: number): OtelSpan | undefined {
    const start = toolStart(item);
    if (!start || !this.context || this.tools.has(item.id)) return this.tools.get(item.id);
    const span = this.telemetry.tracer.startSpan(
      start.name,
      {
        kind: SPAN_KIND.INTERNAL,
        attributes: start.attributes,
        ...(startTime === undefined ? {} : { startTime }),
      },
      this.context,
    );
    this.tools.set(item.id, span);
    return span;
  }

  private endTool(item: ExtendedThreadItem): void {
    if (!toolStart(item)) return;
    const end = toolEnd(item, this.options.recordContent);
    // Completed without a start seen (a rejoined turn): it began about its duration ago.
    const span =
      this.tools.get(item.id) ??
      this.startTool(item, end.durationMs === undefined ? undefined : Date.now() - end.durationMs);
    if (!span) return;
    this.tools.delete(item.id);
    if (span.isRecording()) {
      span.setAttributes(end.attributes);
      if (end.errorType !== undefined) span.setStatus({ code: STATUS_CODE.ERROR });
    }
    span.end();
  }

  /** A request codex's reviewer decided: a span of no length under the turn. */
  private reviewed(kind: string, itemId: string | null): void {
    if (!this.context) return;
    const span = this.telemetry.tracer.startSpan(
      `approval ${kind}`,
      {
        kind: SPAN_KIND.INTERNAL,
        attributes: {
          [ATTR_APPROVAL_KIND]: kind,
          [ATTR_APPROVAL_DECIDED_BY]: "auto_review",
          ...(itemId === null ? {} : { [ATTR_GEN_AI_TOOL_CALL_ID]: itemId }),
        },
      },
      this.context,
    );
    span.end();
  }

  private modelAttributes(): Attributes {
    return {
      [ATTR_GEN_AI_PROVIDER_NAME]: this.providerName,
      ...(this.requestModel === undefined
        ? {}
        : { [ATTR_GEN_AI_REQUEST_MODEL]: this.requestModel }),
      ...(this.responseModel === undefined
        ? {}
        : { [ATTR_GEN_AI_RESPONSE_MODEL]: this.responseModel }),
    };
  }

  /** Runs a step of the tracing; an error of its own stops the tracing, never the turn. */
  private safely(step: () => void): void {
    try {
      step();
    } catch (error) {
      this.broke(error);
    }
  }

  private broke(error: unknown): void {
    if (this.done) return;
    this.done = true;
    this.span?.end();
    telemetryFailed("the turn's OpenTelemetry tracing (stopped for this turn)", error);
  }
}

/** `gen_ai.usage.*` of a turn: input counts cached tokens (as codex's does). */
function usageAttributes(usage: Usage): Attributes {
  return {
    [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.input_tokens,
    [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.output_tokens,
    [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: usage.cached_input_tokens,
    [ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS]: usage.cache_write_input_tokens ?? 0,
    [ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS]: usage.reasoning_output_tokens,
  };
}

/** `error.type` from codex's error info: its tag (`usageLimitExceeded`), an object's key, else `_OTHER`. */
export function errorTypeOf(info: unknown): string {
  if (typeof info === "string" && info !== "") return info;
  if (typeof info === "object" && info !== null) {
    const [key] = Object.keys(info);
    if (key !== undefined) return key;
  }
  return ERROR_TYPE_OTHER;
}

/** The turn's input as `gen_ai.input.messages` (the conventions' JSON): its text parts. */
function inputMessages(input: readonly UserInput[]): string {
  const parts = input.flatMap((part) =>
    part.type === "text" ? [{ type: "text", content: part.text }] : [],
  );
  return clip(JSON.stringify([{ role: "user", parts }]));
}

/** The turn's last answer as `gen_ai.output.messages`. */
function outputMessages(text: string): string {
  return clip(
    JSON.stringify([
      { role: "assistant", parts: [{ type: "text", content: text }], finish_reason: "stop" },
    ]),
  );
}
