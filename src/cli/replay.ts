// `codex-harness replay <file>`: renders a captured app-server session the way `run` shows a turn.
import { type CaptureRecord, readCapture } from "../app-server/capture.js";
import type { ExtendedThreadEvent } from "../events/types.js";
import { classifyMessage, type RequestId, type RpcNotification } from "../protocol/messages.js";
import {
  type RoutedTurn,
  TurnRoute,
  TurnRouter,
  threadIdOf,
  turnIdOf,
} from "../turns/turn-route.js";
import { EventRenderer } from "./render.js";
import type { Terminal } from "./terminal.js";

/** Options of the `replay` command. */
export interface ReplayCommandOptions {
  /** Print the extended events as JSONL instead of rendering them. */
  json?: boolean;
}

/**
 * What a capture replays as, in order: a thread's header (its `thread.started` event), an extended
 * event, or a server request with our answer (in JSON, a `notification` event whose params are
 * `{ request_id, params, response }`).
 */
export type ReplayEntry =
  | { kind: "thread"; event: ExtendedThreadEvent; model?: string; cwd?: string }
  | { kind: "event"; event: ExtendedThreadEvent }
  | { kind: "request"; method: string; answer: unknown; event: ExtendedThreadEvent };

type Params = Record<string, unknown>;

/** A captured turn, routed as a live one is: its events go to the replay's entries. */
class ReplayedTurn implements RoutedTurn {
  private readonly route: TurnRoute;

  constructor(
    readonly threadId: string,
    private readonly emit: (events: ExtendedThreadEvent[]) => void,
    private readonly ended: (turn: ReplayedTurn) => void,
  ) {
    this.route = new TurnRoute(threadId);
  }

  /** The turn id is known (`turn/start` answered, or `turn/started`): what was kept is taken. */
  start(turnId: string): void {
    if (this.route.turnId !== undefined) return;
    for (const notification of this.route.start(turnId)) this.receive(notification);
  }

  receive(notification: RpcNotification): void {
    const events = this.route.take(notification);
    if (!events) return;
    this.emit(events);
    if (this.route.over) this.ended(this);
  }
}

/** Reads a capture file and prints it; resolves with the exit code (1 when a turn failed). */
export async function replayCaptureFile(
  file: string,
  terminal: Terminal,
  options: ReplayCommandOptions = {},
): Promise<number> {
  try {
    const entries = replayEntries(await readCapture(file));
    const renderer = new EventRenderer(terminal);
    for (const entry of entries) {
      if (options.json) terminal.line(JSON.stringify(entry.event));
      else renderEntry(entry, terminal, renderer);
    }
    terminal.endLine();
    return entries.some((entry) => entry.event.type === "turn.failed") ? 1 : 0;
  } finally {
    terminal.close();
  }
}

function renderEntry(entry: ReplayEntry, t: Terminal, renderer: EventRenderer): void {
  switch (entry.kind) {
    case "thread": {
      const details = [entry.model && `model ${entry.model}`, entry.cwd].filter(Boolean);
      t.line();
      t.line(
        `${t.style("bold", `── thread ${entry.event.thread_id}`)}${details.length > 0 ? t.style("dim", ` · ${details.join(" · ")}`) : ""}`,
      );
      return;
    }
    case "request":
      t.line(`${t.style("yellow", "?")} ${entry.method} -> ${formatAnswer(entry.answer)}`);
      return;
    case "event":
      renderer.render(entry.event);
  }
}

function formatAnswer(answer: unknown): string {
  if (answer === undefined) return "(no answer in the capture)";
  const error = (answer as { error?: { code?: unknown; message?: unknown } }).error;
  if (error) return `error ${String(error.code)}: ${String(error.message)}`;
  return JSON.stringify((answer as { result?: unknown }).result ?? null);
}

/**
 * Turns capture records into what `run` would have shown: per thread a header, then each turn's
 * notifications mapped to extended events (a turn's mapper starts with the id from `turn/start`'s
 * answer or `turn/started`), server requests with our answers, and failed requests as `error`.
 * Notifications outside any turn are left out, as a turn stream leaves them out.
 */
