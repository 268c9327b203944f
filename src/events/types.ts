// The extended event model (`events: "extended"`): @openai/codex-sdk's events and items with
// codex-harness's extra fields, item kinds and event types.
import type { CodexErrorInfo } from "../protocol/generated/ts/v2/CodexErrorInfo.js";
import type {
  ApprovalDecider,
  ApprovalKind,
  AutoReviewVerdict,
  DecisionOf,
  RequestOf,
} from "./approval-types.js";
import type { ErrorItem, McpToolCallStatus, TodoListItem, Usage } from "./sdk-types.js";

/** Shared with the official model unchanged. */
export type { ErrorItem, McpToolCallStatus, TodoItem, TodoListItem, Usage } from "./sdk-types.js";

/** Item statuses: the official ones, plus `declined` for a refused approval (app-server). */
export type ExtendedCommandExecutionStatus = "in_progress" | "completed" | "failed" | "declined";
export type ExtendedPatchApplyStatus = "in_progress" | "completed" | "failed" | "declined";

/** A reply from the agent: text, or JSON when an output schema was given. */
export interface ExtendedAgentMessageItem {
  id: string;
  type: "agent_message";
  text: string;
  /** app-server: the message's phase (e.g. commentary or final answer), when codex says. */
  phase?: string | null;
}

/** The agent's reasoning: `text` is the summary (or the raw reasoning when there is none). */
export interface ExtendedReasoningItem {
  id: string;
  type: "reasoning";
  text: string;
  summary?: string[];
  content?: string[];
}

/** A command the agent ran (or asked to run). */
export interface ExtendedCommandExecutionItem {
  id: string;
  type: "command_execution";
  command: string;
  aggregated_output: string;
  exit_code?: number | null;
  status: ExtendedCommandExecutionStatus;
  cwd?: string;
  process_id?: string | null;
  command_actions?: unknown[];
  duration_ms?: number | null;
  source?: string;
}

/** One file touched by a patch. `diff` is the unified diff (app-server). */
export interface ExtendedFileUpdateChange {
  path: string;
  kind: "add" | "delete" | "update";
  diff?: string;
  move_path?: string | null;
}

/** A set of file changes. */
export interface ExtendedFileChangeItem {
  id: string;
  type: "file_change";
  changes: ExtendedFileUpdateChange[];
  status: ExtendedPatchApplyStatus;
}

/** A call of an MCP tool. */
export interface ExtendedMcpToolCallItem {
  id: string;
  type: "mcp_tool_call";
  server: string;
  /**
   * The environment that registered the server, null for a thread-wide one (app-server, codex
   * 0.171.0 on; absent from older releases and from exec). A registration scope, not necessarily
   * where the server runs.
   */
  environment_id?: string | null;
  tool: string;
  arguments: unknown;
  result?: { content: unknown[]; structured_content: unknown; _meta?: unknown };
  error?: { message: string };
  status: McpToolCallStatus;
  duration_ms?: number | null;
}

/** A web search. */
export interface ExtendedWebSearchItem {
  id: string;
  type: "web_search";
  query: string;
  action?: unknown;
}

/** An image the agent looked at (app-server). */
export interface ImageViewItem {
  id: string;
  type: "image_view";
  path: string;
}

/** A call of a tool the client declared (`dynamicTools`, app-server). */
export interface DynamicToolCallItem {
  id: string;
  type: "dynamic_tool_call";
  tool: string;
  namespace?: string | null;
  arguments: unknown;
  status: "in_progress" | "completed" | "failed";
  content_items?: unknown[] | null;
  success?: boolean | null;
  duration_ms?: number | null;
}

/** A proposed plan written by the agent in plan mode (app-server). */
export interface PlanItem {
  id: string;
  type: "plan";
  text: string;
}

/** The thread entered or left review mode (app-server). */
export interface ReviewModeItem {
  id: string;
  type: "entered_review_mode" | "exited_review_mode";
  review: string;
}

