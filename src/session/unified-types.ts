// agent-spaces' unified session contract (`UnifiedSession`, `UnifiedSessionEvent`), kept
// shape-for-shape so a host written for it can drive Codex through `CodexSession`.

import type { TraceCarrier } from "../telemetry/carrier.js";
/** Which kind of session; this package has one. */
export type SessionKind = "codex";

/** A block of message content. */
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "media_ref"; url: string; mimeType?: string; filename?: string; alt?: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error?: boolean };

/** A message of the conversation. */
export interface Message {
  role: "user" | "assistant" | "toolResult";
  content: ContentBlock[] | string;
}

/** What a tool produced. */
export interface ToolResult {
  content: ContentBlock[];
  details?: Record<string, unknown>;
}

/** Fields every unified event may carry. */
interface WithPayload {
  /** The raw payload the event was made from (the app-server message), for downstream clients. */
  payload?: unknown;
}

/** The session has a thread: `sdkSessionId` is the codex thread id (resume with it). */
export interface AgentStartEvent extends WithPayload {
  type: "agent_start";
  sessionId?: string;
  sdkSessionId?: string;
}

/** The session stopped. */
export interface AgentEndEvent extends WithPayload {
  type: "agent_end";
  sessionId?: string;
  sdkSessionId?: string;
  reason?: string;
}

export interface TurnStartEvent extends WithPayload {
  type: "turn_start";
  turnId?: string;
}

/** What a turn left behind: its unified diff and the agent's last plan. */
export interface TurnArtifacts {
  /** `completed`, `interrupted` or `failed`. */
  status: "completed" | "interrupted" | "failed";
  diff?: string;
  plan?: { explanation: string | null; plan: { step: string; status: string }[] };
  /** Why the turn failed (status `failed`). */
  error?: { message: string; codexErrorInfo?: unknown };
}

export interface TurnEndEvent {
  type: "turn_end";
  turnId?: string;
  toolResults?: { toolUseId: string; result: ToolResult }[];
  /** The turn's diff, plan and status (the raw completion is in `raw`). */
  payload: TurnArtifacts & { raw?: unknown };
}

export interface MessageStartEvent extends WithPayload {
  type: "message_start";
  messageId?: string;
  message: Message;
}

export interface MessageUpdateEvent extends WithPayload {
  type: "message_update";
  messageId?: string;
  textDelta?: string;
  contentBlocks?: ContentBlock[];
}

export interface MessageEndEvent extends WithPayload {
  type: "message_end";
  messageId?: string;
  message?: Message;
}

/**
 * Tool names: `command_execution`, `file_change`, `mcp:<server>/<tool>`, `web_search`,
 * `image_view`, and `dynamic:<tool>` for tools the client declared.
 */
export interface ToolExecutionStartEvent extends WithPayload {
  type: "tool_execution_start";
  toolUseId: string;
  toolName: string;
  input: Record<string, unknown>;
}

export interface ToolExecutionUpdateEvent extends WithPayload {
  type: "tool_execution_update";
  toolUseId: string;
  message?: string;
  partialOutput?: string;
}

export interface ToolExecutionEndEvent extends WithPayload {
  type: "tool_execution_end";
  toolUseId: string;
  toolName: string;
  result: ToolResult;
  /** A non-zero exit, a declined or failed command or patch, an MCP error. */
  isError?: boolean;
  durationMs?: number;
}

/** The SDK's own session id (agent-spaces contract; `agent_start` carries it for codex). */
export interface SdkSessionIdEvent extends WithPayload {
  type: "sdk_session_id";
  sdkSessionId: string;
}

/** A warning or a deprecation from codex, or something the harness did (e.g. a replaced thread). */
export interface SessionNoticeEvent extends WithPayload {
  type: "notice";
  level: "info" | "warn" | "error";
  /**
   * What it is: `warning`, `config_warning`, `deprecation`, `retrying`, `thread_replaced`,
   * `approval` (who or what decided a request: `approved by alice in the channels runtime`), …
   */
  code: string;
  message: string;
}

export type UnifiedSessionEvent =
  | AgentStartEvent
  | AgentEndEvent
  | TurnStartEvent
  | TurnEndEvent
  | MessageStartEvent
  | MessageUpdateEvent
  | MessageEndEvent
  | ToolExecutionStartEvent
  | ToolExecutionUpdateEvent
  | ToolExecutionEndEvent
  | SdkSessionIdEvent
  | SessionNoticeEvent;

/**
 * `idle` (created), `running` (started, no turn), `streaming` (a turn runs), `stopped`, `error`
 * (the session cannot go on: start failed, or the connection to codex broke).
 */
export type UnifiedSessionState = "idle" | "running" | "streaming" | "stopped" | "error";

/** A file or URL sent with a prompt. */
export interface AttachmentRef {
  kind: "url" | "file";
  filename?: string;
  url?: string;
  path?: string;
}

export interface PromptOptions {
  attachments?: AttachmentRef[];
  runId?: string;
  metadata?: Record<string, unknown>;
  /**
   * Interrupts the turn when it aborts, as `interrupt()` does: already aborted, the turn is never
   * started; `sendPrompt` resolves once codex stopped it and nothing it started runs.
   */
  signal?: AbortSignal;
  /** The W3C trace context the turn's span is a child of (see `TurnOptions.traceParent`). */
  traceParent?: TraceCarrier;
}

/** What codex asks permission for. */
export interface PermissionRequest {
  /** `command_execution` or `file_change`. */
  toolName: string;
  /** The item id of the command or patch. */
  toolUseId: string;
  /** The request: command, cwd, reason, files (snake_case, as codex-harness's approvals). */
  input: unknown;
  /** codex's reason, when it gave one. */
  summary?: string;
}

export interface PermissionResult {
  allowed: boolean;
  modifiedInput?: unknown;
  reason?: string;
}

/** Decides command and file-change approvals for a session. */
export interface PermissionHandler {
  requestPermission(request: PermissionRequest): Promise<PermissionResult>;
  isAutoAllowed(toolName: string): boolean;
}

/** agent-spaces' session interface. */
export interface UnifiedSession {
  readonly sessionId: string;
  readonly kind: SessionKind;
  start(): Promise<void>;
  stop(reason?: string): Promise<void>;
  isHealthy(): boolean;
  getState(): UnifiedSessionState;
  sendPrompt(text: string, options?: PromptOptions): Promise<void>;
  onEvent(callback: (event: UnifiedSessionEvent) => void): void;
  setPermissionHandler(handler: PermissionHandler): void;
}
