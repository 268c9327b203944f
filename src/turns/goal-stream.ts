// A goal's run as one event stream: its turns' events in order, codex's goal updates, and how it
// ended. Leaving the stream early stops the goal (paused, its running turn stopped), as leaving a
// turn's stream stops the turn.
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
  start(signal, (event) => queue.push(event))
    .then(
      (run) => {
        queue.push({ type: "goal.ended", ...run });
        queue.end();
      },
      (error: unknown) => queue.fail(error),
    )
    .finally(settled);
  return drain(queue);
}

async function* drain(queue: EventQueue<GoalEvent>): AsyncGenerator<GoalEvent> {
  yield* queue;
}
