// A codex turn as ACP `session/update`s: the answer and the reasoning as chunks, commands, file
// changes (as diffs), MCP calls and searches as tool calls with their updates, codex's plan as a
// plan, its warnings as notices. One mapper per turn, on its session's view (what the editor was
// shown already); the same extended events the SDK yields, no second reading of codex.
import type * as acp from "@agentclientprotocol/sdk";
import { IN_CHANNELS } from "../channels/bridge.js";
import { commandLine } from "../channels/titles.js";
import { toCanonicalItem } from "../events/items.js";
import { isRefusal } from "../events/refusals.js";
import type { ExtendedThreadEvent, ExtendedThreadItem } from "../events/types.js";
import { commandEnded, terminalOutput, terminalStart } from "./command-output.js";
import { SessionView } from "./session-view.js";

/** What a turn's events said, besides its updates: how it ended. */
export type TurnEnd =
  | { kind: "completed" }
  | { kind: "interrupted" }
  /** The conversation no longer fits the model's context window (ACP's `max_tokens`). */
  | { kind: "context_full" }
  /** The model declined the request on policy grounds (ACP's `refusal`). */
  | { kind: "refused"; message: string }
  | { kind: "failed"; message: string };

const capitalised = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** codex's notifications that warn (shown in the chat as notices, once per session). */
const WARNINGS = new Set(["warning", "guardianWarning", "configWarning", "deprecationNotice"]);

/** A warning notification's words: `message`, or `summary` with its `details`. */
export function warningText(method: string, params: unknown): string | undefined {
  if (!WARNINGS.has(method)) return undefined;
  const { message, summary, details } = (params ?? {}) as Record<string, unknown>;
  if (typeof message === "string") return message;
  if (typeof summary !== "string") return undefined;
  return typeof details === "string" && details !== "" ? `${summary}\n${details}` : summary;
}

/** Maps one turn's events to ACP session updates, in order. */
export class TurnUpdates {
  /** Items whose text already went out as deltas (their completion repeats nothing). */
  private readonly streamed = new Set<string>();
  /** Each command's output streamed to its terminal so far (terminal mode). */
  private readonly output = new Map<string, string>();
  /** The end of the turn, once its last event came. */
  end: TurnEnd | undefined;
  /** The tool call of the review the turn runs, if it is one. */
  private review: string | undefined;

  /** `view`: the session's (a replay's by default: nothing read from disk). */
  constructor(private readonly view: SessionView = SessionView.replay()) {}

