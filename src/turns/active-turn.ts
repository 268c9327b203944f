// The running turns of a connection: each turn's events queue, its stop and its watchdog.

import type { ApprovalTarget } from "../approvals/broker.js";
import { CodexHarnessError } from "../errors.js";
import type { AppServerTurnMapper } from "../events/app-server-events.js";
import type { Approvals } from "../events/approval-types.js";
import type { WithRaw } from "../events/raw.js";
import type { ExtendedFileUpdateChange, ExtendedThreadEvent } from "../events/types.js";
import type { RpcNotification } from "../protocol/messages.js";
import type { TurnTraceHooks } from "../telemetry/hooks.js";
import { DeltaBacklog } from "./delta-backlog.js";
import { EventQueue } from "./event-queue.js";
import { type RoutedTurn, TurnRoute, TurnRouter } from "./turn-route.js";

/**
 * How a turn is being stopped: its signal aborted (the stream throws), it was interrupted (the
 * stream ends with the turn's end), or it was let go of (a reader that left, a timeout, a turn
 * nobody asked for): nobody reads it.
 */
export type StopKind = "abort" | "interrupt" | "abandon";

/**
 * One running turn: its event queue and mapper. Notifications that arrive before `turn/start`
 * answered (so before the turn id is known) are kept and replayed once it is.
 */
export class ActiveTurn implements ApprovalTarget, RoutedTurn {
  readonly events = new EventQueue<WithRaw<ExtendedThreadEvent>>();
  private readonly route: TurnRoute;
  /** Aborts when codex said the turn ended (or its connection is gone): nothing of it runs there. */
  private readonly codexEnd = new AbortController();
  /** Aborts when we let go of the turn (its stream is done, its stop settled). */
  private readonly end = new AbortController();
  private readonly stopping = new AbortController();
  /** Notifications received so far; the watchdog notes when it last saw this change. */
  private activity = 0;
  private lastActivity = Date.now();
  private activitySeen = 0;
  /** The deltas waiting for the reader: bounded, whatever the reader does. */
  private readonly backlog: DeltaBacklog;
  private holds = 0;
  private watchdog: NodeJS.Timeout | undefined;
  /** How the turn is being stopped, once a stop was asked for (the first one asked wins). */
  private stopKind: StopKind | undefined;
  /** The error an aborted turn's stream ends with once codex has ended the turn. */
  private abortError: Error | undefined;
  /** codex's end of a turn being stopped, held until the stop is confirmed. */
  private readonly heldEnd: WithRaw<ExtendedThreadEvent>[] = [];
  /** Set when the stop is confirmed (codex ended the turn, the turn's processes are gone). */
  private stopConfirmed = false;
  /** When the turn was asked for (`Date.now()`): its processes started after this. */
  readonly startedAt = Date.now();
  /** Called when the idle watchdog gives the turn up: the transport stops it at codex. */
  onGiveUp: (() => void) | undefined;
  /**
   * Called when a request of the turn was answered "cancel", so codex interrupts the turn by
   * itself: the transport stops it as an interruption (what it started is ended before it ends).
   */
  cancelled: (() => void) | undefined;
  /**
   * Called once nothing of the turn runs at codex any more (its stop's undo is over, or codex ended
   * it), with the error when the undo failed: what waits for the stop (`interrupt()`) goes on.
   */
  onStopSettled: ((error?: unknown) => void) | undefined;
  /** The turn's tracing, when on: its server requests' waits become spans of it. */
  telemetry: Pick<TurnTraceHooks, "approvalStarted"> | undefined;
  /** Every command item this turn started. */
  readonly commandItemIds = new Set<string>();
  /** Every item this turn completed (a rejoined turn completes only the ones it missed). */
  private readonly completedItemIds = new Set<string>();
  /** Called once the id of a turn codex started by itself is known (see {@link adoptNextTurn}). */
  private adopted: (() => void) | undefined;

