// Drains a turn's events into the result of `run()`, and the error a failed turn rejects with.

import { CodexHarnessError } from "../errors.js";
import { everyCaseHandled } from "../events/exhaustive.js";
import { type RefusalReason, refusalOf } from "../events/refusals.js";
import type { RunResult, ThreadEvent } from "../events/sdk-types.js";
import type {
  ExtendedThreadError,
  ExtendedThreadEvent,
  ExtendedThreadItem,
  PlanStep,
  Usage,
} from "../events/types.js";
import type { EventsMode } from "./options.js";

/** What `run()` resolves with under `events: "extended"`: the official three fields and more. */
export interface ExtendedRunResult {
  /** Completed items, in order. */
  items: ExtendedThreadItem[];
  /** The last agent message's text (as `@openai/codex-sdk`'s `finalResponse`, whatever its phase). */
  finalResponse: string;
  /**
   * The turn's answer as codex's message phases say (as the official Python SDK's
   * `final_response`): the last message codex marked `final_answer`; without one, the last message
   * of no phase (exec, older codex); commentary and partial answers are never it — "" when the
   * turn said nothing else.
   */
  finalAnswer: string;
  /** Tokens the turn used; null when the turn reported none. */
  usage: Usage | null;
  /** The turn id (app-server), or null (exec has none). */
  id: string | null;
  status: "completed" | "interrupted" | "failed";
  /** The turn's aggregated unified diff (app-server), or null. */
  diff: string | null;
  /** The agent's latest plan, or null. */
  plan: { explanation: string | null; plan: PlanStep[] } | null;
  /** Why the turn failed, or null. */
  error: ExtendedThreadError | null;
  /** When codex started and ended the turn (Unix seconds), and how long it ran (app-server). */
  startedAt: number | null;
  completedAt: number | null;
  durationMs: number | null;
  /**
   * The thread's token usage after the turn's last model request, with the model's context
   * window (app-server; the last `usage.updated`), or null.
   */
  threadUsage: { total: Usage; last: Usage; model_context_window: number | null } | null;
}

/** What `run()` resolves with under an {@link EventsMode}. */
export type RunResultOf<M extends EventsMode> = M extends "extended"
  ? ExtendedRunResult
  : RunResult;

/**
 * A turn ended with `turn.failed`; `codexErrorInfo` is codex's machine-readable reason (extended).
 * `code` is `"turn_refused"` when the model declined on policy grounds (codex's `cyberPolicy`,
 * `bioPolicy`, `misalignmentPolicyViolation`; app-server, either events mode), else `"turn_failed"`.
 */
export class TurnFailedError extends CodexHarnessError {
  declare readonly code: "turn_failed" | "turn_refused";
  readonly codexErrorInfo: ExtendedThreadError["codex_error_info"];
  readonly threadError: ExtendedThreadError;
  /** What the turn produced before it failed (the shape `run()` resolves with). */
  readonly result: RunResult | ExtendedRunResult;

  constructor(
    result: RunResult | ExtendedRunResult,
    error: ExtendedThreadError,
    refusal?: RefusalReason,
  ) {
    super(refusal ? "turn_refused" : "turn_failed", error.message);
    this.threadError = error;
    this.codexErrorInfo = error.codex_error_info ?? null;
    this.result = result;
  }
}

/**
 * The turn's `signal` was aborted: `run()` rejects and `runStreamed()`'s iteration ends with this,
 * as `@openai/codex-sdk` does (`name` "AbortError", `code` "ABORT_ERR", `cause` the signal's
 * reason). It is thrown only once codex has stopped the turn. `result` holds what the turn
 * produced before it stopped (set by `run()`).
 */
export class TurnAbortedError extends CodexHarnessError {
  declare readonly code: "ABORT_ERR";
  result: RunResult | ExtendedRunResult | undefined;

  constructor(reason: unknown, message = "The turn was aborted by its signal; codex stopped it.") {
    super("ABORT_ERR", message, { cause: reason });
    this.name = "AbortError";
  }
}

/**
 * Folds a turn's events, official or extended, into what `run()` resolves with: the official
 * `{ items, finalResponse, usage }` under `events: "sdk"`, the {@link ExtendedRunResult} otherwise.
 */
export class RunResultBuilder<M extends EventsMode = "extended"> {
  private readonly result: ExtendedRunResult = {
    items: [],
    finalResponse: "",
    finalAnswer: "",
    usage: null,
    id: null,
    status: "completed",
    diff: null,
    plan: null,
    error: null,
    startedAt: null,
    completedAt: null,
    durationMs: null,
    threadUsage: null,
  };

  /** Why the model refused, when the turn failed so. */
  private refusal: RefusalReason | undefined;
  /** The last `final_answer` message's text, and the last one of no phase (see `finalAnswer`). */
  private lastFinal: string | undefined;
  private lastUnphased: string | undefined;

  constructor(private readonly mode: M = "extended" as M) {}

  add(event: ExtendedThreadEvent | ThreadEvent): void {
    const result = this.result;
    if ("turn_id" in event && event.turn_id !== undefined) result.id = event.turn_id;
    switch (event.type) {
      case "item.completed":
        if (event.item.type === "agent_message") {
          result.finalResponse = event.item.text;
          const phase = "phase" in event.item ? event.item.phase : undefined;
          if (phase === "final_answer") this.lastFinal = event.item.text;
          else if (phase === undefined || phase === null) this.lastUnphased = event.item.text;
          result.finalAnswer = this.lastFinal ?? this.lastUnphased ?? "";
        }
        result.items.push(event.item as ExtendedThreadItem);
        break;
      case "turn.completed":
        result.usage = event.usage;
        result.status = ("status" in event && event.status) || "completed";
        this.timing(event);
        break;
      case "turn.failed":
        result.status = "failed";
        result.error = event.error;
        this.refusal = refusalOf(event);
        this.timing(event);
        break;
      case "usage.updated":
        result.threadUsage = {
          total: event.total,
          last: event.last,
          model_context_window: event.model_context_window,
        };
        break;
      case "turn.diff.updated":
        result.diff = event.diff;
        break;
      case "turn.plan.updated":
        result.plan = { explanation: event.explanation, plan: event.plan };
        break;
      case "thread.started":
      case "turn.started":
      case "item.started":
      case "item.updated":
      case "item.delta":
      case "error":
      case "approval.requested":
      case "approval.resolved":
      case "notice":
      case "notification":
        break;
      default:
        everyCaseHandled(event);
    }
  }

  /** codex's start and end of the turn, when the event has them (app-server). */
  private timing(event: ExtendedThreadEvent | ThreadEvent): void {
    if (event.type !== "turn.completed" && event.type !== "turn.failed") return;
    if (!("started_at" in event || "duration_ms" in event)) return;
    this.result.startedAt = event.started_at ?? null;
    this.result.completedAt = event.completed_at ?? null;
    this.result.durationMs = event.duration_ms ?? null;
  }

  /** What the events so far add up to, even if the turn did not end. */
  partial(): RunResultOf<M> {
    const { result } = this;
    if (this.mode === "extended") return result as RunResultOf<M>;
    const official: RunResult = {
      items: result.items as RunResult["items"],
      finalResponse: result.finalResponse,
      usage: result.usage,
    };
    return official as RunResultOf<M>;
  }

  /** The result, or a {@link TurnFailedError} when the turn failed. */
  finish(): RunResultOf<M> {
    const { result } = this;
    if (result.status === "failed" && result.error)
      throw new TurnFailedError(this.partial(), result.error, this.refusal);
    return this.partial();
  }
}
