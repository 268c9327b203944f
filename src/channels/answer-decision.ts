// What an answer does to an interaction, decided inside the store's transaction from the
// interaction as it is: refused when its routing does not let the answerer answer, one more accept
// of several, or the response as stored — who answered (authenticated) and when.
import { ChannelsError } from "./errors.js";
import type {
  Interaction,
  InteractionResponse,
  InteractionResponseInput,
} from "./interaction-types.js";
import type { Identity } from "./people-types.js";
import { approvalsNeeded, whyNotAnswerer, withApproval } from "./routing.js";
import type { StatusUpdate } from "./store.js";

/**
 * What an answer by `by` does to `current` (as it is inside the store's transaction): refused
 * with `not_allowed` (403) when its routing does not let `by` answer; one more accept of several
 * (still open, change `approval`), refused with `already_approved` (409) when `by` accepted
 * already; else resolved. A decline by anyone allowed declines, whatever was accepted before.
 */
export function decideAnswer(
  current: Interaction,
  response: InteractionResponseInput,
  by: Identity,
  at: string,
): StatusUpdate {
  const refusal = whyNotAnswerer(current, by);
  if (refusal) throw new ChannelsError("not_allowed", 403, refusal);
  if (response.action !== "accept" || approvalsNeeded(current) === 1) {
    return { status: "resolved", response: stamped(response, by, at), at };
  }
  const { approvals, complete } = withApproval(current, by, at);
  if (!complete) return { status: current.status, type: "approval", approvals, at };
  const names = approvals.map((approval) => approval.name ?? approval.by).join(", ");
  return {
    status: "resolved",
    response: { ...stamped(response, by, at), answeredByName: names },
    approvals,
    at,
  };
}

/**
 * The response as stored: who answered (authenticated) and when; the client's own `answeredBy`
 * moved to `metadata.claimedBy`, where nothing takes it for the truth.
 */
function stamped(
  response: InteractionResponseInput,
  by: Identity,
  at: string,
): InteractionResponse {
  const { metadata, ...rest } = response;
  let kept = metadata;
  if (metadata && "answeredBy" in metadata) {
    const { answeredBy: claimed, ...others } = metadata;
    kept = { ...others, ...(claimed === undefined ? {} : { claimedBy: claimed }) };
  }
  return {
    ...rest,
    ...(kept ? { metadata: kept } : {}),
    answeredBy: by.id,
    answeredByName: by.name,
    respondedAt: at,
  };
}
