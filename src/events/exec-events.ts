// Maps `codex exec --experimental-json` JSONL objects to extended events (pure functions).
import { everyCaseHandled } from "./exhaustive.js";
import { type WithRaw, withRaw } from "./raw.js";
import type { ThreadEvent } from "./sdk-types.js";
import type {
  ExtendedThreadEvent,
  ExtendedThreadItem,
  ExtendedTurnCompletedEvent,
  ExtendedTurnFailedEvent,
  Usage,
} from "./types.js";
import { isObject } from "./wire-values.js";

/** The item types `codex exec` and `@openai/codex-sdk` share; others become `notification`s. */
export const EXEC_ITEM_TYPES: ReadonlySet<string> = new Set([
  "agent_message",
  "reasoning",
  "command_execution",
  "file_change",
  "mcp_tool_call",
  "web_search",
  "todo_list",
  "error",
]);

const USAGE_FIELDS = [
  "input_tokens",
  "cached_input_tokens",
  "cache_write_input_tokens",
  "output_tokens",
  "reasoning_output_tokens",
] as const;

/**
 * The extended events for one parsed exec JSONL line; each keeps `line` as its non-enumerable
 * `raw`. exec already prints the official shapes, so fields are kept as they are; added are
 * `thread_id` (the line's own for `thread.started`, else `threadId` when known), `status:
 * "completed"` and missing usage counts (`cache_write_input_tokens`, …) as 0 on `turn.completed`.
 * Unknown event types, and item events whose item type is unknown, become `notification`
 * events (`method` is the line's `type`, `params` the line). Never throws.
 */
export function execLineToEvents(line: unknown, threadId?: string): WithRaw<ExtendedThreadEvent>[] {
  if (!isObject(line) || typeof line.type !== "string") {
    return [notification("unknown", line, threadId)];
  }
  const scope = threadId === undefined ? {} : { thread_id: threadId };
  const event = (value: ExtendedThreadEvent): WithRaw<ExtendedThreadEvent>[] => [
    withRaw(value, line),
  ];
  // exec prints the official SDK's events; a type a newer codex adds falls through to `notification`.
  const type = line.type as ThreadEvent["type"];
  switch (type) {
    case "thread.started": {
      const id = typeof line.thread_id === "string" && line.thread_id ? line.thread_id : threadId;
      if (id === undefined) break;
      return event({ ...line, type: "thread.started", thread_id: id });
    }
    case "turn.started":
      return event({ ...line, ...scope, type: "turn.started" });
    case "turn.completed":
      return event({
        ...line,
        ...scope,
        type: "turn.completed",
        usage: toUsage(line.usage),
        status: "completed",
      } as ExtendedTurnCompletedEvent);
    case "turn.failed": {
      const error = isObject(line.error) ? line.error : {};
      return event({
        ...line,
        ...scope,
        type: "turn.failed",
        error: { ...error, message: messageOf(error.message, "codex exec reported a failed turn") },
      } as ExtendedTurnFailedEvent);
    }
    case "item.started":
    case "item.updated":
    case "item.completed": {
      const item = line.item;
      if (!isObject(item) || typeof item.type !== "string" || !EXEC_ITEM_TYPES.has(item.type)) {
        break;
      }
      return event({
        ...line,
        ...scope,
        type,
        item: { ...item } as unknown as ExtendedThreadItem,
      });
    }
    case "error":
      return event({
        ...line,
        ...scope,
        type: "error",
        message: messageOf(line.message, "codex exec reported an error"),
      });
    default:
      everyCaseHandled(type);
  }
  return [notification(line.type, line, threadId)];
}

/** The thread id a line announces (`thread.started`), if it is one. */
export function execThreadIdOf(line: unknown): string | undefined {
  return isObject(line) && line.type === "thread.started" && typeof line.thread_id === "string"
    ? line.thread_id || undefined
    : undefined;
}

function toUsage(value: unknown): Usage {
  const usage: Record<string, unknown> = isObject(value) ? { ...value } : {};
  for (const field of USAGE_FIELDS) {
    if (typeof usage[field] !== "number") usage[field] = 0;
  }
  return usage as unknown as Usage;
}

function notification(method: string, line: unknown, threadId: string | undefined) {
  return withRaw<ExtendedThreadEvent>(
    {
      type: "notification",
      ...(threadId === undefined ? {} : { thread_id: threadId }),
      method,
      params: line,
    },
    line,
  );
}

function messageOf(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}
