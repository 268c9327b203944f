// Drains a turn's events into the result of `run()`, and the error a failed turn rejects with.
import { CodexHarnessError } from "../errors.js";
import type { PlanStep, ThreadError, ThreadEvent, ThreadItem, Usage } from "../events/types.js";

/** What `run()` resolves with: `@openai/codex-sdk`'s `{ items, finalResponse, usage }` and more. */
export interface RunResult {
  /** Completed items, in order. */
  items: ThreadItem[];
  /** The last agent message's text. */
  finalResponse: string;
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
  error: ThreadError | null;
}

/** Alias of {@link RunResult}, as in `@openai/codex-sdk`. */
export type Turn = RunResult;

/** A turn ended with `turn.failed`; `codexErrorInfo` is codex's machine-readable reason. */
export class TurnFailedError extends CodexHarnessError {
  readonly codexErrorInfo: ThreadError["codex_error_info"];
  readonly threadError: ThreadError;
  /** What the turn produced before it failed. */
  readonly result: RunResult;

  constructor(result: RunResult & { error: ThreadError }) {
    super("turn_failed", result.error.message);
    this.threadError = result.error;
    this.codexErrorInfo = result.error.codex_error_info ?? null;
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
  result: RunResult | undefined;

  constructor(reason: unknown, message = "The turn was aborted by its signal; codex stopped it.") {
    super("ABORT_ERR", message, { cause: reason });
    this.name = "AbortError";
  }
}

/** Folds events into a {@link RunResult}, one event at a time. */
export class RunResultBuilder {
  private readonly result: RunResult = {
    items: [],
    finalResponse: "",
    usage: null,
    id: null,
    status: "completed",
    diff: null,
    plan: null,
    error: null,
  };

  add(event: ThreadEvent): void {
    const result = this.result;
    if (event.turn_id !== undefined) result.id = event.turn_id;
    switch (event.type) {
      case "item.completed":
        if (event.item.type === "agent_message") result.finalResponse = event.item.text;
        result.items.push(event.item);
        break;
      case "turn.completed":
        result.usage = event.usage;
        result.status = event.status ?? "completed";
        break;
      case "turn.failed":
        result.status = "failed";
        result.error = event.error;
        break;
      case "turn.diff.updated":
        result.diff = event.diff;
        break;
      case "turn.plan.updated":
        result.plan = { explanation: event.explanation, plan: event.plan };
        break;
    }
  }

  /** What the events so far add up to, even if the turn did not end. */
  partial(): RunResult {
    return this.result;
  }

  /** The result, or a {@link TurnFailedError} when the turn failed. */
  finish(): RunResult {
    const { result } = this;
    if (result.status === "failed" && result.error)
      throw new TurnFailedError({ ...result, error: result.error });
    return result;
  }
}