  /** The updates one event makes (often none). */
  map(event: ExtendedThreadEvent): acp.SessionUpdate[] {
    switch (event.type) {
      case "item.delta":
        if (event.stream === "agent_message") {
          this.streamed.add(event.item_id);
          return [chunk("agent_message_chunk", event.delta, event.item_id)];
        }
        if (event.stream === "reasoning" || event.stream === "reasoning_summary") {
          this.streamed.add(event.item_id);
          return [chunk("agent_thought_chunk", event.delta, event.item_id)];
        }
        // Output of a call the editor has not been shown is left to the end's whole output.
        if (
          event.stream === "command_output" &&
          this.view.terminal &&
          this.view.has(event.item_id)
        ) {
          const before = this.output.get(event.item_id) ?? "";
          this.output.set(event.item_id, before + event.delta);
          return [terminalOutput(this.view.terminal, event.item_id, event.delta)];
        }
        return [];
      case "item.started":
        if (event.item.type === "entered_review_mode") this.review = event.item.id;
        return this.started(event.item);
      case "item.completed":
        // A tool call's end never comes before the call: one that never started starts now.
        return [
          ...(this.view.has(event.item.id) ? [] : this.started(event.item)),
          ...this.completed(event.item),
        ];
      case "turn.plan.updated":
        return [
          {
            sessionUpdate: "plan",
            entries: event.plan.map((step) => ({
              content: step.step,
              priority: "medium",
              status:
                step.status === "completed"
                  ? "completed"
                  : step.status === "in_progress"
                    ? "in_progress"
                    : "pending",
            })),
          },
        ];
      case "usage.updated":
        // ACP's usage is how full the context is: the last request's tokens, of the window.
        return event.model_context_window === null
          ? []
          : [
              {
                sessionUpdate: "usage_update",
                used: event.last.input_tokens + event.last.output_tokens,
                size: event.model_context_window,
              },
            ];
      case "approval.resolved":
        // Answered by someone else than the editor (the inbox, a chat): who, as the runtime says.
        return event.reason?.endsWith(IN_CHANNELS)
          ? [
              chunk(
                "agent_thought_chunk",
                `${capitalised(event.reason)}.\n`,
                `approval-${String(event.request_id)}`,
              ),
            ]
          : [];
      case "notification":
        return this.notice(warningText(event.method, event.params));
      case "error":
        // codex retries by itself (a failure ends the turn as an error instead).
        return event.will_retry ? this.notice(`${event.message} (codex retries)`) : [];
      case "notice":
        return this.notice(event.message);
      case "turn.completed":
        this.end = event.status === "interrupted" ? { kind: "interrupted" } : { kind: "completed" };
        return [];
      case "turn.failed": {
        const reason = event.error.codex_error_info;
        const { message } = event.error;
        if (reason === "contextWindowExceeded") this.end = { kind: "context_full" };
        // codex's reasons that mean the model refused (src/events/refusals.ts): ACP's `refusal`.
        else if (isRefusal(reason)) {
          this.end = { kind: "refused", message };
          // Said, so the editor shows why there is no answer.
          return [chunk("agent_message_chunk", message, `refusal-${event.turn_id ?? ""}`)];
        } else this.end = { kind: "failed", message };
        return [];
      }
      default:
        return [];
    }
  }

  private notice(text: string | undefined): acp.SessionUpdate[] {
    const update = text === undefined ? undefined : this.view.notice(text);
    return update ? [update] : [];
  }

  /**
   * The tool call an item starts; an update of it when the editor has it already (sent before a
   * permission request about it).
   */
  private started(item: ExtendedThreadItem): acp.SessionUpdate[] {
    const call = toolCallOf(item, this.view);
    if (!call) return [];
    if (this.view.sent(call.toolCallId)) {
      return [{ ...call, sessionUpdate: "tool_call_update", status: "in_progress" }];
    }
    return [{ sessionUpdate: "tool_call", ...call, status: "in_progress" }];
  }

  private completed(item: ExtendedThreadItem): acp.SessionUpdate[] {
    switch (item.type) {
      case "agent_message":
        return this.streamed.has(item.id) || item.text === ""
          ? []
          : [chunk("agent_message_chunk", item.text, item.id)];
      case "reasoning":
        return this.streamed.has(item.id) || item.text === ""
          ? []
          : [chunk("agent_thought_chunk", item.text, item.id)];
      case "command_execution": {
        const streamed = this.output.get(item.id) ?? "";
        this.output.delete(item.id);
        return [commandEnded(item, this.view.terminal, streamed)];
      }
      case "file_change": {
        // Applied: the diff of the files as they are now (the texts kept since are let go).
        const content = this.view.fileContent(item.id, item.changes, true);
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: item.id,
            status: item.status === "completed" ? "completed" : "failed",
            ...(item.status === "completed" ? { content } : {}),
            rawOutput: { status: item.status },
          },
        ];
      }
      case "mcp_tool_call":
      case "web_search":
      case "dynamic_tool_call":
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: item.id,
            status: "status" in item && item.status === "failed" ? "failed" : "completed",
          },
        ];
      case "exited_review_mode":
        // The review's text follows as the turn's answer; its tool call ends here.
        return this.review === undefined
          ? []
          : [{ sessionUpdate: "tool_call_update", toolCallId: this.review, status: "completed" }];
      case "context_compaction":
        return [
          chunk(
            "agent_message_chunk",
            "The conversation was compacted: from here on codex works from its summary.",
            item.id,
          ),
        ];
      default:
        return [];
    }
  }
}

