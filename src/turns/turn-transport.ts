// The interface both transports (app-server, exec) implement for the Thread API.
import type { AppServerClient } from "../app-server/client.js";
import type { WithRaw } from "../events/raw.js";
import type { ExtendedThreadEvent } from "../events/types.js";
import type { ReviewTarget } from "../protocol/generated/ts/v2/ReviewTarget.js";
import type { TurnTraceHooks } from "../telemetry/hooks.js";
import type { ThreadOptions, TurnOptions, UserInput } from "./options.js";
import type { TurnStop } from "./turn-stop.js";
import type { StreamObserver } from "./turn-stream.js";

/** One turn to run. */
export interface TurnRequest {
  /** The thread to continue; `null` starts a new one. */
  threadId: string | null;
  /** Checked input (local image paths resolved). */
  input: UserInput[];
  /** A review of this target instead of a turn on `input` (codex's `review/start`, app-server only). */
  review?: ReviewTarget;
  /** A compaction of the thread instead (codex's `thread/compact/start`, app-server only). */
  compact?: boolean;
  threadOptions: ThreadOptions;
  turnOptions: TurnOptions;
  /**
   * Whether someone reads the stream and can answer `approval.requested` (`runStreamed`); with
   * `run()` nobody can, so unanswered requests are declined at once. Default: true.
   */
  interactive?: boolean;
  /** Watches the stream: told when it opens (may refuse by throwing), of each event, and its end. */
  observer?: TurnObserver;
  /**
   * The turn's stop, whose signal is `turnOptions.signal`: the transport settles it once the turn
   * is over and nothing it started runs (so `interrupt()` resolves then).
   */
  stop?: TurnStop;
  /**
   * The turn's tracing, when OpenTelemetry is on: told what codex said of the thread's model, and
   * of each server request's wait (app-server; exec asks nothing).
   */
  telemetry?: TurnTraceHooks;
}

/** What the Thread layer watches on a turn's stream. */
export type TurnObserver = StreamObserver<ExtendedThreadEvent>;

/**
 * Runs turns. `runTurn` yields the turn's events: `thread.started` first (with the thread id),
 * then `turn.started`, items, and `turn.completed` or `turn.failed` last. Breaking out of the
 * iteration abandons the turn (the transport stops it at codex, or kills it).
 */
export interface TurnTransport {
  readonly kind: "app-server" | "exec";
  runTurn(request: TurnRequest): AsyncGenerator<WithRaw<ExtendedThreadEvent>>;
  /** Starts (`null`) or loads a thread before its first turn (app-server only). */
  openThread?(threadId: string | null, options: ThreadOptions): Promise<OpenedThread>;
  /**
   * Follows the turns codex starts by itself on `threadId` (app-server only): holds the thread (as
   * a turn would, giving up the wait if `signal` aborts) and hands each turn to `onTurn` as it
   * starts, until the result is closed.
   */
  followTurns?(
    threadId: string,
    options: ThreadOptions,
    onTurn: (turn: FollowedTurn) => void,
    signal?: AbortSignal,
  ): Promise<FollowedThread>;
  /** Adds input to the running turn (app-server only). */
  steer?(threadId: string, turnId: string, input: UserInput[]): Promise<void>;
  /** Ends every process the transport owns. */
  close(): Promise<void>;
}

/** A thread started or loaded ahead of its first turn. */
export interface OpenedThread {
  threadId: string;
  /** The model and provider codex will use, when it said (it does not for an already loaded thread). */
  model?: string;
  modelProvider?: string;
  /** Set when codex had lost the thread and a new one replaced it (`onLostThread: "startNew"`). */
  replaced?: { threadId: string; error: unknown };
}

/** A turn codex started by itself on a followed thread (see `TurnTransport.followTurns`). */
export interface FollowedTurn {
  id: string;
  /** Its events, from `turn.started` to its end; read them to the end (or `return()`). */
  events: AsyncIterableIterator<WithRaw<ExtendedThreadEvent>>;
  /** Traces the turn's server requests (its approval waits) with `hooks`. */
  traceWith?(hooks: TurnTraceHooks): void;
}

/**
 * A thread whose turns codex starts by itself (a goal's), held by its follower: each such turn is
 * an ordinary turn of the thread — the thread's approvals, the idle watchdog, the one undo.
 */
export interface FollowedThread {
  /** The connection the thread is on (for its `thread/goal/*` requests and notifications). */
  readonly client: AppServerClient;
  /**
   * Stops the turn codex runs now and every one it starts from now on, each through its undo
   * (interrupted at codex, what it started ended); their streams just end.
   */
  stopTurns(): void;
  /**
   * Takes in a turn codex has in progress on the thread but was not seen starting (codex can start
   * one as a goal's pause lands, and say so after answering the pause): stopped too, if turns are
   * being stopped. Reads the thread at codex.
   */
  adoptInProgress(): Promise<void>;
  /**
   * Lets go of the thread: a turn still running is stopped; resolves once nothing of any followed
   * turn runs (rejects with the undo's error when codex would not stop one).
   */
  close(): Promise<void>;
}
