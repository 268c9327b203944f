// Routing of app-server notifications to turns, by threadId/turnId only: live turns and replay use it.
import { AppServerTurnMapper } from "../events/app-server-events.js";
import type { WithRaw } from "../events/raw.js";
import type { ExtendedThreadEvent } from "../events/types.js";
import type { RpcNotification } from "../protocol/messages.js";

type Params = Record<string, unknown>;

/** The thread a notification belongs to, if any. */
export function threadIdOf(notification: RpcNotification): string | undefined {
  const params = (notification.params ?? {}) as Params;
  if (typeof params.threadId === "string") return params.threadId;
  const thread = params.thread as Params | undefined;
  return typeof thread?.id === "string" ? thread.id : undefined;
}

/** The turn a notification belongs to, if it names one. */
export function turnIdOf(notification: RpcNotification): string | undefined {
  const params = (notification.params ?? {}) as Params;
  if (typeof params.turnId === "string") return params.turnId;
  const turn = params.turn as Params | undefined;
  return typeof turn?.id === "string" ? turn.id : undefined;
}

/**
 * One turn's share of its thread's notifications, mapped to extended events. Those that arrive
 * before the turn id is known (`turn/start` sent, not yet answered) are kept until `start()`;
 * those naming another turn are ignored.
 */
export class TurnRoute {
  readonly mapper: AppServerTurnMapper;
  private kept: RpcNotification[] | undefined = [];
  /** Set by {@link adoptNextTurn} until the turn's `turn/started` came. */
  private adopting = false;

  constructor(readonly threadId: string) {
    this.mapper = new AppServerTurnMapper(threadId);
  }

  get turnId(): string | undefined {
    return this.mapper.turnId;
  }

  /** Whether codex ended the turn. */
  get over(): boolean {
    return this.mapper.outcome !== undefined;
  }

  /** Sets the turn id; returns the notifications kept until now, for the caller to take again. */
  start(turnId: string): RpcNotification[] {
    this.mapper.turnId = turnId;
    const kept = this.kept ?? [];
    this.kept = undefined;
    return kept;
  }

  /**
   * For a turn codex starts by itself (a compaction): its id is that of the thread's next
   * `turn/started`. Returns the notifications kept until it, when it already came.
   */
  adoptNextTurn(): RpcNotification[] {
    const started = this.kept?.find((notification) => notification.method === "turn/started");
    const turnId = started && turnIdOf(started);
    if (turnId !== undefined) return this.start(turnId);
    this.adopting = true;
    return [];
  }

  /** The events of a notification of this turn; `undefined` when it is kept or of another turn. */
  take(notification: RpcNotification): WithRaw<ExtendedThreadEvent>[] | undefined {
    if (this.kept) {
      this.kept.push(notification);
      const turnId = turnIdOf(notification);
      if (!this.adopting || notification.method !== "turn/started" || turnId === undefined) {
        return undefined;
      }
      this.adopting = false;
      return this.start(turnId).flatMap((kept) => this.take(kept) ?? []);
    }
    const turnId = turnIdOf(notification);
    if (turnId !== undefined && turnId !== this.turnId) return undefined;
    return this.mapper.map(notification);
  }
}

/** What a {@link TurnRouter} routes to: a turn that takes its thread's notifications. */
export interface RoutedTurn {
  readonly threadId: string;
  receive(notification: RpcNotification): void;
}

/** Holds the running turn of each thread and delivers notifications to it. */
export class TurnRouter<T extends RoutedTurn> {
  private readonly active = new Map<string, T>();

  /** Registers the running turn of a thread (one at a time per thread). */
  add(turn: T): void {
    this.active.set(turn.threadId, turn);
  }

  /** The running turn of a thread, if any. */
  get(threadId: string): T | undefined {
    return this.active.get(threadId);
  }

  remove(turn: T): void {
    if (this.active.get(turn.threadId) === turn) this.active.delete(turn.threadId);
  }

  /** Delivers a notification; returns false when no running turn took it. */
  route(notification: RpcNotification): boolean {
    const threadId = threadIdOf(notification);
    const turn = threadId === undefined ? undefined : this.active.get(threadId);
    if (!turn) return false;
    turn.receive(notification);
    return true;
  }

  /** The running turns. */
  all(): T[] {
    return [...this.active.values()];
  }

  /** Forgets every turn; returns them. */
  clear(): T[] {
    const turns = this.all();
    this.active.clear();
    return turns;
  }
}
