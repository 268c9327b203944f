// @openai/codex-sdk's events and items, field for field: what `events: "sdk"` (the default) yields.

/** Token usage of a turn, as `@openai/codex-sdk` reports it. */
export interface Usage {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
}

export type CommandExecutionStatus = "in_progress" | "completed" | "failed";
export type PatchChangeKind = "add" | "delete" | "update";
export type PatchApplyStatus = "completed" | "failed";
export type McpToolCallStatus = "in_progress" | "completed" | "failed";

/** A reply from the agent: text, or JSON when an output schema was given. */
export interface AgentMessageItem {
  id: string;
  type: "agent_message";
  text: string;
}

/** The agent's reasoning summary. */
export interface ReasoningItem {
  id: string;
  type: "reasoning";
  text: string;
}

/** A command the agent ran. `exit_code` is set once it exited. */
export interface CommandExecutionItem {
  id: string;
  type: "command_execution";
  command: string;
  aggregated_output: string;
  exit_code?: number;
  status: CommandExecutionStatus;
}

/** One file touched by a patch. */
export interface FileUpdateChange {
  path: string;
  kind: PatchChangeKind;
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
  result?: { content: unknown[]; _meta?: unknown; structured_content: unknown };
  error?: { message: string };
  status: McpToolCallStatus;
}

/** A web search. */
export interface WebSearchItem {
  id: string;
  type: "web_search";
  query: string;
}

/** A non-fatal error surfaced as an item. */
export interface ErrorItem {
  id: string;
  type: "error";
  message: string;
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

/** The items `@openai/codex-sdk` knows. */
export type ThreadItem =
  | AgentMessageItem
  | ReasoningItem
  | CommandExecutionItem
  | FileChangeItem
  | McpToolCallItem
  | WebSearchItem
  | TodoListItem
  | ErrorItem;

/** The first event of a turn's stream: which thread it runs on. */
export interface ThreadStartedEvent {
  type: "thread.started";
  thread_id: string;
}

export interface TurnStartedEvent {
  type: "turn.started";
}

export interface TurnCompletedEvent {
  type: "turn.completed";
  usage: Usage;
}

/** Why a turn failed. */
export interface ThreadError {
  message: string;
}

export interface TurnFailedEvent {
  type: "turn.failed";
  error: ThreadError;
}

export interface ItemStartedEvent {
  type: "item.started";
  item: ThreadItem;
}

export interface ItemUpdatedEvent {
  type: "item.updated";
  item: ThreadItem;
}

export interface ItemCompletedEvent {
  type: "item.completed";
  item: ThreadItem;
}

/** An error codex reported on the stream (e.g. that it is retrying). */
export interface ThreadErrorEvent {
  type: "error";
  message: string;
}

/** The events `@openai/codex-sdk` yields, exactly: the default of `runStreamed()`. */
export type ThreadEvent =
  | ThreadStartedEvent
  | TurnStartedEvent
  | TurnCompletedEvent
  | TurnFailedEvent
  | ItemStartedEvent
  | ItemUpdatedEvent
  | ItemCompletedEvent
  | ThreadErrorEvent;

/** What `run()` resolves with by default: `@openai/codex-sdk`'s `Turn`. */
export interface RunResult {
  /** Completed items, in order. */
  items: ThreadItem[];
  /** The last agent message's text. */
  finalResponse: string;
  /** Tokens the turn used; null when the turn reported none. */
  usage: Usage | null;
}

/** Alias of {@link RunResult}, as in `@openai/codex-sdk`. */
export type Turn = RunResult;