export function replayEntries(records: readonly CaptureRecord[]): ReplayEntry[] {
  const entries: ReplayEntry[] = [];
  const announced = new Set<string>();
  const turns = new TurnRouter<ReplayedTurn>();
  const sent = new Map<RequestId, { method: string; params: Params }>();
  const answers = answersOfServerRequests(records);

  const announce = (threadId: string, thread?: Params) => {
    if (announced.has(threadId)) return;
    announced.add(threadId);
    const entry: ReplayEntry = {
      kind: "thread",
      event: { type: "thread.started", thread_id: threadId },
    };
    if (typeof thread?.model === "string") entry.model = thread.model;
    if (typeof thread?.cwd === "string") entry.cwd = thread.cwd;
    entries.push(entry);
  };
  const emit = (events: ExtendedThreadEvent[]) => {
    for (const event of events) entries.push({ kind: "event", event });
  };
  const startTurn = (threadId: string) => {
    if (turns.get(threadId)) return;
    announce(threadId);
    turns.add(new ReplayedTurn(threadId, emit, (turn) => turns.remove(turn)));
  };

  for (const [index, record] of records.entries()) {
    if (!("message" in record)) {
      emit([{ type: "error", message: `unreadable message from codex: ${record.error}` }]);
      continue;
    }
    const classified = classifyMessage(record.message);
    if (record.dir === "out") {
      if (classified.kind !== "request") continue;
      const { id, method } = classified.message;
      const params = (classified.message.params ?? {}) as Params;
      sent.set(id, { method, params });
      const threadId = typeof params.threadId === "string" ? params.threadId : undefined;
      if (method === "turn/start" && threadId !== undefined) startTurn(threadId);
      continue;
    }
    switch (classified.kind) {
      case "response":
      case "error": {
        const request = sent.get(classified.message.id ?? "");
        if (!request) break;
        sent.delete(classified.message.id ?? "");
        const threadId = request.params.threadId;
        if (classified.kind === "error") {
          const turn = typeof threadId === "string" ? turns.get(threadId) : undefined;
          if (request.method === "turn/start" && turn) turns.remove(turn);
          emit([
            {
              type: "error",
              ...(typeof threadId === "string" ? { thread_id: threadId } : {}),
              message: `${request.method} failed: ${classified.message.error.message}`,
            },
          ]);
          break;
        }
        const result = (classified.message.result ?? {}) as Params;
        const thread = result.thread as Params | undefined;
        if (typeof thread?.id === "string") announce(thread.id, thread);
        const turn = result.turn as Params | undefined;
        if (request.method === "turn/start" && typeof threadId === "string") {
          if (typeof turn?.id === "string") turns.get(threadId)?.start(turn.id);
        }
        break;
      }
      case "notification": {
        const notification = classified.message;
        const threadId = threadIdOf(notification);
        if (threadId === undefined) break;
        if (notification.method === "thread/started") {
          announce(threadId, (notification.params as Params).thread as Params);
          break;
        }
        if (notification.method === "turn/started") startTurn(threadId);
        turns.route(notification);
        const turnId = turnIdOf(notification);
        if (notification.method === "turn/started" && turnId !== undefined) {
          turns.get(threadId)?.start(turnId);
        }
        break;
      }
      case "request": {
        const { id, method } = classified.message;
        const params = (classified.message.params ?? {}) as Params;
        const answer = answers.get(index);
        const event: ExtendedThreadEvent = {
          type: "notification",
          ...(typeof params.threadId === "string" ? { thread_id: params.threadId } : {}),
          ...(typeof params.turnId === "string" ? { turn_id: params.turnId } : {}),
          method,
          params: { request_id: id, params, response: answer ?? null },
        };
        entries.push({ kind: "request", method, answer, event });
        break;
      }
    }
  }
  return entries;
}

/** For each server request (by record index), our answer: the next `out` response with its id. */
function answersOfServerRequests(records: readonly CaptureRecord[]): Map<number, unknown> {
  const answers = new Map<number, unknown>();
  const waiting = new Map<RequestId, number>();
  for (const [index, record] of records.entries()) {
    if (!("message" in record)) continue;
    const classified = classifyMessage(record.message);
    if (record.dir === "in" && classified.kind === "request") {
      waiting.set(classified.message.id, index);
    } else if (
      record.dir === "out" &&
      (classified.kind === "response" || classified.kind === "error")
    ) {
      const at = waiting.get(classified.message.id ?? "");
      if (at === undefined) continue;
      waiting.delete(classified.message.id ?? "");
      answers.set(at, record.message);
    }
  }
  return answers;
}
