// What is left of turns stopped here: their ids (a request codex still sends for one is declined)
// and how a turn stopped before codex started it ends.
import type { ApprovalTarget } from "../approvals/broker.js";
import type { WithRaw } from "../events/raw.js";
import { interruptedTurnEvent } from "../events/turn-events.js";
import type { ExtendedThreadEvent } from "../events/types.js";
import { TurnAbortedError } from "./run-result.js";
import { isInterruption } from "./turn-stop.js";

/** The target of a request of a turn stopped here: nothing of it may be approved. */
export const STOPPED_TURN: ApprovalTarget = {
  approvals: undefined,
  interactive: false,
  emit: () => undefined,
  answerable: AbortSignal.abort(),
  changesOf: () => [],
};

/** The last `size` ids added (the oldest forgotten first). */
export class RecentIds {
  private readonly ids = new Set<string>();
  constructor(private readonly size: number) {}
  add(id: string): void {
    this.ids.delete(id);
    this.ids.add(id);
    if (this.ids.size > this.size) this.ids.delete(this.ids.values().next().value as string);
  }
  has(id: string): boolean {
    return this.ids.has(id);
  }
}

/**
 * A turn stopped before codex started it: an interrupted one ends at once (status `interrupted`),
 * an aborted one throws its abort error.
 */
export async function* stoppedBeforeStart(
  reason: unknown,
  threadId: string | null,
): AsyncGenerator<WithRaw<ExtendedThreadEvent>, undefined> {
  if (!isInterruption(reason)) throw abortedBeforeStart(reason);
  yield interruptedTurnEvent(threadId ?? undefined);
  return undefined;
}

/** The error of a turn whose signal aborted before codex started it. */
export function abortedBeforeStart(reason: unknown): TurnAbortedError {
  return new TurnAbortedError(
    reason,
    "The turn was aborted by its signal before codex started it.",
  );
}
