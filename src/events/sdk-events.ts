// Projects a turn's extended events onto exactly what @openai/codex-sdk yields (`events: "sdk"`).
import { snakeStatus } from "./items.js";
import { type WithRaw, withRaw } from "./raw.js";
import type {
  FileUpdateChange,
  ThreadEvent,
  ThreadItem,
  TodoItem,
  TodoListItem,
} from "./sdk-types.js";
import type { ExtendedThreadEvent } from "./types.js";
import { asWire, isObject, str, strings, type Wire } from "./wire-values.js";

/** Turns one turn's extended events into the official ones. One projector per turn. */
export interface SdkEventProjector {
  project(event: WithRaw<ExtendedThreadEvent>): ThreadEvent[];
}

/**
 * The projector for a transport. exec: the official SDK yields `codex exec`'s JSONL objects as
 * parsed, so each event's own line is yielded as it is. app-server: the notifications are mapped
 * as `codex exec` itself maps them (it runs app-server in process), with item ids `item_0, item_1,
 * …` numbered per turn.
 */
export function sdkEventProjector(transport: "app-server" | "exec"): SdkEventProjector {
  return transport === "exec" ? new ExecLineProjector() : new AppServerSdkProjector();
}

class ExecLineProjector implements SdkEventProjector {
  project(event: WithRaw<ExtendedThreadEvent>): ThreadEvent[] {
    // Events exec did not print (made by the transport) have no line: the SDK has no such event.
    const line = event.raw;
    return isObject(line) ? [line as unknown as ThreadEvent] : [];
  }
}

/** Mirrors codex exec's JSONL event processor (codex 0.169.0) over app-server notifications. */
class AppServerSdkProjector implements SdkEventProjector {
  private nextId = 0;
  /** codex's item id -> the `item_N` given when the item started. */
  private readonly startedIds = new Map<string, string>();
  private todoList: TodoListItem | undefined;
  private lastError: string | undefined;
  private lastNotification: unknown;

  project(event: WithRaw<ExtendedThreadEvent>): ThreadEvent[] {
    if (event.type === "item.delta") return [];
    if (event.type === "thread.started")
      return [{ type: "thread.started", thread_id: event.thread_id }];
    const notification = event.raw as { method?: unknown; params?: unknown } | undefined;
    if (!isObject(notification) || typeof notification.method !== "string") {
      // Made by the transport, not codex: a failure it saw (e.g. the process died) or an error.
      if (event.type === "turn.failed") return [failed(event.error.message)];
      if (event.type === "error") return [{ type: "error", message: event.message }];
      return [];
    }
    const params = asWire(notification.params);
    if (notification.method === "turn/completed") {
      // The extended stream makes several events of it; the last one carries the turn's usage.
      return event.type === "turn.completed" || event.type === "turn.failed"
        ? this.turnCompleted(params, event)
        : [];
    }
    // One notification can make several extended events (a plan update): project it once.
    if (notification === this.lastNotification) return [];
    this.lastNotification = notification;
    switch (notification.method) {
      case "turn/started":
        return [{ type: "turn.started" }];
      case "item/started":
        return this.itemStarted(asWire(params.item));
      case "item/completed":
        return this.itemCompleted(asWire(params.item));
      case "item/fileChange/patchUpdated": {
        const itemId = String(params.itemId ?? "");
        const item = mapItem(
          { ...params, id: itemId, type: "fileChange", status: "inProgress" },
          () => this.startedId(itemId),
        );
        return item ? [{ type: "item.updated", item }] : [];
      }
      case "turn/plan/updated":
        return this.planUpdated(params);
      case "error": {
        const error = asWire(params.error);
        this.lastError = withDetails(str(error.message), error.additionalDetails);
        return [{ type: "error", message: this.lastError }];
      }
      case "warning":
        return [this.errorItem(str(params.message))];
      case "configWarning":
      case "deprecationNotice":
        return [this.errorItem(withDetails(str(params.summary), params.details))];
      case "model/rerouted":
        return [
          this.errorItem(
            `model rerouted: ${str(params.fromModel)} -> ${str(params.toModel)} (${pascal(str(params.reason))})`,
          ),
        ];
    }
    return [];
  }

  private itemStarted(wire: Wire): ThreadEvent[] {
    // Messages and reasoning appear only when complete.
    if (wire.type === "agentMessage" || wire.type === "reasoning") return [];
    const rawId = str(wire.id);
    const alreadyStarted = wire.type === "fileChange" && this.startedIds.has(rawId);
    const item = mapItem(wire, () => this.startedId(rawId));
    if (!item) return [];
    return [{ type: alreadyStarted ? "item.updated" : "item.started", item }];
  }

  private itemCompleted(wire: Wire): ThreadEvent[] {
    const item = this.completedItem(wire);
    return item ? [{ type: "item.completed", item }] : [];
  }

  private completedItem(wire: Wire): ThreadItem | undefined {
    if (wire.type === "agentMessage" || wire.type === "reasoning") {
      return mapItem(wire, () => this.newId());
    }
    const rawId = str(wire.id);
    return mapItem(wire, () => {
      const id = this.startedIds.get(rawId) ?? this.newId();
      this.startedIds.delete(rawId);
      return id;
    });
  }

