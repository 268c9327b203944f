// The one stop of a turn, made before the turn exists: the caller's AbortSignal and `interrupt()`
// (of the thread or of a turn handle) both abort its signal, which the transport watches from the
// start; the transport settles it once nothing the turn started runs any more.
import { CodexHarnessError } from "../errors.js";

/**
 * The reason a turn's stop signal carries when it was interrupted (not aborted): its stream ends
 * with the turn's `interrupted` end instead of rejecting with an `AbortError`.
 */
export class TurnInterruption extends CodexHarnessError {
  constructor() {
    super("interrupted", "The turn was interrupted.");
  }
}

/** Whether an abort reason asks for an interruption (see {@link TurnInterruption}). */
export function isInterruption(reason: unknown): boolean {
  return reason instanceof TurnInterruption;
}

/**
 * A turn's stop. `signal` aborts with the caller's signal (its reason kept) or with a
 * {@link TurnInterruption} from {@link interrupt}; the transport reads it before the turn starts
 * (a stop then means the turn is never started) and while it runs, and calls {@link settle} once
 * the turn is over and nothing it started runs (with the error when that could not be made so).
 */
export class TurnStop {
  readonly signal: AbortSignal;
  private readonly interruption = new AbortController();
  private readonly over: Promise<void>;
  private finish!: (error?: unknown) => void;
  private settled = false;

  constructor(callerSignal?: AbortSignal) {
    this.signal = callerSignal
      ? AbortSignal.any([callerSignal, this.interruption.signal])
      : this.interruption.signal;
    this.over = new Promise<void>((resolve, reject) => {
      this.finish = (error) => (error === undefined ? resolve() : reject(error));
    });
    // Observed by interrupt() when anyone asks; an unread failure is no unhandled rejection.
    this.over.catch(() => undefined);
  }

  /**
   * Interrupts the turn: resolves once codex ended it and nothing it started runs (at once for a
   * turn already over); rejects with `interrupt_failed` or `turn_not_stopped` when codex would not.
   */
  interrupt(): Promise<void> {
    if (!this.settled) this.interruption.abort(new TurnInterruption());
    return this.over;
  }

  /** The transport's word that the turn is over and nothing of it runs (or why that failed). */
  settle(error?: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.finish(error);
  }
}