/** codex compacted the conversation history (app-server). */
export interface ContextCompactionItem {
  id: string;
  type: "context_compaction";
}

/** Every item kind. The first eight are `@openai/codex-sdk`'s; the rest are app-server extras. */
export type ExtendedThreadItem =
  | ExtendedAgentMessageItem
  | ExtendedReasoningItem
  | ExtendedCommandExecutionItem
  | ExtendedFileChangeItem
  | ExtendedMcpToolCallItem
  | ExtendedWebSearchItem
  | TodoListItem
  | ErrorItem
  | ImageViewItem
  | DynamicToolCallItem
  | PlanItem
  | ReviewModeItem
  | ContextCompactionItem;

/** Where an event belongs. Set whenever the transport knows it. */
export interface EventScope {
  thread_id?: string;
  turn_id?: string;
}

/** Why a turn failed. */
export interface ExtendedThreadError {
  message: string;
  /** codex's machine-readable reason (app-server), e.g. `"usageLimitExceeded"`. */
  codex_error_info?: CodexErrorInfo | null;
  additional_details?: string | null;
}

/** The first event of a turn's stream: which thread it runs on. */
export interface ExtendedThreadStartedEvent extends EventScope {
  type: "thread.started";
  thread_id: string;
}

export interface ExtendedTurnStartedEvent extends EventScope {
  type: "turn.started";
}

/** The turn ended without failing. `status` tells a finished turn from an interrupted one. */
export interface ExtendedTurnCompletedEvent extends EventScope {
  type: "turn.completed";
  /** Tokens this turn used (all of its model requests). */
  usage: Usage;
  status?: "completed" | "interrupted";
  /** Tokens the whole thread used so far (app-server). */
  total_usage?: Usage;
  /** Tokens of the turn's last model request (codex's `last` breakdown, app-server). */
  last_usage?: Usage;
  /** When codex started and ended the turn (Unix seconds) and how long it ran (app-server). */
  started_at?: number;
  completed_at?: number;
  duration_ms?: number;
}

export interface ExtendedTurnFailedEvent extends EventScope {
  type: "turn.failed";
  error: ExtendedThreadError;
  /** When codex started and ended the turn (Unix seconds) and how long it ran (app-server). */
  started_at?: number;
  completed_at?: number;
  duration_ms?: number;
}

export interface ExtendedItemStartedEvent extends EventScope {
  type: "item.started";
  item: ExtendedThreadItem;
}

export interface ExtendedItemUpdatedEvent extends EventScope {
  type: "item.updated";
  item: ExtendedThreadItem;
}

export interface ExtendedItemCompletedEvent extends EventScope {
  type: "item.completed";
  item: ExtendedThreadItem;
}

/** An error the stream reports; `will_retry` says codex is retrying by itself (app-server). */
export interface ExtendedThreadErrorEvent extends EventScope {
  type: "error";
  message: string;
  will_retry?: boolean;
  codex_error_info?: CodexErrorInfo | null;
}

/** Which text stream a delta extends. */
export type DeltaStream =
  | "agent_message"
  | "reasoning"
  | "reasoning_summary"
  | "command_output"
  | "file_change_output"
  | "plan";

/** A piece of an item's text as it streams (app-server). */
export interface ItemDeltaEvent extends EventScope {
  type: "item.delta";
  item_id: string;
  stream: DeltaStream;
  delta: string;
  /** For `reasoning_summary`: which summary part. */
  summary_index?: number;
  /** For `reasoning`: which content part. */
  content_index?: number;
}

/** The turn's aggregated unified diff so far (app-server). */
export interface TurnDiffUpdatedEvent extends EventScope {
  type: "turn.diff.updated";
  diff: string;
}

/** One step of the agent's plan. */
export interface PlanStep {
  step: string;
  status: "pending" | "in_progress" | "completed";
}

/** The agent's plan changed (app-server). */
export interface TurnPlanUpdatedEvent extends EventScope {
  type: "turn.plan.updated";
  explanation: string | null;
  plan: PlanStep[];
}

