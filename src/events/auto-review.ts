// codex's auto review verdicts (`item/autoApprovalReview/completed`) as `approval.resolved` events.
import type { GuardianApprovalReviewAction } from "../protocol/generated/ts/v2/GuardianApprovalReviewAction.js";
import type { ItemGuardianApprovalReviewCompletedNotification } from "../protocol/generated/ts/v2/ItemGuardianApprovalReviewCompletedNotification.js";
import type { AutoReviewVerdict } from "./approval-types.js";
import type { ApprovalResolvedEvent, EventScope } from "./types.js";

const STATUSES = {
  approved: "approved",
  denied: "denied",
  timedOut: "timed_out",
  aborted: "aborted",
} as const satisfies Record<string, AutoReviewVerdict["status"]>;

/**
 * The `approval.resolved` event for a finished auto review: the kind of request it stood for
 * (commands, their network access and stdin are `commandExecution`; patches `fileChange`; MCP
 * tool calls `elicitation`; permission requests `permissions`) and the decision codex acted on.
 * `undefined` for a review still in progress or of an action this version does not know.
 */
export function autoReviewResolved(
  params: ItemGuardianApprovalReviewCompletedNotification,
  scope: EventScope,
): ApprovalResolvedEvent | undefined {
  const status = STATUSES[params.review?.status as keyof typeof STATUSES];
  if (status === undefined || typeof params.reviewId !== "string") return undefined;
  const { riskLevel, userAuthorization, rationale } = params.review;
  const review: AutoReviewVerdict = {
    review_id: params.reviewId,
    status,
    risk_level: riskLevel ?? null,
    user_authorization: userAuthorization ?? null,
    rationale: rationale ?? null,
  };
  const common = {
    type: "approval.resolved" as const,
    ...scope,
    request_id: params.reviewId,
    item_id: params.targetItemId ?? null,
    decided_by: "auto_review" as const,
    reason: `auto review ${status.replace("_", " ")}${riskLevel ? ` (risk: ${riskLevel})` : ""}${rationale ? `: ${rationale}` : ""}`,
    review,
  };
  const approved = status === "approved";
  const refused = status === "aborted" ? "cancel" : "decline";
  switch ((params.action as GuardianApprovalReviewAction | undefined)?.type) {
    case "command":
    case "execve":
    case "writeStdin":
    case "networkAccess":
      return { ...common, kind: "commandExecution", decision: approved ? "accept" : refused };
    case "applyPatch":
      return { ...common, kind: "fileChange", decision: approved ? "accept" : refused };
    case "mcpToolCall":
      return { ...common, kind: "elicitation", decision: approved ? { accept: null } : refused };
    case "requestPermissions": {
      if (!approved) return { ...common, kind: "permissions", decision: "decline" };
      const { network, fileSystem } = (
        params.action as Extract<GuardianApprovalReviewAction, { type: "requestPermissions" }>
      ).permissions;
      const grant = { ...(network ? { network } : {}), ...(fileSystem ? { fileSystem } : {}) };
      return { ...common, kind: "permissions", decision: { grant, scope: "turn" } };
    }
    default:
      return undefined;
  }
}
