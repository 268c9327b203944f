// Normalises app-server thread items (camelCase unions) into the extended snake_case items.
import type { ThreadItem as WireThreadItem } from "../protocol/generated/ts/v2/ThreadItem.js";
import type {
  ExtendedCommandExecutionItem,
  ExtendedFileChangeItem,
  ExtendedFileUpdateChange,
  ExtendedMcpToolCallItem,
  ExtendedThreadItem,
} from "./types.js";
import { str, strings, type Wire } from "./wire-values.js";

/** Wire statuses are camelCase (`inProgress`); canonical ones are snake_case. */
export function snakeStatus<T extends string>(status: string): T {
  return status.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`) as T;
}

/**
 * The extended item for a wire item, or `undefined` for items that are not part of the event
 * model (the user's own message echoed back) and for item types this version does not know —
 * those reach the caller as `notification` events.
 */
export function toCanonicalItem(wire: WireThreadItem | Wire): ExtendedThreadItem | undefined {
  const item = wire as Wire;
  const id = String(item.id ?? "");
  switch (item.type) {
    case "agentMessage":
      return {
        id,
        type: "agent_message",
        text: str(item.text),
        phase: (item.phase as string | null) ?? null,
      };
    case "reasoning": {
      const summary = strings(item.summary);
      const content = strings(item.content);
      return {
        id,
        type: "reasoning",
        text: (summary.length > 0 ? summary : content).join("\n"),
        summary,
        content,
      };
    }
    case "commandExecution":
      return commandExecution(id, item);
    case "fileChange":
      return fileChange(id, item);
    case "mcpToolCall":
      return mcpToolCall(id, item);
    case "webSearch":
      return { id, type: "web_search", query: str(item.query), action: item.action ?? null };
    case "imageView":
      return { id, type: "image_view", path: str(item.path) };
    case "dynamicToolCall":
      return {
        id,
        type: "dynamic_tool_call",
        tool: str(item.tool),
        namespace: (item.namespace as string | null) ?? null,
        arguments: item.arguments ?? null,
        status: snakeStatus(str(item.status)),
        content_items: (item.contentItems as unknown[] | null) ?? null,
        success: (item.success as boolean | null) ?? null,
        duration_ms: (item.durationMs as number | null) ?? null,
      };
    case "plan":
      return { id, type: "plan", text: str(item.text) };
    case "enteredReviewMode":
      return { id, type: "entered_review_mode", review: str(item.review) };
    case "exitedReviewMode":
      return { id, type: "exited_review_mode", review: str(item.review) };
    case "contextCompaction":
      return { id, type: "context_compaction" };
    default:
      return undefined;
  }
}

function commandExecution(id: string, item: Wire): ExtendedCommandExecutionItem {
  const exitCode = item.exitCode as number | null | undefined;
  return {
    id,
    type: "command_execution",
    command: str(item.command),
    aggregated_output: str(item.aggregatedOutput),
    ...(exitCode === undefined || exitCode === null ? {} : { exit_code: exitCode }),
    status: snakeStatus(str(item.status)),
    cwd: str(item.cwd),
    process_id: (item.processId as string | null) ?? null,
    command_actions: (item.commandActions as unknown[] | undefined) ?? [],
    duration_ms: (item.durationMs as number | null) ?? null,
    source: str(item.source),
  };
}

function fileChange(id: string, item: Wire): ExtendedFileChangeItem {
  const changes = Array.isArray(item.changes) ? (item.changes as Wire[]) : [];
  return {
    id,
    type: "file_change",
    changes: changes.map((change): ExtendedFileUpdateChange => {
      const kind = (change.kind ?? {}) as Wire;
      const kindName = (
        typeof kind === "string" ? kind : str(kind.type)
      ) as ExtendedFileUpdateChange["kind"];
      return {
        path: str(change.path),
        kind: kindName,
        diff: str(change.diff),
        ...(kindName === "update" ? { move_path: (kind.move_path as string | null) ?? null } : {}),
      };
    }),
    status: snakeStatus(str(item.status)),
  };
}

function mcpToolCall(id: string, item: Wire): ExtendedMcpToolCallItem {
  const result = item.result as Wire | null | undefined;
  const error = item.error as Wire | null | undefined;
  return {
    id,
    type: "mcp_tool_call",
    server: str(item.server),
    ...("environmentId" in item
      ? { environment_id: (item.environmentId as string | null | undefined) ?? null }
      : {}),
    tool: str(item.tool),
    arguments: item.arguments ?? null,
    ...(result
      ? {
          result: {
            content: (result.content as unknown[]) ?? [],
            structured_content: result.structuredContent ?? null,
            _meta: result._meta ?? null,
          },
        }
      : {}),
    ...(error ? { error: { message: str(error.message) } } : {}),
    status: snakeStatus(str(item.status)),
    duration_ms: (item.durationMs as number | null) ?? null,
  };
}
