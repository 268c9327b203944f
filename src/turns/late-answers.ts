// Undoes what codex does for a request we gave up on (timed out) and answers later anyway: a turn
// we reported as failed must not run, a thread nobody will use is unloaded.
import type { AppServerClient } from "../app-server/client.js";
import { ActiveTurn, type ActiveTurns } from "./active-turn.js";
import { interruptTurn, stopAtCodex, warnNotStopped } from "./turn-interrupt.js";

/** The `onLateAnswer` of a `turn/start` on `threadId`: stops the turn codex started late. */
export function undoLateTurnStart(
  client: AppServerClient,
  router: ActiveTurns,
  threadId: string,
): (result: unknown) => void {
  return (result) => {
    const turnId = (result as { turn?: { id?: unknown } } | null)?.turn?.id;
    if (typeof turnId === "string" && !client.closedReason) {
      stopLateTurn(client, router, threadId, turnId);
    }
  };
}

/** The `onLateAnswer` of a `thread/start`: unloads the thread (best effort; it has no turn). */
export function undoLateThreadStart(client: AppServerClient): (result: unknown) => void {
  return (result) => {
    const threadId = (result as { thread?: { id?: unknown } } | null)?.thread?.id;
    if (typeof threadId !== "string" || client.closedReason) return;
    client.request("thread/unsubscribe", { threadId }).catch(() => undefined);
  };
}

/**
 * Stops a turn codex started after we gave up on its `turn/start` (it timed out, and we reported
 * the turn as failed): nobody waits for it, so it must not run. It is handled like an aborted
 * turn — its approvals are declined from the first, it is interrupted, its commands are ended —
 * and a failure to stop it is reported as a process warning.
 */
function stopLateTurn(
  client: AppServerClient,
  router: ActiveTurns,
  threadId: string,
  turnId: string,
): void {
  const late = new ActiveTurn(threadId);
  late.start(turnId);
  late.requestStop("abandon");
  if (router.get(threadId)) {
    // Another turn of the thread runs now and owns its notifications: interrupt this one by id.
    interruptTurn(client, late).catch(warnNotStopped);
    return;
  }
  router.add(late);
  stopAtCodex(client, late)
    .catch(warnNotStopped)
    .finally(() => {
      late.close();
      router.remove(late);
    });
}
