// Who judges approvals at codex (`approvalsReviewer`), and the handlers that its auto review leaves unasked.
import { CodexHarnessError } from "../errors.js";
import type { Approvals } from "../events/approval-types.js";
import type { ApprovalsReviewer } from "../protocol/generated/ts/v2/ApprovalsReviewer.js";

/** The reviewers codex 0.169.0 accepts (`guardian_subagent` is its older name for `auto_review`). */
const REVIEWERS: readonly ApprovalsReviewer[] = ["user", "auto_review", "guardian_subagent"];

/**
 * The request kinds codex's auto review answers itself: commands (and their network access), file
 * changes and permission requests never reach this client then. (MCP tool-call approvals do not
 * either, but `elicitation` handlers still answer MCP forms, so they are not refused.)
 */
const REVIEWED_KINDS = ["commandExecution", "fileChange", "permissions"] as const;

/** Refuses an `approvalsReviewer` codex does not know, naming the ones it does. */
export function checkApprovalsReviewer(reviewer: unknown): void {
  if (reviewer === undefined || REVIEWERS.includes(reviewer as ApprovalsReviewer)) return;
  throw new CodexHarnessError(
    "unsupported_option",
    `approvalsReviewer ${JSON.stringify(reviewer)} is not one codex knows; use "user" or "auto_review".`,
  );
}

/**
 * Refuses a turn whose approvals codex would never ask: with an auto reviewer, the handlers of
 * {@link REVIEWED_KINDS} are bypassed, so a deny of theirs could not win. Fails closed: the turn
 * does not start, and the error says what to change.
 */
export function checkReviewerConflict(
  reviewer: ApprovalsReviewer | undefined,
  approvals: Approvals | undefined,
): void {
  checkApprovalsReviewer(reviewer);
  if (reviewer === undefined || reviewer === "user" || !approvals) return;
  const bypassed = REVIEWED_KINDS.filter((kind) => approvals[kind] !== undefined);
  if (bypassed.length === 0) return;
  throw new CodexHarnessError(
    "auto_review_conflict",
    `This thread's approvals are judged by codex's auto review (approvalsReviewer ${JSON.stringify(reviewer)}), which answers command, file-change and permission requests itself and never sends them here, so the ${bypassed.join(", ")} handler${bypassed.length > 1 ? "s" : ""} would never be asked (and a deny of theirs could not win). Remove ${bypassed.length > 1 ? "them" : "it"} from the thread's and the Codex's approvals, or set approvalsReviewer: "user".`,
  );
}
