// The canonical event model: @openai/codex-sdk's events and items (snake_case), plus codex-harness's extras.
import type { CodexErrorInfo } from "../protocol/generated/ts/v2/CodexErrorInfo.js";
import type {
  ApprovalDecider,
  ApprovalKind,
  ApprovalRequest,
  DecisionOf,
} from "./approval-types.js";

/** Token usage of a turn, as `@openai/codex-sdk` reports it. */
export interface Usage {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
}

/** Item statuses: the official ones, plus `declined` for a refused approval (app-server). */
export type CommandExecutionStatus = "in_progress" | "completed" | "failed" | "declined";
export type PatchApplyStatus = "in_progress" | "completed" | "failed" | "declined";
export type McpToolCallStatus = "in_progress" | "completed" | "failed";

/** A reply from the agent: text, or JSON when an output schema was given. */
export interface AgentMessageItem {
  id: string;
  type: "agent_message";
  text: string;
  /** app-server: the message's phase (e.g. commentary or final answer), when codex says. */
  phase?: string | null;
}

/** The agent's reasoning: `text` is the summary (or the raw reasoning when there is none). */
export interface ReasoningItem {
  id: string;
  type: "reasoning";
  text: string;
  summary?: string[];
  content?: string[];
}

/** A command the agent ran (or asked to run). */
export interface CommandExecutionItem {
  id: string;
  type: "command_execution";
  command: string;
  aggregated_output: string;
  exit_code?: number | null;
  status: CommandExecutionStatus;
  cwd?: string;
  process_id?: string | null;
  command_actions?: unknown[];
  duration_ms?: number | null;
  source?: string;
}

/** One file touched by a patch. `diff` is the unified diff (app-server). */
export interface FileUpdateChange {
  path: string;
  kind: "add" | "delete" | "update";
  diff?: string;
  move_path?: string | null;
}

/** A set of file changes. */
export interface FileChangeItem {
  id: string;
  type: "file_change";
  changes: FileUpdateChange[];
  status: PatchApplyStatus;
}

/** A call of an MCP tool. */
export interface McpToolCallItem {
  id: string;
  type: "mcp_tool_call";
  server: string;
  tool: string;
  arguments: unknown;
  result?: { content: unknown[]; structured_content: unknown; _meta?: unknown };
  error?: { message: string };
  status: McpToolCallStatus;
  duration_ms?: number | null;
}

/** A web search. */
export interface WebSearchItem {
  id: string;
  type: "web_search";
  query: string;
  action?: unknown;
}

/** One entry of the agent's to-do list. */
export interface TodoItem {
  text: string;
  completed: boolean;
}

/** The agent's running to-do list (its plan). */
export interface TodoListItem {
  id: string;
  type: "todo_list";
  items: TodoItem[];
}

/** A non-fatal error surfaced as an item. */
export interface ErrorItem {
  id: string;
  type: "error";
  message: string;
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
export type ThreadItem =
  | AgentMessageItem
  | ReasoningItem
  | CommandExecutionItem
  | FileChangeItem
  | McpToolCallItem
  | WebSearchItem
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
export interface ThreadError {
  message: string;
  /** codex's machine-readable reason (app-server), e.g. `"usageLimitExceeded"`. */
  codex_error_info?: CodexErrorInfo | null;
  additional_details?: string | null;
}

/** The first event of a turn's stream: which thread it runs on. */
export interface ThreadStartedEvent extends EventScope {
  type: "thread.started";
  thread_id: string;
}

export interface TurnStartedEvent extends EventScope {
  type: "turn.started";
}

/** The turn ended without failing. `status` tells a finished turn from an interrupted one. */
export interface TurnCompletedEvent extends EventScope {
  type: "turn.completed";
  /** Tokens this turn used (all of its model requests). */
  usage: Usage;
  status?: "completed" | "interrupted";
  /** Tokens the whole thread used so far (app-server). */
  total_usage?: Usage;
  /** Tokens of the turn's last model request (codex's `last` breakdown, app-server). */
  last_usage?: Usage;
}

export interface TurnFailedEvent extends EventScope {
  type: "turn.failed";
  error: ThreadError;
}

export interface ItemStartedEvent extends EventScope {
  type: "item.started";
  item: ThreadItem;
}

export interface ItemUpdatedEvent extends EventScope {
  type: "item.updated";
  item: ThreadItem;
}

export interface ItemCompletedEvent extends EventScope {
  type: "item.completed";
  item: ThreadItem;
}

/** An error the stream reports; `will_retry` says codex is retrying by itself (app-server). */
export interface ThreadErrorEvent extends EventScope {
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

/** A message from codex with no typed mapping, passed through unchanged. */
export interface NotificationEvent extends EventScope {
  type: "notification";
  method: string;
  params: unknown;
}

/**
 * codex asks something nobody's handler answered: answer with `respond(decision)` (the first
 * answer wins). Unanswered, it is declined at the timeout.
 */
export interface ApprovalRequestedEvent extends EventScope {
  type: "approval.requested";
  request: ApprovalRequest;
  respond(decision: DecisionOf<ApprovalKind>): void;
}

/** A server request was answered: what, and who decided. */
export interface ApprovalResolvedEvent extends EventScope {
  type: "approval.resolved";
  request_id: string | number;
  kind: ApprovalKind;
  item_id: string | null;
  decision: DecisionOf<ApprovalKind>;
  decided_by: ApprovalDecider;
}

/** Something the caller should know that is not an error (e.g. a lost thread was replaced). */
export interface NoticeEvent extends EventScope {
  type: "notice";
  /** What happened, e.g. `thread_replaced`. */
  code: string;
  message: string;
  /** For `thread_replaced`: the thread codex could not resume. */
  replaced_thread_id?: string;
}

/** Every event a turn's stream yields. */
export type ThreadEvent =
  | ThreadStartedEvent
  | TurnStartedEvent
  | TurnCompletedEvent
  | TurnFailedEvent
  | ItemStartedEvent
  | ItemUpdatedEvent
  | ItemCompletedEvent
  | ThreadErrorEvent
  | ItemDeltaEvent
  | TurnDiffUpdatedEvent
  | TurnPlanUpdatedEvent
  | ApprovalRequestedEvent
  | ApprovalResolvedEvent
  | NoticeEvent
  | NotificationEvent;

/** The events `@openai/codex-sdk` itself emits. */
export type OfficialThreadEvent = Extract<
  ThreadEvent,
  {
    type:
      | "thread.started"
      | "turn.started"
      | "turn.completed"
      | "turn.failed"
      | "item.started"
      | "item.updated"
      | "item.completed"
      | "error";
  }
>;