  /**
   * @param approvals the handlers in force for this turn
   * @param interactive whether the stream's reader can answer `approval.requested`
   * @param maxQueuedOutputBytes how much command output may wait unread (see `DeltaBacklog`)
   */
  constructor(
    readonly threadId: string,
    readonly approvals: Approvals | undefined = undefined,
    readonly interactive = false,
    maxQueuedOutputBytes = Number.POSITIVE_INFINITY,
  ) {
    this.route = new TurnRoute(threadId);
    this.backlog = new DeltaBacklog(this.events, maxQueuedOutputBytes);
    this.events.onTake = (event, seq) => this.backlog.taken(event, seq);
  }

  /** Aborts when codex ended the turn (it said so, or its connection is gone). */
  get codexEnded(): AbortSignal {
    return this.codexEnd.signal;
  }

  /** Aborts when we let go of the turn: its stream is done and its stop, if any, settled. */
  get released(): AbortSignal {
    return this.end.signal;
  }

  /** Aborts when the turn ended or a stop was asked for: its requests are declined from then on. */
  get answerable(): AbortSignal {
    return this.stopping.signal;
  }

  /** Whether the turn's signal aborted it (its stream ends with the abort error). */
  get aborted(): boolean {
    return this.stopKind === "abort";
  }

  /** How the turn is being stopped, if a stop was asked for. */
  get stop(): StopKind | undefined {
    return this.stopKind;
  }

  /**
   * Asks for the turn to be stopped (the first ask wins; returns whether this was it): its
   * requests are declined from now on, and its events keep coming until the stop is confirmed.
   * Then an aborted turn's stream throws `error`, an interrupted one ends with codex's end of the
   * turn, and an abandoned one (nobody reads it) just ends.
   */
  requestStop(kind: StopKind, error?: Error): boolean {
    if (this.stopKind !== undefined) return false;
    this.stopKind = kind;
    if (kind === "abort") this.abortError = error;
    this.stopping.abort();
    return true;
  }

  /** The turn is stopped: codex ended it and nothing it started runs. Its stream may end now. */
  confirmStopped(): void {
    this.stopConfirmed = true;
    this.finishStop();
  }

  /** Ends a stopped turn's stream once codex ended the turn and the stop is confirmed. */
  private finishStop(): void {
    if (!this.stopConfirmed || !this.codexEnd.signal.aborted) return;
    if (this.abortError) {
      this.events.fail(this.abortError);
      return;
    }
    for (const event of this.heldEnd.splice(0)) this.deliver(event);
    this.events.end();
  }

  /** codex ended the turn (or cannot run it any more): what is pending of it is cleared first. */
  private markCodexEnded(): void {
    this.stopping.abort();
    this.codexEnd.abort();
  }

  /** Marks the turn as let go of: pending approvals are cleared, the watchdog stops. */
  close(): void {
    clearInterval(this.watchdog);
    this.stopping.abort();
    this.end.abort();
  }

  /**
   * Fails the turn with `turn_idle_timeout` when codex sends nothing for `idleMs` while no
   * approval of the turn is waiting for an answer.
   */
  watchIdle(idleMs: number): void {
    this.watchdog = setInterval(
      () => {
        if (this.activity !== this.activitySeen) {
          this.activitySeen = this.activity;
          this.lastActivity = Date.now();
        }
        if (this.holds > 0 || Date.now() - this.lastActivity < idleMs) return;
        this.giveUp(
          new CodexHarnessError(
            "turn_idle_timeout",
            `codex sent nothing for this turn in ${idleMs} ms, so the turn was given up (and interrupted). Raise turnIdleTimeoutMs if turns may be quiet that long.`,
          ),
        );
      },
      Math.max(10, Math.min(1_000, idleMs / 4)),
    );
    this.watchdog.unref();
  }

  /** Ends the stream with `error` and lets go of the turn: the transport stops it at codex. */
  giveUp(error: Error): void {
    clearInterval(this.watchdog);
    this.events.fail(error);
    this.onGiveUp?.();
  }

