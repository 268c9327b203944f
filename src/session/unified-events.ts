// Canonical thread events -> agent-spaces' UnifiedSessionEvent: the one mapping every session path uses.
import { everyCaseHandled } from "../events/exhaustive.js";
import { rawOf } from "../events/raw.js";
import type { ExtendedThreadEvent, ExtendedThreadItem } from "../events/types.js";
import type {
  SessionNoticeEvent,
  ToolResult,
  TurnArtifacts,
  UnifiedSessionEvent,
} from "./unified-types.js";

/** What the mapping remembers within a turn: the latest diff and plan, for `turn_end`. */
export interface UnifiedTurnState {
  diff?: string;
  plan?: TurnArtifacts["plan"];
}

/** Notifications that are warnings or deprecations, and the notice code each becomes. */
const NOTICE_METHODS: Record<string, string> = {
  warning: "warning",
  guardianWarning: "warning",
  configWarning: "config_warning",
  deprecationNotice: "deprecation",
  "windows/worldWritableWarning": "warning",
};

/**
 * The unified events for one extended event. `state` carries the turn's diff and plan from
 * their updates to the `turn_end` that reports them; start each turn with a fresh `{}`.
 */
export function toUnifiedEvents(
  event: ExtendedThreadEvent,
  state: UnifiedTurnState,
): UnifiedSessionEvent[] {
  const payload = rawOf(event) ?? event;
  switch (event.type) {
    case "turn.started":
      return [{ type: "turn_start", ...turnIdOf(event), payload }];
    case "turn.completed":
      return [turnEnd(event.turn_id, state, { status: event.status ?? "completed" }, payload)];
    case "turn.failed":
      return [
        turnEnd(
          event.turn_id,
          state,
          {
            status: "failed",
            error: {
              message: event.error.message,
              ...(event.error.codex_error_info
                ? { codexErrorInfo: event.error.codex_error_info }
                : {}),
            },
          },
          payload,
        ),
      ];
    case "turn.diff.updated":
      state.diff = event.diff;
      return [];
    case "turn.plan.updated":
      state.plan = { explanation: event.explanation, plan: event.plan };
      return [];
    case "item.started":
      return itemStarted(event.item, payload);
    case "item.completed":
      return itemCompleted(event.item, payload);
    case "item.delta":
      if (event.stream === "agent_message") {
        return [
          { type: "message_update", messageId: event.item_id, textDelta: event.delta, payload },
        ];
      }
      if (event.stream === "command_output" || event.stream === "file_change_output") {
        return [
          {
            type: "tool_execution_update",
            toolUseId: event.item_id,
            partialOutput: event.delta,
            payload,
          },
        ];
      }
      return [];
    case "error":
      // codex retrying is a warning; an error it gives up on is reported now (the turn then fails).
      return event.will_retry
        ? [notice("warn", "retrying", event.message, payload)]
        : [notice("error", "error", event.message, payload)];
    case "notice":
      return [notice("warn", event.code, event.message, payload)];
    case "notification":
      return fromNotification(event.method, event.params, payload);
    case "approval.resolved":
      // Who or what decided (e.g. "approved by Alice, Bob in the channels runtime"), for hosts
      // and the fleet's events, which carry no approval events of their own.
      return event.reason === undefined
        ? []
        : [notice(declined(event.decision) ? "warn" : "info", "approval", event.reason, payload)];
    case "thread.started":
    case "item.updated":
    case "usage.updated":
    case "approval.requested":
      return [];
    default:
      everyCaseHandled(event);
      return [];
  }
}

function turnIdOf(event: { turn_id?: string }): { turnId?: string } {
  return event.turn_id === undefined ? {} : { turnId: event.turn_id };
}

function turnEnd(
  turnId: string | undefined,
  state: UnifiedTurnState,
  outcome: Pick<TurnArtifacts, "status" | "error">,
  raw: unknown,
): UnifiedSessionEvent {
  return {
    type: "turn_end",
    ...(turnId === undefined ? {} : { turnId }),
    payload: {
      ...outcome,
      ...(state.diff === undefined ? {} : { diff: state.diff }),
      ...(state.plan === undefined ? {} : { plan: state.plan }),
      raw,
    },
  };
}

/** Whether an approval's decision said no (declined, or cancelled the turn). */
function declined(decision: unknown): boolean {
  return decision === "decline" || decision === "cancel";
}

function notice(
  level: SessionNoticeEvent["level"],
  code: string,
  message: string,
  payload: unknown,
): SessionNoticeEvent {
  return { type: "notice", level, code, message, payload };
}

