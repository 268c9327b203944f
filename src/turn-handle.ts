// A running turn as a handle (as the official Python SDK's TurnHandle): its id once codex started
// it, its own events, steer and interrupt, and its result. Built on the thread's stream.
import { CodexHarnessError } from "./errors.js";
import type { EventOf } from "./thread.js";
import type { EventsMode, Input } from "./turns/options.js";
import { RunResultBuilder, type RunResultOf, TurnAbortedError } from "./turns/run-result.js";

/** A turn under way: see `Thread.turn()`. */
export interface TurnHandle<M extends EventsMode = "sdk"> {
  /** codex's id of the turn (app-server); null on exec, which has none. */
  readonly id: string | null;
  /** The thread it runs on. */
  readonly threadId: string | null;
  /**
   * The turn's events from its start (`thread.started`, `turn.started`, …), consumable once. Read
   * them, or call {@link result} — which reads whatever nobody read.
   */
  readonly events: AsyncGenerator<EventOf<M>>;
  /** Adds input to the turn while it runs (app-server). */
  steer(input: Input): Promise<void>;
  /** Interrupts the turn (app-server); its result's status is then `interrupted`. */
  interrupt(): Promise<void>;
  /**
   * Resolves with the turn's result as `run()` does, or rejects as it does (`TurnFailedError`,
   * `AbortError`). Events nobody reads are read here; an approval among them, which nobody can
   * answer any more, is declined.
   */
  result(): Promise<RunResultOf<M>>;
}

/** What the handle needs of its thread. */
export interface TurnHandleHost {
  threadId(): string | null;
  turnId(): string | undefined;
  steer(input: Input): Promise<void>;
  interrupt(): Promise<void>;
}

/**
 * Reads `stream` until codex started the turn (its `turn.started`, or the stream's end), then
 * hands the turn over as a {@link TurnHandle}.
 */
export async function openTurnHandle<M extends EventsMode>(
  stream: AsyncGenerator<EventOf<M>>,
  mode: M,
  host: TurnHandleHost,
): Promise<TurnHandle<M>> {
  const seen: EventOf<M>[] = [];
  let ended = false;
  for (;;) {
    const next = await stream.next();
    if (next.done) {
      ended = true;
      break;
    }
    seen.push(next.value);
    if (next.value.type === "turn.started") break;
  }
  const builder = new RunResultBuilder(mode);
  let reading = false;
  let finished = false;
  let settle!: (error?: unknown) => void;
  // Settles when the events end (rejects with what ended them); result() waits on it.
  const over = new Promise<void>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve() : reject(error));
  });
  over.catch(() => {}); // (observed by result(), if anyone asks)
  // What was read to learn the turn's id, then the rest of the stream.
  const all = (async function* () {
    yield* seen;
    if (!ended) yield* stream;
  })();
  const events = (async function* () {
    reading = true;
    try {
      for await (const event of all) {
        builder.add(event);
        finished ||= event.type === "turn.completed" || event.type === "turn.failed";
        yield event;
      }
      settle();
    } catch (error) {
      settle(error);
      throw error;
    } finally {
      // Left before the end (a break): the turn was stopped at codex.
      settle(
        finished
          ? undefined
          : new CodexHarnessError(
              "turn_abandoned",
              "The turn's events were left before it ended, so codex stopped it; it has no result.",
            ),
      );
    }
  })();
  /** Reads the events nobody reads (declining approvals nobody can answer now). */
  const readTheRest = async () => {
    for await (const event of events) {
      const asked = event as { type: string; respond?: (decision: "decline") => void };
      if (asked.type === "approval.requested") asked.respond?.("decline");
    }
  };
  return {
    id: host.turnId() ?? null,
    threadId: host.threadId(),
    events,
    steer: (input) => host.steer(input),
    interrupt: () => host.interrupt(),
    result: async () => {
      try {
        if (!reading) await readTheRest();
        await over;
      } catch (error) {
        if (error instanceof TurnAbortedError) error.result = builder.partial();
        throw error;
      }
      return builder.finish();
    },
  };
}
