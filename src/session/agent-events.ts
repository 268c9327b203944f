// agent-spaces' host-level `AgentEvent`s: the coarser contract `runTurn` reports, made from the
// unified session events by one pure mapping, numbered (`seq`) and stamped (`ts`) by an emitter.
import type { UnifiedSessionEvent } from "./unified-types.js";

/** The state a `runTurn` reports. */
export type SessionState = "running" | "complete" | "error";

/** How a `runTurn` ended. */
export interface RunResult {
  success: boolean;
  /** The agent's last message. */
  finalOutput?: string;
  error?: AgentSpacesError;
}

/** Error codes agent-spaces hosts know. */
export type AgentSpacesErrorCode =
  | "resolve_failed"
  | "harness_session_not_found"
  | "model_not_supported"
  /**
   * codex-harness's own: the routing rules (who may answer) cannot be enforced as given — a
   * principal the channels runtime does not know, `not_self` without `startedBy`, approvals that
   * do not route. `details.codeOfCodex` says which; the turn never started.
   */
  | "routing_refused";

export interface AgentSpacesError {
  message: string;
  code?: AgentSpacesErrorCode;
  details?: Record<string, unknown>;
}

/** Fields every AgentEvent carries. */
export interface BaseEvent {
  /** ISO 8601 time the event was emitted. */
  ts: string;
  /** 1, 2, 3, … within one `runTurn`. */
  seq: number;
  externalSessionId: string;
  externalRunId: string;
  /** The codex thread id, once known. */
  harnessSessionId?: string;
  /** The raw payload the event was made from. */
  payload?: unknown;
}

/** An AgentEvent without the fields the emitter adds. */
export type AgentEventBody =
  | { type: "state"; state: SessionState }
  | { type: "message"; role: "user" | "assistant"; content: string }
  | { type: "message_delta"; role: "assistant"; delta: string }
  | { type: "tool_call"; toolUseId: string; toolName: string; input: unknown }
  | { type: "tool_result"; toolUseId: string; toolName: string; output: unknown; isError: boolean }
  | {
      type: "log";
      level: "debug" | "info" | "warn" | "error";
      message: string;
      fields?: Record<string, unknown>;
    }
  | { type: "complete"; result: RunResult };

/** agent-spaces' public event type. */
export type AgentEvent = BaseEvent & AgentEventBody;

type Body = AgentEventBody & { payload?: unknown };

/**
 * The AgentEvents for one unified event (deltas, tool updates and turn boundaries have none of
 * their own: `complete` closes a run).
 */
export function toAgentEvents(event: UnifiedSessionEvent): Body[] {
  switch (event.type) {
    case "message_update":
      return event.textDelta
        ? [
            {
              type: "message_delta",
              role: "assistant",
              delta: event.textDelta,
              payload: event.payload,
            },
          ]
        : [];
    case "message_end": {
      const content = event.message ? textOf(event.message.content) : "";
      return content === ""
        ? []
        : [{ type: "message", role: "assistant", content, payload: event.payload }];
    }
    case "tool_execution_start":
      return [
        {
          type: "tool_call",
          toolUseId: event.toolUseId,
          toolName: event.toolName,
          input: event.input,
          payload: event.payload,
        },
      ];
    case "tool_execution_end":
      return [
        {
          type: "tool_result",
          toolUseId: event.toolUseId,
          toolName: event.toolName,
          output: event.result,
          isError: event.isError === true,
          payload: event.payload,
        },
      ];
    case "notice":
      return [
        {
          type: "log",
          level: event.level,
          message: event.message,
          fields: { code: event.code },
          payload: event.payload,
        },
      ];
    default:
      return [];
  }
}

function textOf(content: string | { type: string; text?: string }[]): string {
  if (typeof content === "string") return content;
  return content.map((block) => (block.type === "text" ? (block.text ?? "") : "")).join("");
}

/**
 * Numbers, stamps and delivers AgentEvents in order: a callback's promise is awaited before the
 * next event is delivered, and a callback that throws does not stop the run (see `failures`).
 */
export class AgentEventEmitter {
  private seq = 0;
  private last: Promise<void> = Promise.resolve();
  /** Errors thrown by the callback (the run goes on without them). */
  readonly failures: unknown[] = [];

  constructor(
    private readonly onEvent: (event: AgentEvent) => void | Promise<void>,
    private readonly ids: { externalSessionId: string; externalRunId: string },
    /** The codex thread id, once known; every later event carries it. */
    public harnessSessionId?: string,
  ) {}

  /** Queues an event; resolves once it (and every earlier one) was delivered. */
  emit(body: Body): Promise<void> {
    this.seq += 1;
    const event = {
      ...body,
      ts: new Date().toISOString(),
      seq: this.seq,
      ...this.ids,
      ...(this.harnessSessionId === undefined ? {} : { harnessSessionId: this.harnessSessionId }),
    } as AgentEvent;
    this.last = this.last.then(async () => {
      try {
        await this.onEvent(event);
      } catch (error) {
        this.failures.push(error);
      }
    });
    return this.last;
  }

  /** Resolves when every queued event was delivered. */
  idle(): Promise<void> {
    return this.last;
  }
}
