// A thread whose turns codex starts by itself (a goal's): each becomes an ordinary turn of the
// thread as its `turn/started` arrives, and the follower stops them all through their undo.
import type { AppServerClient } from "../app-server/client.js";
import type { ActiveTurn } from "./active-turn.js";
import type { OpenedTurn } from "./running-turns.js";
import type { FollowedThread, FollowedTurn } from "./turn-transport.js";

/** One followed thread (see {@link FollowedThread}). */
export class ThreadFollower implements FollowedThread {
  private readonly running = new Map<ActiveTurn, { opened: OpenedTurn; over: Promise<unknown> }>();
  /** The ids of every turn adopted so far. */
  private readonly adopted = new Set<string>();
  private stopping = false;
  private closing: Promise<void> | undefined;

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

  /** codex started `turnId` on the thread: it becomes the thread's running turn. */
  adopt(turnId: string): void {
    if (this.closing || this.adopted.has(turnId)) return;
    this.adopted.add(turnId);
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
    this.closing ??= (async () => {
      this.stopping = true;
      const turns = [...this.running.values()];
      for (const { opened } of turns) opened.finish();
      const errors = (await Promise.all(turns.map(({ over }) => over))).filter(
        (error) => error !== undefined,
      );
      this.release();
      if (errors.length > 0) throw errors[0];
    })();
    return this.closing;
  }
}
