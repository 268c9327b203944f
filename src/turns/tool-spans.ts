// The execute_tool span of a tool item: its name, type and attributes (GenAI conventions v1.41.1).
import { everyCaseHandled } from "../events/exhaustive.js";
import type { ExtendedThreadItem } from "../events/types.js";
import type { Attributes } from "../telemetry/otel-types.js";
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_MCP_SERVER,
  ATTR_PROCESS_EXIT_CODE,
  ATTR_TOOL_DURATION_MS,
  ATTR_TOOL_STATUS,
  GEN_AI_OPERATION_EXECUTE_TOOL,
  GEN_AI_TOOL_TYPE_EXTENSION,
  GEN_AI_TOOL_TYPE_FUNCTION,
} from "../telemetry/semconv.js";

/** The most of a tool's arguments or result recorded (with `recordContent`), in characters. */
export const MAX_CONTENT_CHARS = 8 * 1024;

/** `error.type` of a tool item that ended `failed` (a command's non-zero exit, a failed call). */
export const TOOL_FAILED = "tool_failed";

/** What an item's execute_tool span starts with. */
export interface ToolStart {
  /** The span's name: `execute_tool {gen_ai.tool.name}`. */
  name: string;
  attributes: Attributes;
}

/** How a tool item ended: attributes to add, and the error type when it failed. */
export interface ToolEnd {
  attributes: Attributes;
  errorType?: string;
  /** codex's own measure of the tool's run, when it gave one. */
  durationMs?: number;
}

/** The span start of a tool item (commands, file changes, MCP and dynamic tools, web search, images); undefined for other items. */
export function toolStart(item: ExtendedThreadItem): ToolStart | undefined {
  let tool: string;
  let type = GEN_AI_TOOL_TYPE_EXTENSION;
  const extra: Attributes = {};
  switch (item.type) {
    case "command_execution":
      tool = "exec_command";
      break;
    case "file_change":
      tool = "apply_patch";
      break;
    case "mcp_tool_call":
      tool = item.tool;
      extra[ATTR_MCP_SERVER] = item.server;
      break;
    case "dynamic_tool_call":
      tool = item.tool;
      type = GEN_AI_TOOL_TYPE_FUNCTION;
      break;
    case "web_search":
      tool = "web_search";
      break;
    case "image_view":
      tool = "view_image";
      break;
    case "agent_message":
    case "reasoning":
    case "todo_list":
    case "error":
    case "plan":
    case "entered_review_mode":
    case "exited_review_mode":
    case "context_compaction":
      return undefined;
    default:
      everyCaseHandled(item);
      return undefined;
  }
  return {
    name: `${GEN_AI_OPERATION_EXECUTE_TOOL} ${tool}`,
    attributes: {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_EXECUTE_TOOL,
      [ATTR_GEN_AI_TOOL_NAME]: tool,
      [ATTR_GEN_AI_TOOL_TYPE]: type,
      [ATTR_GEN_AI_TOOL_CALL_ID]: item.id,
      ...extra,
    },
  };
}

/** How a completed tool item ended; `recordContent` adds its arguments and result. */
export function toolEnd(item: ExtendedThreadItem, recordContent: boolean): ToolEnd {
  const attributes: Attributes = {};
  let status: string | undefined;
  let durationMs: number | null | undefined;
  let content: { arguments: unknown; result?: unknown } | undefined;
  switch (item.type) {
    case "command_execution":
      status = item.status;
      durationMs = item.duration_ms;
      if (typeof item.exit_code === "number") attributes[ATTR_PROCESS_EXIT_CODE] = item.exit_code;
      if (recordContent) {
        content = { arguments: { command: item.command }, result: item.aggregated_output };
      }
      break;
    case "file_change":
      status = item.status;
      if (recordContent) {
        content = {
          arguments: { changes: item.changes.map(({ path, kind }) => ({ path, kind })) },
        };
      }
      break;
    case "mcp_tool_call":
      status = item.status;
      durationMs = item.duration_ms;
      if (recordContent) content = { arguments: item.arguments, result: item.result ?? item.error };
      break;
    case "dynamic_tool_call":
      status = item.status;
      durationMs = item.duration_ms;
      if (recordContent) content = { arguments: item.arguments, result: item.content_items };
      break;
    case "web_search":
      if (recordContent) content = { arguments: { query: item.query } };
      break;
    case "image_view":
      if (recordContent) content = { arguments: { path: item.path } };
      break;
    default:
      break;
  }
  if (status === "declined") attributes[ATTR_TOOL_STATUS] = "declined";
  if (typeof durationMs === "number") attributes[ATTR_TOOL_DURATION_MS] = durationMs;
  if (content) {
    attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = clip(json(content.arguments));
    if (content.result !== undefined && content.result !== null) {
      attributes[ATTR_GEN_AI_TOOL_CALL_RESULT] = clip(
        typeof content.result === "string" ? content.result : json(content.result),
      );
    }
  }
  if (status === "failed") attributes[ATTR_ERROR_TYPE] = TOOL_FAILED;
  return {
    attributes,
    ...(status === "failed" ? { errorType: TOOL_FAILED } : {}),
    ...(typeof durationMs === "number" ? { durationMs } : {}),
  };
}

/** At most {@link MAX_CONTENT_CHARS} characters of `text`. */
export function clip(text: string): string {
  return text.length <= MAX_CONTENT_CHARS ? text : `${text.slice(0, MAX_CONTENT_CHARS)}…`;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return String(value);
  }
}