  private planUpdated(params: Wire): ThreadEvent[] {
    const steps = Array.isArray(params.plan) ? params.plan.map(asWire) : [];
    const items: TodoItem[] = steps.map((step) => ({
      text: str(step.step),
      completed: step.status === "completed",
    }));
    if (this.todoList) {
      this.todoList = { ...this.todoList, items };
      return [{ type: "item.updated", item: this.todoList }];
    }
    this.todoList = { id: this.newId(), type: "todo_list", items };
    return [{ type: "item.started", item: this.todoList }];
  }

  private turnCompleted(params: Wire, event: WithRaw<ExtendedThreadEvent>): ThreadEvent[] {
    const events: ThreadEvent[] = [];
    if (this.todoList) events.push({ type: "item.completed", item: this.todoList });
    this.todoList = undefined;
    // Items codex started but never reported complete are completed from the turn's own list.
    const turn = asWire(params.turn);
    const turnItems = Array.isArray(turn.items) ? turn.items.map(asWire) : [];
    for (const wire of turnItems) {
      if (!this.startedIds.has(str(wire.id))) continue;
      const item = this.completedItem(wire);
      if (item) events.push({ type: "item.completed", item });
    }
    if (event.type === "turn.completed") {
      // An interrupted turn ends without an event, as in codex exec.
      if (event.status !== "interrupted")
        events.push({ type: "turn.completed", usage: event.usage });
      return events;
    }
    const error = isObject(turn.error) ? turn.error : undefined;
    const message = error
      ? withDetails(str(error.message), error.additionalDetails)
      : (this.lastError ?? "turn failed");
    // The official event keeps codex's message (non-enumerable), so that a refusal can be told
    // from another failure (`codexErrorInfo`, see src/events/refusals.ts).
    events.push(withRaw(failed(message), event.raw));
    return events;
  }

  private errorItem(message: string): ThreadEvent {
    return { type: "item.completed", item: { id: this.newId(), type: "error", message } };
  }

  private startedId(rawId: string): string {
    let id = this.startedIds.get(rawId);
    if (id === undefined) {
      id = this.newId();
      this.startedIds.set(rawId, id);
    }
    return id;
  }

  private newId(): string {
    return `item_${this.nextId++}`;
  }
}

/** The official item for an app-server item, or undefined for kinds codex exec leaves out. */
function mapItem(wire: Wire, makeId: () => string): ThreadItem | undefined {
  switch (wire.type) {
    case "agentMessage":
      return { id: makeId(), type: "agent_message", text: str(wire.text) };
    case "reasoning": {
      const text = strings(wire.summary).join("\n");
      return text.trim() === "" ? undefined : { id: makeId(), type: "reasoning", text };
    }
    case "commandExecution":
      return {
        id: makeId(),
        type: "command_execution",
        command: str(wire.command),
        aggregated_output: str(wire.aggregatedOutput),
        // exec prints `null` until the command exits; the official type says `number | undefined`.
        exit_code: (typeof wire.exitCode === "number" ? wire.exitCode : null) as number,
        status: snakeStatus(str(wire.status)) as "in_progress" | "completed" | "failed",
      };
    case "fileChange": {
      const status = str(wire.status);
      return {
        id: makeId(),
        type: "file_change",
        changes: (Array.isArray(wire.changes) ? wire.changes.map(asWire) : []).map(
          (change): FileUpdateChange => ({ path: str(change.path), kind: changeKind(change.kind) }),
        ),
        // exec has no `declined`: a refused patch failed.
        status: (status === "declined" ? "failed" : snakeStatus(status)) as "completed" | "failed",
      };
    }
    case "mcpToolCall": {
      const result = isObject(wire.result) ? wire.result : null;
      const error = isObject(wire.error) ? wire.error : null;
      return {
        id: makeId(),
        type: "mcp_tool_call",
        server: str(wire.server),
        tool: str(wire.tool),
        arguments: wire.arguments ?? null,
        result: (result
          ? {
              content: Array.isArray(result.content) ? result.content : [],
              structured_content: result.structuredContent ?? null,
            }
          : null) as never,
        error: (error ? { message: str(error.message) } : null) as never,
        status: snakeStatus(str(wire.status)) as "in_progress" | "completed" | "failed",
      };
    }
    case "webSearch": {
      // exec numbers the item, but its JSON names `id` twice and the search's own id comes last.
      makeId();
      const item = { id: str(wire.id), type: "web_search", query: str(wire.query) } as const;
      return Object.assign(item, { action: searchAction(wire.action) });
    }
  }
  return undefined;
}

/**
 * A web search's action as exec prints it: codex's core shape, where only `search` survives the
 * conversion from the app-server's camelCase one; anything else (or none yet) is `other`.
 */
function searchAction(action: unknown): Wire {
  const wire = asWire(action);
  if (wire.type !== "search") return { type: "other" };
  return {
    type: "search",
    ...(typeof wire.query === "string" ? { query: wire.query } : {}),
    ...(Array.isArray(wire.queries) ? { queries: wire.queries } : {}),
  };
}

function failed(message: string): ThreadEvent {
  return { type: "turn.failed", error: { message } };
}

/** `message (details)` when there are details, as codex exec words errors and warnings. */
function withDetails(message: string, details: unknown): string {
  return typeof details === "string" && details !== "" ? `${message} (${details})` : message;
}

function changeKind(kind: unknown): FileUpdateChange["kind"] {
  const name = typeof kind === "string" ? kind : str(asWire(kind).type);
  return name === "add" || name === "delete" ? name : "update";
}

function pascal(value: string): string {
  return value.charAt(0).toUpperCase() + value.slice(1);
}
