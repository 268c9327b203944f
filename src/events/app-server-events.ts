// Maps the app-server notifications of one turn to extended events (pure; one mapper per turn).
import type { ItemGuardianApprovalReviewCompletedNotification } from "../protocol/generated/ts/v2/ItemGuardianApprovalReviewCompletedNotification.js";
import type { ThreadTokenUsage } from "../protocol/generated/ts/v2/ThreadTokenUsage.js";
import type { TokenUsageBreakdown } from "../protocol/generated/ts/v2/TokenUsageBreakdown.js";
import type { RpcNotification } from "../protocol/messages.js";
import { autoReviewResolved } from "./auto-review.js";
import { DELTA_STREAM_OF_METHOD } from "./delta-streams.js";
import { snakeStatus, toCanonicalItem } from "./items.js";
import { type WithRaw, withRaw } from "./raw.js";
import { zeroUsage } from "./turn-events.js";
import type {
  DeltaStream,
  ExtendedFileUpdateChange,
  ExtendedThreadError,
  ExtendedThreadEvent,
  ExtendedTurnCompletedEvent,
  ItemDeltaEvent,
  PlanStep,
  TodoListItem,
  Usage,
} from "./types.js";

type Params = Record<string, unknown>;

/** What the turn ended as, for `run()`. */
export interface TurnOutcome {
  status: "completed" | "interrupted" | "failed";
  error: ExtendedThreadError | null;
  usage: Usage;
}

/**
 * Turns the notifications of one turn into extended events and remembers what `run()` reports:
 * the latest diff and plan, and the turn's usage. Unknown methods, item types and fields never
 * throw: they come out as `notification` events.
 */
export class AppServerTurnMapper {
  /** The turn's aggregated diff, once codex sent one. */
  diff: string | null = null;
  /** The turn's latest plan, once codex sent one. */
  plan: { explanation: string | null; plan: PlanStep[] } | null = null;
  /** Set when `turn/completed` arrived. */
  outcome: TurnOutcome | undefined;
  /** The files of each file change item seen so far (an approval request names only the item). */
  readonly fileChanges = new Map<string, ExtendedFileUpdateChange[]>();
  private firstUsage: { total: TokenUsageBreakdown; last: TokenUsageBreakdown } | undefined;
  private latestUsage: { total: TokenUsageBreakdown; last: TokenUsageBreakdown } | undefined;
  private todoList: TodoListItem | undefined;

  constructor(
    readonly threadId: string,
    public turnId: string | undefined = undefined,
  ) {}

  /** The extended events for one notification of this turn. */
  map(notification: RpcNotification): WithRaw<ExtendedThreadEvent>[] {
    const params = (notification.params ?? {}) as Params;
    const stream = DELTA_STREAM_OF_METHOD.get(notification.method);
    // Deltas come by the hundred thousand: built directly, and `rawOf()` rebuilds their message.
    if (stream !== undefined) return [this.delta(stream, params)];
    const scope = this.scope();
    const event = (value: ExtendedThreadEvent): WithRaw<ExtendedThreadEvent> =>
      withRaw(value, notification);
    switch (notification.method) {
      case "turn/started":
        return [event({ type: "turn.started", ...scope })];
      case "item/started":
      case "item/completed": {
        const item = toCanonicalItem((params.item ?? {}) as Params);
        if (!item) break;
        if (item.type === "file_change") this.fileChanges.set(item.id, item.changes);
        const type = notification.method === "item/started" ? "item.started" : "item.completed";
        return [event({ type, ...scope, item })];
      }
      case "turn/diff/updated":
        this.diff = typeof params.diff === "string" ? params.diff : "";
        return [event({ type: "turn.diff.updated", ...scope, diff: this.diff })];
      case "turn/plan/updated":
        return this.planUpdated(params, event);
      case "thread/tokenUsage/updated":
        return this.usageUpdated(params, event);
      case "item/autoApprovalReview/completed": {
        const resolved = autoReviewResolved(
          params as unknown as ItemGuardianApprovalReviewCompletedNotification,
          scope,
        );
        if (resolved) return [event(resolved)];
        break;
      }
      case "error": {
        const error = (params.error ?? {}) as Params;
        return [
          event({
            type: "error",
            ...scope,
            message: typeof error.message === "string" ? error.message : "codex reported an error",
            will_retry: params.willRetry === true,
            codex_error_info:
              (error.codexErrorInfo as ExtendedThreadError["codex_error_info"]) ?? null,
          }),
        ];
      }
      case "turn/completed":
        // A malformed end must not end (or change) the turn: reported, and the turn goes on.
        if (!isTurnObject(params.turn)) {
          return [
            event({
              type: "notice",
              ...scope,
              code: "protocol_error",
              message: `Ignored a turn/completed whose turn is not an object with an id and a status (got ${describe(params.turn)}); the turn goes on.`,
            }),
          ];
        }
        return this.completed(params, event);
    }
    return [
      event({
        type: "notification",
        ...scope,
        method: notification.method,
        params: notification.params,
      }),
    ];
  }

  private delta(stream: DeltaStream, params: Params): ItemDeltaEvent {
    const item_id = String(params.itemId ?? "");
    const delta = typeof params.delta === "string" ? params.delta : "";
    // One literal per shape (no property added later): deltas stay cheap for the engine.
    const event: ItemDeltaEvent =
      this.turnId === undefined
        ? { type: "item.delta", thread_id: this.threadId, item_id, stream, delta }
        : {
            type: "item.delta",
            thread_id: this.threadId,
            turn_id: this.turnId,
            item_id,
            stream,
            delta,
          };
    if (typeof params.summaryIndex === "number") event.summary_index = params.summaryIndex;
    if (typeof params.contentIndex === "number") event.content_index = params.contentIndex;
    return event;
  }