/**
 * The thread's token usage after a model request (app-server, from codex's
 * `thread/tokenUsage/updated`). `last.input_tokens + last.output_tokens` is about what the
 * model's context holds now; with `model_context_window` it says how full the context is.
 */
export interface UsageUpdatedEvent extends EventScope {
  type: "usage.updated";
  /** Tokens the whole thread used so far. */
  total: Usage;
  /** Tokens of the last model request. */
  last: Usage;
  /** The model's context window in tokens, when codex knows it. */
  model_context_window: number | null;
}

/** A message from codex with no typed mapping, passed through unchanged. */
export interface NotificationEvent extends EventScope {
  type: "notification";
  method: string;
  params: unknown;
}

/**
 * codex asks something nobody's handler answered: answer with `respond(decision)` (the first
 * answer wins). Unanswered, it is declined at the timeout.
 *
 * A union with one member per kind: narrow on the top-level `kind` (`event.kind ===
 * "commandExecution"`) and `request` and `respond` follow, so `respond` accepts only that kind's
 * decisions. Narrowing on `event.request.kind` narrows `request` alone, not the event or
 * `respond`. Unnarrowed, `respond` accepts what every kind accepts (`"decline"`).
 * `ApprovalRequestedEvent<K>` is the event of the kinds `K`.
 *
 * A decision that is not one of the kind's (a cast, a JavaScript caller) is refused at run time:
 * `respond` declines the request at once and throws a `CodexHarnessError` with code
 * `invalid_decision`.
 */
export type ApprovalRequestedEvent<K extends ApprovalKind = ApprovalKind> = {
  [P in K]: EventScope & {
    type: "approval.requested";
    /** Which kind of request (the same as `request.kind`): the discriminant to narrow on. */
    kind: P;
    request: RequestOf<P>;
    /** Answers the request; throws `invalid_decision` (and declines) for a decision not of `kind`. */
    respond(decision: DecisionOf<P>): void;
  };
}[K];

/**
 * A server request was answered: what, and who decided. A union with one member per kind:
 * narrowing on `kind` types `decision` as that kind's.
 */
export type ApprovalResolvedEvent<K extends ApprovalKind = ApprovalKind> = {
  [P in K]: EventScope & {
    type: "approval.resolved";
    request_id: string | number;
    kind: P;
    item_id: string | null;
    decision: DecisionOf<P>;
    decided_by: ApprovalDecider;
    /** With `decided_by: "auto_review"`: codex's reviewer's verdict. */
    review?: AutoReviewVerdict;
    /**
     * Why, in words, when known: the handler's `context.explain(…)` (a `fromPermissions` rule
     * and its file, "declined by you at the prompt"), or the runtime's for `timeout`, `default`,
     * `error` and `cleared` ("nobody answered within 10 min", the handler's error, …).
     */
    reason?: string;
  };
}[K];

/** Something the caller should know that is not an error (e.g. a lost thread was replaced). */
export interface NoticeEvent extends EventScope {
  type: "notice";
  /** What happened, e.g. `thread_replaced`. */
  code: string;
  message: string;
  /** For `thread_replaced`: the thread codex could not resume. */
  replaced_thread_id?: string;
  /** For `deltas_dropped`: the item whose unread output was dropped, and how many UTF-8 bytes. */
  item_id?: string;
  dropped_bytes?: number;
}

/** Every event a turn's stream yields. */
export type ExtendedThreadEvent =
  | ExtendedThreadStartedEvent
  | ExtendedTurnStartedEvent
  | ExtendedTurnCompletedEvent
  | ExtendedTurnFailedEvent
  | ExtendedItemStartedEvent
  | ExtendedItemUpdatedEvent
  | ExtendedItemCompletedEvent
  | ExtendedThreadErrorEvent
  | ItemDeltaEvent
  | TurnDiffUpdatedEvent
  | TurnPlanUpdatedEvent
  | UsageUpdatedEvent
  | ApprovalRequestedEvent
  | ApprovalResolvedEvent
  | NoticeEvent
  | NotificationEvent;