/**
 * An item as an ACP tool call (title, kind, what it will do), or undefined for other items: a file
 * change's diffs and a command's terminal as `view` shows them.
 */
export function toolCallOf(item: ExtendedThreadItem, view: SessionView): acp.ToolCall | undefined {
  switch (item.type) {
    case "command_execution":
      return {
        toolCallId: item.id,
        title: commandLine(item.command),
        kind: "execute",
        rawInput: { command: item.command, ...(item.cwd ? { cwd: item.cwd } : {}) },
        ...(view.terminal ? terminalStart(item.id, item.cwd) : {}),
      };
    case "file_change":
      return fileChangeCall(item.id, item.changes, view);
    case "mcp_tool_call":
      return {
        toolCallId: item.id,
        title: `${item.server}/${item.tool}`,
        kind: "other",
        rawInput: item.arguments ?? null,
      };
    case "web_search":
      return { toolCallId: item.id, title: `Search: ${item.query}`, kind: "fetch" };
    case "dynamic_tool_call":
      return { toolCallId: item.id, title: item.tool, kind: "other" };
    case "entered_review_mode":
      return { toolCallId: item.id, title: `Review: ${item.review}`, kind: "read" };
    default:
      return undefined;
  }
}

/** File changes as a tool call: each file's diff, where it is (a move: where it goes). */
export function fileChangeCall(
  id: string,
  changes: Parameters<SessionView["fileContent"]>[1],
  view: SessionView,
): acp.ToolCall {
  const content = view.fileContent(id, changes);
  const paths = content.flatMap((part) => (part.type === "diff" ? [part.path] : []));
  const named = changes.map((change) => change.path);
  return {
    toolCallId: id,
    title: `Edit ${(paths.length === changes.length ? paths : named).join(", ") || "files"}`,
    kind: "edit",
    content,
    locations: (paths.length === changes.length ? paths : named).map((file) => ({ path: file })),
  };
}

function chunk(
  kind: "agent_message_chunk" | "agent_thought_chunk",
  value: string,
  messageId: string,
): acp.SessionUpdate {
  return { sessionUpdate: kind, content: { type: "text", text: value }, messageId };
}

/** A tool call's text content. */
export function textContent(value: string): acp.ToolCallContent {
  return { type: "content", content: { type: "text", text: value } };
}

/**
 * A saved thread's items (codex's `thread/read` with its turns) as the updates that show them
 * again: the person's messages, the answers and reasoning, each tool call as it ended.
 */
export function replayUpdates(
  turns: readonly { items: readonly unknown[] }[],
): acp.SessionUpdate[] {
  const updates: acp.SessionUpdate[] = [];
  for (const turn of turns) {
    const mapper = new TurnUpdates(SessionView.replay());
    for (const wire of turn.items) {
      const raw = wire as {
        type?: string;
        id?: string;
        content?: { type?: string; text?: string }[];
      };
      if (raw.type === "userMessage") {
        for (const part of raw.content ?? []) {
          if (part.type === "text" && typeof part.text === "string") {
            updates.push({
              sessionUpdate: "user_message_chunk",
              content: { type: "text", text: part.text },
              ...(raw.id ? { messageId: raw.id } : {}),
            });
          }
        }
        continue;
      }
      const item = toCanonicalItem(wire as Parameters<typeof toCanonicalItem>[0]);
      if (!item) continue;
      updates.push(
        ...mapper.map({ type: "item.started", item } as ExtendedThreadEvent),
        ...mapper.map({ type: "item.completed", item } as ExtendedThreadEvent),
      );
    }
  }
  return updates;
}