  private scope(): { thread_id: string; turn_id?: string } {
    return this.turnId === undefined
      ? { thread_id: this.threadId }
      : { thread_id: this.threadId, turn_id: this.turnId };
  }

  private planUpdated(
    params: Params,
    event: (value: ExtendedThreadEvent) => WithRaw<ExtendedThreadEvent>,
  ): WithRaw<ExtendedThreadEvent>[] {
    const steps = Array.isArray(params.plan) ? (params.plan as Params[]) : [];
    const plan = steps.map((step) => ({
      step: typeof step.step === "string" ? step.step : "",
      status: snakeStatus<PlanStep["status"]>(
        typeof step.status === "string" ? step.status : "pending",
      ),
    }));
    this.plan = { explanation: (params.explanation as string | null) ?? null, plan };
    // Like `codex exec`, the plan is also a `todo_list` item: started, updated, completed at turn end.
    const first = this.todoList === undefined;
    this.todoList = {
      id: `${this.turnId ?? this.threadId}-todo-list`,
      type: "todo_list",
      items: plan.map((step) => ({ text: step.step, completed: step.status === "completed" })),
    };
    return [
      event({ type: "turn.plan.updated", ...this.scope(), ...this.plan }),
      event({
        type: first ? "item.started" : "item.updated",
        ...this.scope(),
        item: this.todoList,
      }),
    ];
  }

  private usageUpdated(
    params: Params,
    event: (value: ExtendedThreadEvent) => WithRaw<ExtendedThreadEvent>,
  ): WithRaw<ExtendedThreadEvent>[] {
    const usage = params.tokenUsage as Partial<ThreadTokenUsage> | undefined;
    if (!usage?.total || !usage.last) return [];
    const snapshot = { total: usage.total, last: usage.last };
    this.firstUsage ??= snapshot;
    this.latestUsage = snapshot;
    const window = usage.modelContextWindow;
    return [
      event({
        type: "usage.updated",
        ...this.scope(),
        total: toUsage(usage.total),
        last: toUsage(usage.last),
        model_context_window: typeof window === "number" ? window : null,
      }),
    ];
  }

  /** Tokens of this turn: the thread total now, minus the total before the turn's first request. */
  private turnUsage(): Usage {
    if (!this.firstUsage || !this.latestUsage) return zeroUsage();
    const before = subtract(toUsage(this.firstUsage.total), toUsage(this.firstUsage.last));
    return subtract(toUsage(this.latestUsage.total), before);
  }

  private completed(
    params: Params,
    event: (value: ExtendedThreadEvent) => WithRaw<ExtendedThreadEvent>,
  ): WithRaw<ExtendedThreadEvent>[] {
    const turn = (params.turn ?? {}) as Params;
    const status =
      turn.status === "failed" || turn.status === "interrupted" ? turn.status : "completed";
    const usage = this.turnUsage();
    // codex's timing of the turn, where it gave one.
    const timing = {
      ...(typeof turn.startedAt === "number" ? { started_at: turn.startedAt } : {}),
      ...(typeof turn.completedAt === "number" ? { completed_at: turn.completedAt } : {}),
      ...(typeof turn.durationMs === "number" ? { duration_ms: turn.durationMs } : {}),
    };
    const events: WithRaw<ExtendedThreadEvent>[] = [];
    if (this.todoList)
      events.push(event({ type: "item.completed", ...this.scope(), item: this.todoList }));
    if (status === "failed") {
      const wire = (turn.error ?? {}) as Params;
      const error: ExtendedThreadError = {
        message: typeof wire.message === "string" ? wire.message : "The turn failed.",
        codex_error_info: (wire.codexErrorInfo as ExtendedThreadError["codex_error_info"]) ?? null,
        additional_details: (wire.additionalDetails as string | null) ?? null,
      };
      this.outcome = { status, error, usage };
      events.push(event({ type: "turn.failed", ...this.scope(), error, ...timing }));
      return events;
    }
    this.outcome = { status, error: null, usage };
    const completed: ExtendedTurnCompletedEvent = {
      type: "turn.completed",
      ...this.scope(),
      usage,
      status,
      ...timing,
    };
    if (this.latestUsage) {
      completed.total_usage = toUsage(this.latestUsage.total);
      completed.last_usage = toUsage(this.latestUsage.last);
    }
    events.push(event(completed));
    return events;
  }
}

/** Whether a `turn/completed`'s `turn` has what ending a turn needs. */
function isTurnObject(turn: unknown): turn is Params {
  if (typeof turn !== "object" || turn === null || Array.isArray(turn)) return false;
  const { id, status } = turn as Params;
  return typeof id === "string" && typeof status === "string";
}

/** A short description of a malformed value, for an error message. */
function describe(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return typeof value === "object" ? "an object without them" : `a ${typeof value}`;
}

/** Converts codex's usage breakdown to the official `Usage` shape. */
export function toUsage(breakdown: TokenUsageBreakdown): Usage {
  return {
    input_tokens: breakdown.inputTokens,
    cached_input_tokens: breakdown.cachedInputTokens,
    cache_write_input_tokens: breakdown.cacheWriteInputTokens,
    output_tokens: breakdown.outputTokens,
    reasoning_output_tokens: breakdown.reasoningOutputTokens,
  };
}

function subtract(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens - b.input_tokens,
    cached_input_tokens: a.cached_input_tokens - b.cached_input_tokens,
    cache_write_input_tokens: a.cache_write_input_tokens - b.cache_write_input_tokens,
    output_tokens: a.output_tokens - b.output_tokens,
    reasoning_output_tokens: a.reasoning_output_tokens - b.reasoning_output_tokens,
  };
}