  /** Pauses the idle watchdog while an approval waits; call the result when it is answered. */
  holdIdle(): () => void {
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.lastActivity = Date.now();
    };
  }

  emit(event: ExtendedThreadEvent): void {
    this.events.push(event);
  }

  changesOf(itemId: string): ExtendedFileUpdateChange[] {
    return this.mapper.fileChanges.get(itemId) ?? [];
  }

  get turnId(): string | undefined {
    return this.route.turnId;
  }

  /** The turn's mapper (its outcome, diff, plan and file changes). */
  get mapper(): AppServerTurnMapper {
    return this.route.mapper;
  }

  /** Sets the turn id from the `turn/start` response and replays what arrived before it. */
  start(turnId: string): void {
    for (const notification of this.route.start(turnId)) this.receive(notification);
  }

  /**
   * For a turn codex starts by itself (a compaction): the thread's next `turn/started` is this
   * turn's. `started` is called once its id is known.
   */
  adoptNextTurn(started: () => void): void {
    this.adopted = started;
    for (const notification of this.route.adoptNextTurn()) this.receive(notification);
  }

  /** Takes a notification of this thread; one of another turn is ignored. */
  receive(notification: RpcNotification): void {
    this.activity++;
    const events = this.route.take(notification);
    if (this.adopted && this.turnId !== undefined) {
      const started = this.adopted;
      this.adopted = undefined;
      started();
    }
    if (!events) return;
    // The turn is over: clear what is still pending first, so those reports precede its end.
    if (this.mapper.outcome) this.markCodexEnded();
    // Nobody reads the stream any more (given up): only codex's end of the turn still matters.
    if (this.events.closed) return;
    for (const event of events) {
      this.track(event);
      if (
        this.stopKind !== undefined &&
        (event.type === "turn.completed" || event.type === "turn.failed")
      ) {
        this.heldEnd.push(event);
        continue;
      }
      this.deliver(event);
    }
    if (this.stopKind !== undefined) this.finishStop();
    else if (this.mapper.outcome) this.events.end();
  }

  /** The connection is gone: codex runs nothing of the turn any more; its stream ends with `error`. */
  lost(error: Error): void {
    this.markCodexEnded();
    this.events.fail(error);
    this.close();
  }

  /** Notes the command items the turn started (an aborted turn ends their processes). */
  private track(event: ExtendedThreadEvent): void {
    if (event.type === "item.started" && event.item.type === "command_execution") {
      this.commandItemIds.add(event.item.id);
    }
    if (event.type === "item.completed") this.completedItemIds.add(event.item.id);
  }

  /**
   * Carries on after the connection was lost and codex was reached again: `turn` is the turn as
   * codex now has it (from `thread/resume`). The items it completed while we were away are
   * completed here (once), and a turn that ended meanwhile ends with codex's status; one still
   * running streams on from the new connection.
   */
  rejoin(
    turn: { id: string; status: string; items: unknown[] },
    notice: ExtendedThreadEvent,
  ): void {
    this.emit(notice);
    for (const item of turn.items) {
      const { id, status } = item as { id?: unknown; status?: unknown };
      if (typeof id !== "string" || this.completedItemIds.has(id)) continue;
      // An item still in progress completes on the new connection, as usual.
      if (status === "inProgress" || status === "in_progress") continue;
      this.receive({
        method: "item/completed",
        params: { threadId: this.threadId, turnId: turn.id, item },
      });
    }
    if (turn.status !== "inProgress") {
      this.receive({ method: "turn/completed", params: { threadId: this.threadId, turn } });
    }
  }

  /** Queues an event; deltas go through the backlog, which may join or drop unread ones. */
  private deliver(event: WithRaw<ExtendedThreadEvent>): void {
    if (event.type === "item.delta") {
      this.backlog.add(event);
      return;
    }
    if (event.type === "item.completed") {
      const notice = this.backlog.droppedNotice(event.item.id, {
        thread_id: this.threadId,
        ...(this.turnId === undefined ? {} : { turn_id: this.turnId }),
      });
      if (notice) this.events.push(notice);
    }
    this.events.push(event);
  }
}

/** The running turns of a connection, by thread. */
export class ActiveTurns extends TurnRouter<ActiveTurn> {
  /** Ends every running turn's stream with `error` (the connection is gone). */
  failAll(error: Error): void {
    for (const turn of this.clear()) turn.lost(error);
  }
}
