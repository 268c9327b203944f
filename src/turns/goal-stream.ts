// A goal's run as one event stream: its turns' events in order, codex's goal updates, and how it
// ended. Leaving the stream early stops the goal (paused, its running turn stopped), as leaving a
// turn's stream stops the turn; the stream's end (a `break` out of its loop included) comes once
// nothing of the goal runs any more.
import { CodexHarnessError } from "../errors.js";
import type { GoalEvent, GoalRun } from "../goals.js";
import { EventQueue } from "./event-queue.js";

/**
 * Starts a goal's run and streams it. `start` runs the goal with the signal given (which aborts
 * when the caller's does or the reader leaves) and each event told to `emit`; `settled` is called
 * once the run is over (nothing of it runs any more), however it ended.
 */
export function streamGoal(
  start: (signal: AbortSignal, emit: (event: GoalEvent) => void) => Promise<GoalRun>,
  callerSignal: AbortSignal | undefined,
  settled: () => void,
): AsyncGenerator<GoalEvent> {
  const left = new AbortController();
  const signal = callerSignal ? AbortSignal.any([callerSignal, left.signal]) : left.signal;
  const queue = new EventQueue<GoalEvent>();
  queue.onFinish = (early) => {
    if (early) {
      left.abort(
        new CodexHarnessError("aborted", "The goal's event stream was left before it ended."),
      );
    }
  };
  const over = start(signal, (event) => queue.push(event))
    .then(
      (run) => {
        queue.push({ type: "goal.ended", ...run });
        queue.end();
      },
      (error: unknown) => queue.fail(error),
    )
    .finally(settled);
  return drain(queue, over);
}

/**
 * The queue's events; however the reading ends (the last event, a failure, or `return()` when the
 * reader leaves), it ends once the run is `over`. codex can start a goal's turn as the pause lands
 * (it decided to continue as the turn before completed): that turn is stopped before the reader's
 * `break` returns.
 */
async function* drain(
  queue: EventQueue<GoalEvent>,
  over: Promise<void>,
): AsyncGenerator<GoalEvent> {
  try {
    yield* queue;
  } finally {
    await over;
  }
}
