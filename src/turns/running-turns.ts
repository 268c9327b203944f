// The running turns of one app-server transport: each made with its approvals, watchdog and the
// one stop every way of stopping goes through; the undo that stop runs at codex; and who answers
// a server request of a turn (a turn stopped here answers nothing).
import type { AppServerClient } from "../app-server/client.js";
import type { ApprovalTarget } from "../approvals/broker.js";
import type { Approvals } from "../events/approval-types.js";
import { ActiveTurn, ActiveTurns, type StopKind } from "./active-turn.js";
import type { TurnClient } from "./rejoin.js";
import { TurnAbortedError } from "./run-result.js";
import { RecentIds, STOPPED_TURN } from "./stopped-turns.js";
import { stopAtCodex, warnNotStopped } from "./turn-interrupt.js";
import { isInterruption } from "./turn-stop.js";

/** A turn as {@link RunningTurns.open} made it: its stop, and its release. */
export interface OpenedTurn {
  turn: ActiveTurn;
  stop: (kind: StopKind, error?: Error) => void;
  /** Lets go of the turn (stopping it at codex first if codex has not ended it). */
  finish: () => void;
}

/** The running turns of a transport, by thread, and the last ones stopped there. */
export class RunningTurns {
  readonly router = new ActiveTurns();
  /** The connection each running turn is on (it changes when a dropped one is rejoined). */
  private readonly turnClients = new WeakMap<ActiveTurn, TurnClient>();
  /** The ids of the last turns stopped here: a request codex still sends for one is declined. */
  private readonly stoppedTurns = new RecentIds(256);
  /** The undo of each turn being stopped, once started: settles with the error, if it failed. */
  private readonly undoing = new WeakMap<ActiveTurn, Promise<unknown>>();

  /**
   * @param maxQueuedDeltaBytes how much command output may wait unread per turn
   * @param turnIdleTimeoutMs how long a turn may go without any event from codex
   */
  constructor(
    private readonly maxQueuedDeltaBytes: number,
    private readonly turnIdleTimeoutMs: number,
  ) {}

  /** A rejoined turn goes on over `client`: stopped there now if it was asked to stop meanwhile. */
  moveTo(turn: ActiveTurn, client: AppServerClient): void {
    this.turnClients.get(turn)?.moveTo(client);
    if (turn.stop !== undefined) this.undo(turn);
  }

  /**
   * Who answers a server request of `threadId`'s turn `turnId`: the running turn; a turn stopped
   * here (its undo over) is no turn to answer for, so the request is declined; anything else goes
   * to the Codex-level handlers.
   */
  approvalTarget(threadId: string | null, turnId: string | null): ApprovalTarget | undefined {
    if (threadId === null) return undefined;
    const running = this.router.get(threadId);
    if (running && (turnId === null || running.turnId === undefined || running.turnId === turnId)) {
      return running;
    }
    return turnId !== null && this.stoppedTurns.has(turnId) ? STOPPED_TURN : running;
  }

  /**
   * Makes `threadId`'s running turn on `on` and routes its notifications to it: its approvals, its
   * idle watchdog, and the one stop every way of stopping goes through — `signal` (an abort or an
   * interruption), a reader that leaves, the watchdog, a request answered "cancel". Before its id
   * is known a stop is only noted; whoever sets the id applies it ({@link undo}). `finish` lets go
   * of the turn: one codex has not ended is stopped there first, and `done` is called once its
   * undo, if any, is over (with the undo's error when it failed).
   */
  open(
    on: TurnClient,
    threadId: string,
    approvals: Approvals | undefined,
    interactive: boolean,
    signal: AbortSignal | undefined,
    done: (error?: unknown) => void,
  ): OpenedTurn {
    const turn = new ActiveTurn(threadId, approvals, interactive, this.maxQueuedDeltaBytes);
    this.turnClients.set(turn, on);
    const stop = (kind: StopKind, error?: Error) => {
      if (turn.requestStop(kind, error)) this.undo(turn);
    };
    const onAbort = () =>
      isInterruption(signal?.reason)
        ? stop("interrupt")
        : stop("abort", new TurnAbortedError(signal?.reason));
    turn.onGiveUp = () => stop("abandon");
    turn.cancelled = () => stop("interrupt");
    this.router.add(turn);
    turn.watchIdle(this.turnIdleTimeoutMs);
    signal?.addEventListener("abort", onAbort, { once: true });
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      signal?.removeEventListener("abort", onAbort);
      // Left before codex ended the turn (break, idle timeout): stop it there first. The thread
      // stays locked, and its notifications routed to the turn, until nothing of it runs.
      if (!turn.codexEnded.aborted && !on.client.closedReason) stop("abandon");
      void this.undone(turn).then((error) => {
        if (turn.stop !== undefined && turn.turnId !== undefined) {
          this.stoppedTurns.add(turn.turnId);
        }
        turn.close();
        this.router.remove(turn);
        done(error);
      });
    };
    return { turn, stop, finish };
  }

  /**
   * The one undo of a turn asked to stop: once its id is known, it is interrupted at codex and
   * every process it started is ended (see {@link stopAtCodex}). Its stream then ends as the stop
   * asked (see `ActiveTurn.requestStop`), or with `interrupt_failed`/`turn_not_stopped` when codex
   * would not stop it. A turn codex already ended has nothing to undo.
   */
  undo(turn: ActiveTurn): void {
    const on = this.turnClients.get(turn);
    if (on === undefined || this.undoing.has(turn) || turn.turnId === undefined) return;
    const atCodex =
      turn.codexEnded.aborted || on.client.closedReason
        ? Promise.resolve()
        : stopAtCodex(on.client, turn);
    const undone = atCodex.then(
      () => {
        turn.confirmStopped();
        return undefined;
      },
      (error: unknown) => {
        turn.events.fail(error);
        if (turn.stop === "abandon") warnNotStopped(error);
        return error;
      },
    );
    this.undoing.set(
      turn,
      undone.then((error) => {
        turn.onStopSettled?.(error);
        return error;
      }),
    );
  }

  /** Resolves once the turn's undo, if it has one, is over: with its error when it failed. */
  private undone(turn: ActiveTurn): Promise<unknown> {
    return this.undoing.get(turn) ?? Promise.resolve(undefined);
  }
}
