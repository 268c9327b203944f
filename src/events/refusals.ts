// codex's reasons for a failed turn that mean the model refused on policy grounds, in one place:
// the SDK's `turn_refused` and the ACP agent's `refusal` stop reason both read them.
import { rawOf } from "./raw.js";

/**
 * codex's `codexErrorInfo` values that mean the model declined the request on policy grounds:
 * cyber-security and biology content (`bioPolicy` from codex 0.171.0 on; 0.169.0 reports the same
 * failure as `other`), and misalignment.
 */
export const REFUSAL_REASONS = ["cyberPolicy", "bioPolicy", "misalignmentPolicyViolation"] as const;

/** One of {@link REFUSAL_REASONS}. */
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

const REFUSALS: ReadonlySet<unknown> = new Set(REFUSAL_REASONS);

/** Whether codex's error info for a failed turn says the model refused. */
export function isRefusal(codexErrorInfo: unknown): codexErrorInfo is RefusalReason {
  return REFUSALS.has(codexErrorInfo);
}

/**
 * The refusal a `turn.failed` event reports: from its error's `codex_error_info` (extended events),
 * else from the app-server message it was made from (official events); `undefined` when it is no
 * refusal or nothing says (`codex exec` reports no reason).
 */
export function refusalOf(event: {
  type: "turn.failed";
  error: object;
}): RefusalReason | undefined {
  const info =
    (event.error as { codex_error_info?: unknown }).codex_error_info ??
    (rawOf(event) as { params?: { turn?: { error?: { codexErrorInfo?: unknown } } } } | undefined)
      ?.params?.turn?.error?.codexErrorInfo;
  return isRefusal(info) ? info : undefined;
}
