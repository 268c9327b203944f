// What a finding of the `validate` option does to the running turn of its thread.
import type { ValidationIssue } from "../app-server/validation.js";
import type { ActiveTurns } from "./active-turn.js";

/**
 * `"warn"`: the turn's stream gets a `notice` (code `invalid_message`) naming the method and the
 * field, before the message's own events. `"strict"`: the message was refused, so the turn cannot
 * be followed faithfully: its stream fails with the `InvalidMessageError` (and the turn is stopped
 * at codex, as for any stream that ends early). Findings of no running turn go nowhere here.
 */
export function applyValidationIssue(router: ActiveTurns, issue: ValidationIssue): void {
  const turn = issue.threadId === undefined ? undefined : router.get(issue.threadId);
  if (!turn) return;
  if (issue.mode === "strict") {
    turn.giveUp(issue.error);
    return;
  }
  turn.emit({
    type: "notice",
    thread_id: turn.threadId,
    ...(turn.turnId === undefined ? {} : { turn_id: turn.turnId }),
    code: "invalid_message",
    message: issue.message,
  });
}
