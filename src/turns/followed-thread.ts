// A thread whose turns codex starts by itself (a goal's): each becomes an ordinary turn of the
// thread as its `turn/started` arrives, and the follower stops them all through their undo.
import type { AppServerClient } from "../app-server/client.js";
import type { ActiveTurn } from "./active-turn.js";
import type { OpenedTurn } from "./running-turns.js";
import type { FollowedThread, FollowedTurn } from "./turn-transport.js";

/**
 * How long a follower whose turns were stopped goes on watching the thread as it lets go: codex
 * can start a goal's turn after answering the pause that should have prevented it (it decided to
 * continue just before), and that turn is stopped too. The follower lets go once this long passed
 * with no turn starting and none running.
 */
export const LATE_GOAL_TURN_WINDOW_MS = 250;

/** One followed thread (see {@link FollowedThread}). */
export class ThreadFollower implements FollowedThread {
  private readonly running = new Map<ActiveTurn, { opened: OpenedTurn; over: Promise<unknown> }>();
  /** The ids of every turn adopted so far. */
  private readonly adopted = new Set<string>();
  private stopping = false;
  private closing: Promise<void> | undefined;
  /** When the last turn was adopted (`Date.now()`). */
  private lastAdoptedAt = 0;
  /** Let go of: nothing more is adopted. */
  private released = false;

  /**
   * @param clientOf the connection the thread is on now
   * @param open makes the thread's running turn for `turnId`; `done` is called once it is let
   *   go of and its undo is over (with the undo's error)
   * @param inProgress the id of the turn codex has in progress on the thread, if any
   * @param release lets go of the thread, once no followed turn runs
   */
  constructor(
    private readonly clientOf: () => AppServerClient,
    private readonly open: (turnId: string, done: (error?: unknown) => void) => OpenedTurn,
    private readonly inProgress: () => Promise<string | undefined>,
    private readonly onTurn: (turn: FollowedTurn) => void,
    private readonly release: () => void,
  ) {}

  get client(): AppServerClient {
    return this.clientOf();
  }

  /**
   * codex started `turnId` on the thread: it becomes the thread's running turn. While the follower
   * lets go after a stop, it is stopped at once (see {@link LATE_GOAL_TURN_WINDOW_MS}).
   */
  adopt(turnId: string): void {
    if (this.released || this.adopted.has(turnId)) return;
    this.adopted.add(turnId);
    this.lastAdoptedAt = Date.now();
    let done!: (error?: unknown) => void;
    const over = new Promise<unknown>((resolve) => {
      done = resolve;
    });
    const opened = this.open(turnId, done);
    this.running.set(opened.turn, { opened, over });
    void over.then(() => this.running.delete(opened.turn));
    if (this.stopping) opened.stop("abandon");
    this.onTurn({
      id: turnId,
      events: opened.turn.events,
      traceWith: (hooks) => {
        opened.turn.telemetry = hooks;
      },
    });
  }

  async adoptInProgress(): Promise<void> {
    const turnId = await this.inProgress();
    if (turnId !== undefined) this.adopt(turnId);
  }

  stopTurns(): void {
    this.stopping = true;
    for (const { opened } of this.running.values()) opened.stop("abandon");
  }

  close(): Promise<void> {
    this.closing ??= this.letGo();
    return this.closing;
  }

  /**
   * Stops and waits out the running turns, then lets go of the thread. A follower whose turns were
   * being stopped first watches for {@link LATE_GOAL_TURN_WINDOW_MS} with none starting.
   */
  private async letGo(): Promise<void> {
    const watchLate = this.stopping;
    this.stopping = true;
    const began = Date.now();
    const errors: unknown[] = [];
    for (;;) {
      const turns = [...this.running.values()];
      for (const { opened } of turns) opened.finish();
      for (const error of await Promise.all(turns.map(({ over }) => over))) {
        if (error !== undefined) errors.push(error);
      }
      if (this.running.size > 0) continue;
      if (!watchLate) break;
      const quietUntil = Math.max(began, this.lastAdoptedAt) + LATE_GOAL_TURN_WINDOW_MS;
      if (Date.now() >= quietUntil) break;
      await new Promise((resolve) => setTimeout(resolve, quietUntil - Date.now()));
    }
    this.released = true;
    this.release();
    if (errors.length > 0) throw errors[0];
  }
}
