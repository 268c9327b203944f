// Server requests as the event model presents them (snake_case requests, camelCase decisions) and the handler bag.

import type { TraceCarrier } from "../telemetry/carrier.js";
import type { ApprovalKind, ApprovalKinds } from "./server-requests/index.js";

/** How long an answer may take by default: 10 minutes. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

export type {
  CommandDecision,
  CommandExecutionRequest,
} from "./server-requests/command-execution.js";
export type { DynamicToolDecision, DynamicToolRequest } from "./server-requests/dynamic-tool.js";
export type { ElicitationDecision, ElicitationRequest } from "./server-requests/elicitation.js";
export type { FileChangeDecision, FileChangeRequest } from "./server-requests/file-change.js";
export { APPROVAL_KINDS, type ApprovalKind, type ApprovalKinds } from "./server-requests/index.js";
export type { PermissionsDecision, PermissionsRequest } from "./server-requests/permissions.js";
export type { ApprovalRequestBase } from "./server-requests/spec.js";
export type { TokenRefreshDecision, TokenRefreshRequest } from "./server-requests/token-refresh.js";
export type {
  UserInputDecision,
  UserInputQuestion,
  UserInputRequest,
} from "./server-requests/user-input.js";

/** Any request a handler answers, narrowed by `kind`. */
export type ApprovalRequest = ApprovalKinds[ApprovalKind]["request"];

export type DecisionOf<K extends ApprovalKind> = ApprovalKinds[K]["decision"];
export type RequestOf<K extends ApprovalKind> = ApprovalKinds[K]["request"];

/** What a handler gets besides the request. */
export interface ApprovalContext {
  /** Aborts when codex clears the request, the turn ends, or the connection closes. */
  signal: AbortSignal;
  /**
   * Says why the decision the handler is about to return was made, in words (`denied by [deny]
   * exec "git push" in …`, `approved by you`): it becomes `approval.resolved`'s `reason`; codex
   * gets the plain decision. The last call before the handler returns wins; it is dropped if the
   * handler defers. Anything but a non-empty string throws `invalid_reason` (and, uncaught, the
   * request is declined). Given by the runtime and by `composeApprovals`; absent when a handler is
   * called directly, so call it as `context.explain?.(…)`.
   */
  explain?: (reason: string) => void;
  /**
   * The W3C trace context of this request's wait, when OpenTelemetry is on: a handler that asks
   * elsewhere passes it on (the channels bridge sends it as `traceparent`), so what happens there
   * joins the turn's trace.
   */
  trace?: TraceCarrier;
}

/**
 * Answers one kind of request. Returning `undefined` defers: to the next policy of a
 * composition, then to the turn's stream (`approval.requested`), then to `decline`. To say why,
 * call `context.explain(reason)` before returning.
 */
export type ApprovalHandler<K extends ApprovalKind> = (
  request: RequestOf<K>,
  context: ApprovalContext,
) => DecisionOf<K> | undefined | Promise<DecisionOf<K> | undefined>;

/** The handlers of `new Codex({ approvals })` (and `ThreadOptions.approvals`). */
export type ApprovalHandlers = { [K in ApprovalKind]?: ApprovalHandler<K> };

/** Handlers plus how long an answer may take (default 10 minutes; per kind if an object). */
export interface Approvals extends ApprovalHandlers {
  timeoutMs?: number | Partial<Record<ApprovalKind, number>>;
}

/** Who decided. */
export type ApprovalDecider =
  /** A handler (or policy) returned the decision. */
  | "handler"
  /** Someone answered `approval.requested` through the stream. */
  | "stream"
  /** Nobody answered in time: declined. */
  | "timeout"
  /** The handler threw, or a decision not of the request's kind came (handler or `respond()`): declined. */
  | "error"
  /** Nobody could answer (no handler, `run()`): declined at once. */
  | "default"
  /** codex cleared the request itself (answered elsewhere, turn ended) or the connection closed. */
  | "cleared"
  /**
   * codex's own reviewer decided (`approvalsReviewer: "auto_review"`); codex never asked this
   * client. `approval.resolved`'s `review` has its verdict.
   */
  | "auto_review";

/** The verdict of codex's auto review, as `approval.resolved` carries it. */
export interface AutoReviewVerdict {
  /** The review's id at codex (also the event's `request_id`). */
  review_id: string;
  status: "approved" | "denied" | "timed_out" | "aborted";
  risk_level: "low" | "medium" | "high" | "critical" | null;
  user_authorization: "unknown" | "low" | "medium" | "high" | null;
  rationale: string | null;
}