function fromNotification(
  method: string,
  params: unknown,
  payload: unknown,
): UnifiedSessionEvent[] {
  const p = (params ?? {}) as Record<string, unknown>;
  if (method === "item/mcpToolCall/progress" && typeof p.itemId === "string") {
    return [
      {
        type: "tool_execution_update",
        toolUseId: p.itemId,
        message: typeof p.message === "string" ? p.message : "",
        payload,
      },
    ];
  }
  const code = NOTICE_METHODS[method];
  if (code === undefined) return [];
  const text = [p.message, p.summary, p.details].filter(
    (part): part is string => typeof part === "string" && part !== "",
  );
  return [notice("warn", code, text.join(": ") || method, payload)];
}

/** The unified tool name of an item, or undefined when the item is not a tool. */
export function toolNameOf(item: ExtendedThreadItem): string | undefined {
  switch (item.type) {
    case "command_execution":
    case "file_change":
    case "web_search":
    case "image_view":
      return item.type;
    case "mcp_tool_call":
      return `mcp:${item.server}/${item.tool}`;
    case "dynamic_tool_call":
      return `dynamic:${item.namespace ? `${item.namespace}/` : ""}${item.tool}`;
    default:
      return undefined;
  }
}

function toolInput(item: ExtendedThreadItem): Record<string, unknown> {
  switch (item.type) {
    case "command_execution":
      return { command: item.command, ...(item.cwd === undefined ? {} : { cwd: item.cwd }) };
    case "file_change":
      return { changes: item.changes };
    case "mcp_tool_call":
      return { server: item.server, tool: item.tool, arguments: item.arguments };
    case "dynamic_tool_call":
      return { tool: item.tool, arguments: item.arguments };
    case "web_search":
      return { query: item.query };
    case "image_view":
      return { path: item.path };
    default:
      return {};
  }
}

function itemStarted(item: ExtendedThreadItem, payload: unknown): UnifiedSessionEvent[] {
  if (item.type === "agent_message") {
    return [
      {
        type: "message_start",
        messageId: item.id,
        message: { role: "assistant", content: "" },
        payload,
      },
    ];
  }
  const toolName = toolNameOf(item);
  if (toolName === undefined) return [];
  return [
    { type: "tool_execution_start", toolUseId: item.id, toolName, input: toolInput(item), payload },
  ];
}

function itemCompleted(item: ExtendedThreadItem, payload: unknown): UnifiedSessionEvent[] {
  if (item.type === "agent_message") {
    return [
      {
        type: "message_end",
        messageId: item.id,
        message: { role: "assistant", content: item.text },
        payload,
      },
    ];
  }
  if (item.type === "error") return [notice("warn", "warning", item.message, payload)];
  const toolName = toolNameOf(item);
  if (toolName === undefined) return [];
  const { text, isError, durationMs, details } = toolOutcome(item);
  return [
    {
      type: "tool_execution_end",
      toolUseId: item.id,
      toolName,
      result: textResult(text, details),
      ...(isError ? { isError: true } : {}),
      ...(typeof durationMs === "number" ? { durationMs } : {}),
      payload,
    },
  ];
}

interface ToolOutcome {
  text: string;
  isError: boolean;
  durationMs?: number | null | undefined;
  details?: Record<string, unknown>;
}

function toolOutcome(item: ExtendedThreadItem): ToolOutcome {
  switch (item.type) {
    case "command_execution":
      return {
        text: item.aggregated_output,
        isError:
          item.status === "failed" ||
          item.status === "declined" ||
          (typeof item.exit_code === "number" && item.exit_code !== 0),
        durationMs: item.duration_ms,
        details: { exitCode: item.exit_code ?? null, status: item.status },
      };
    case "file_change":
      return {
        text: JSON.stringify(item.changes, null, 2),
        isError: item.status === "failed" || item.status === "declined",
        details: { status: item.status },
      };
    case "mcp_tool_call": {
      const output = item.error?.message ?? item.result ?? "";
      return {
        text: typeof output === "string" ? output : JSON.stringify(output, null, 2),
        isError: item.error !== undefined || item.status === "failed",
        durationMs: item.duration_ms,
        details: { status: item.status },
      };
    }
    case "dynamic_tool_call":
      return {
        text: JSON.stringify(item.content_items ?? [], null, 2),
        isError: item.status === "failed" || item.success === false,
        durationMs: item.duration_ms,
        details: { status: item.status },
      };
    case "web_search":
      return { text: `web_search: ${item.query}`, isError: false };
    case "image_view":
      return { text: `image_view: ${item.path}`, isError: false };
    default:
      return { text: "", isError: false };
  }
}

function textResult(text: string, details?: Record<string, unknown>): ToolResult {
  return { content: [{ type: "text", text }], ...(details ? { details } : {}) };
}
