// The app-server transport of the Thread API: one long-lived `codex app-server` shared by all threads.
import type { AppServerClient } from "../app-server/client.js";
import { AppServerSupervisor } from "../app-server/supervisor.js";
import type { ApprovalTarget } from "../approvals/broker.js";
import { mergeApprovals } from "../approvals/merge.js";
import { checkReviewerConflict } from "../approvals/reviewer.js";
import { CodexHarnessError } from "../errors.js";
import type { Approvals } from "../events/approval-types.js";
import { type WithRaw, withRaw } from "../events/raw.js";
import { threadStartedEvent } from "../events/turn-events.js";
import type { ExtendedThreadEvent } from "../events/types.js";
import type { ApprovalsReviewer } from "../protocol/generated/ts/v2/ApprovalsReviewer.js";
import type { RpcNotification } from "../protocol/messages.js";
import { RemoteDisconnectedError, RpcErrorCodes, RpcWireError } from "../rpc/errors.js";
import { ActiveTurn, ActiveTurns, type StopKind } from "./active-turn.js";
import { apiKeyOf, clientOptionsOf } from "./client-options.js";
import type { EventQueue } from "./event-queue.js";
import { type OpenedTurn, ThreadFollower } from "./followed-thread.js";
import { checkGitRepo } from "./git-check.js";
import { undoLateThreadStart, undoLateTurnStart } from "./late-answers.js";
import type { CodexOptions, ThreadOptions, UserInput } from "./options.js";
import { type RejoinHost, rejoinTurns, TurnClient } from "./rejoin.js";
import { TurnAbortedError } from "./run-result.js";
import { RecentIds, STOPPED_TURN, stoppedBeforeStart } from "./stopped-turns.js";
import { threadNotFound } from "./thread-errors.js";
import { ThreadLocks } from "./thread-locks.js";
import {
  threadResumeParams,
  threadStartParams,
  toWireInput,
  turnStartParams,
} from "./thread-params.js";
import { stopAtCodex, warnNotStopped } from "./turn-interrupt.js";
import { isInterruption } from "./turn-stop.js";
import { TurnStream } from "./turn-stream.js";
import type {
  FollowedThread,
  FollowedTurn,
  OpenedThread,
  TurnRequest,
  TurnTransport,
} from "./turn-transport.js";
import { applyValidationIssue } from "./validation-notices.js";

/** codex's notifications that a thread is no longer loaded in the app-server. */
const UNLOADED = new Set(["thread/archived", "thread/deleted", "thread/closed"]);

/** How long a turn may go without any event from codex (approvals waiting excepted). */
export const DEFAULT_TURN_IDLE_TIMEOUT_MS = 15 * 60_000;

/** How much command output may wait for a slow reader before the oldest is dropped (4 MiB). */
export const DEFAULT_MAX_QUEUED_DELTA_BYTES = 4 * 1024 * 1024;

/**
 * Runs turns on one `codex app-server`, started on first use. Turns of different threads run
 * concurrently; turns of one thread run one after the other.
 */
export class AppServerTurnTransport implements TurnTransport {
  readonly kind = "app-server" as const;
  private readonly router = new ActiveTurns();
  /** The threads codex has loaded for this client, and the reviewer codex said each uses. */
  private readonly loadedThreads = new Map<string, ApprovalsReviewer | undefined>();
  private readonly threadLocks = new ThreadLocks();
  private readonly otherListeners = new Set<(notification: RpcNotification) => void>();
  private readonly supervisor: AppServerSupervisor;
  /** The connection each running turn is on (it changes when a dropped one is rejoined). */
  private readonly turnClients = new WeakMap<ActiveTurn, TurnClient>();
  /** The ids of the last turns stopped here: a request codex still sends for one is declined. */
  private readonly stoppedTurns = new RecentIds(256);
  /** The threads whose turns codex starts by itself (a goal's), each with its follower. */
  private readonly followers = new Map<string, ThreadFollower>();
  /** The undo of each turn being stopped, once started: settles with the error, if it failed. */
  private readonly undoing = new WeakMap<ActiveTurn, Promise<unknown>>();

  /**
   * @param startInTurn pool members share one: their processes start one at a time (codex 0.163
   *   loses a race when two app-servers first initialize one CODEX_HOME together).
   */
  constructor(
    private readonly options: CodexOptions,
    private readonly startInTurn: <T>(start: () => Promise<T>) => Promise<T> = (start) => start(),
  ) {
    this.supervisor = new AppServerSupervisor(
      () => this.connect(),
      options.restart,
      options.idleShutdownMs,
    );
  }

  /** The app-server connection, started on first use and restarted (with backoff) after a crash. */
  connection(): Promise<AppServerClient> {
    return this.supervisor.connection();
  }

  /** How many turns are running (or starting) on this transport. */
  get load(): number {
    return this.supervisor.busy;
  }

  /** Listens to notifications no running turn took (account, config, other threads). */
  onOtherNotification(listener: (notification: RpcNotification) => void): () => void {
    this.otherListeners.add(listener);
    return () => this.otherListeners.delete(listener);
  }

  private async connect(): Promise<AppServerClient> {
    // Loaded with the first process, not at import: `import { Codex }` stays light.
    const [{ AppServerClient }, { ApprovalBroker }] = await Promise.all([
      import("../app-server/client.js"),
      import("../approvals/broker.js"),
    ]);
    const client = await this.startInTurn(() =>
      AppServerClient.start(clientOptionsOf(this.options)),
    );
    const apiKey = apiKeyOf(this.options);
    if (apiKey !== undefined) {
      // As `codex exec` does with CODEX_API_KEY; the ephemeral store keeps it off the disk.
      await client
        .request("account/login/start", { type: "apiKey", apiKey })
        .catch(async (error) => {
          await client.close();
          throw error;
        });
    }
    new ApprovalBroker(
      client,
      (threadId, turnId) => this.approvalTarget(threadId, turnId),
      () => this.options.approvals,
    );
    client.onValidationIssue((issue) => applyValidationIssue(this.router, issue));
    client.onAnyNotification((notification) => {
      // Archived, deleted or unloaded at codex: its next turn loads it again (thread/resume).
      if (UNLOADED.has(notification.method)) {
        const { threadId } = (notification.params ?? {}) as { threadId?: unknown };
        if (typeof threadId === "string") this.loadedThreads.delete(threadId);
      }
      if (notification.method === "turn/started") this.adoptStarted(notification);
      if (this.router.route(notification)) return;
      for (const listener of this.otherListeners) listener(notification);
    });
    client.onClose((reason) => {
      // Threads reattach lazily (the next turn resumes them).
      this.loadedThreads.clear();
      // A remote codex keeps running turns when the connection drops: rejoin them. Otherwise
      // (a crash, or no running turn) they end with the reason.
      if (reason instanceof RemoteDisconnectedError && this.router.all().length > 0) {
        void rejoinTurns(this.rejoinHost(), reason);
      } else this.router.failAll(reason);
    });
    return client;
  }

  /**
   * Who answers a server request of `threadId`'s turn `turnId`: the running turn; a turn stopped
   * here (its undo over) is no turn to answer for, so the request is declined; anything else goes
   * to the Codex-level handlers.
   */
  private approvalTarget(
    threadId: string | null,
    turnId: string | null,
  ): ApprovalTarget | undefined {
    if (threadId === null) return undefined;
    const running = this.router.get(threadId);
    if (running && (turnId === null || running.turnId === undefined || running.turnId === turnId)) {
      return running;
    }
    return turnId !== null && this.stoppedTurns.has(turnId) ? STOPPED_TURN : running;
  }

  /** What {@link rejoinTurns} needs of this transport. */
  private rejoinHost(): RejoinHost {
    return {
      router: this.router,
      connection: () => this.connection(),
      attached: (turn, client) => {
        this.loadedThreads.set(turn.threadId, undefined);
        this.turnClients.get(turn)?.moveTo(client);
        // Asked to stop while the connection was down: stopped at codex now.
        if (turn.stop !== undefined) this.undo(this.turnClients.get(turn) as TurnClient, turn);
      },
    };
  }

  /**
   * codex exec's git repository check, on this disk. A remote codex's working directory is on its
   * machine: nothing here can say whether it is a repository, so it is not checked.
   */
  private checkGitRepo(options: ThreadOptions): void {
    if (this.options.remote === undefined) checkGitRepo(options);
  }

  runTurn(request: TurnRequest): AsyncGenerator<WithRaw<ExtendedThreadEvent>> {
    return new TurnStream(this.setUpTurn(request), request.observer);
  }

  /**
   * Starts (or resumes) the thread, takes its lock, yields `thread.started`, starts the turn, and
   * returns the turn's queue. The lock and the router entry are released when the queue finishes.
   */
  private async *setUpTurn(
    request: TurnRequest,
  ): AsyncGenerator<
    WithRaw<ExtendedThreadEvent>,
    EventQueue<WithRaw<ExtendedThreadEvent>> | undefined
  > {
    const { signal } = request.turnOptions;
    const settle = (error?: unknown) => request.stop?.settle(error);
    // Stopped before codex started the turn: nothing runs (an interrupted one just ends).
    if (signal?.aborted) {
      settle();
      return yield* stoppedBeforeStart(signal.reason, request.threadId);
    }
    // As codex exec does, before the thread is started or resumed (and before codex is started).
    this.checkGitRepo(request.threadOptions);
    // The process is in use until the turn's stream finishes (for idle shutdown).
    const endUse = this.supervisor.use();
    let unlock: (() => void) | undefined;
    let unhold: (() => void) | undefined;
    const release = () => {
      unlock?.();
      unhold?.();
      endUse();
    };
    let handedOff = false;
    let threadId = request.threadId;
    try {
      const client = await this.connection();
      // A running turn keeps the program alive; an idle app-server does not.
      unhold = client.hold();
      if (signal?.aborted) return yield* stoppedBeforeStart(signal.reason, threadId);
      threadId ??= (await this.startThread(client, request.threadOptions)).threadId;
      unlock = await this.threadLocks.lock(threadId, signal);
      const attached = await this.attach(client, threadId, request.threadOptions);
      if (attached.replaced) {
        threadId = attached.threadId;
        yield withRaw(
          replacedNotice(attached.replaced.threadId, threadId),
          attached.replaced.error,
        );
      }
      yield threadStartedEvent(threadId);
      if (signal?.aborted) return yield* stoppedBeforeStart(signal.reason, threadId);
      const approvals = mergeApprovals(this.options.approvals, request.threadOptions.approvals);
      const reviewer = request.turnOptions.approvalsReviewer ?? this.loadedThreads.get(threadId);
      checkReviewerConflict(reviewer, approvals);
      const on = new TurnClient(client, unhold as () => void);
      unhold = () => on.release();
      const { turn, finish } = this.openTurn(
        on,
        threadId,
        approvals,
        request.interactive ?? true,
        signal,
        (error) => {
          release();
          settle(error);
        },
      );
      turn.onStopSettled = settle;
      try {
        // Given up (timed out) yet answered later: codex runs a turn we reported as failed.
        const late = { onLateAnswer: undoLateTurnStart(client, this.router, threadId) };
        if (request.compact) {
          await client.request("thread/compact/start", { threadId });
          // codex answers before it starts the compaction's turn: stopped then, if asked to be.
          turn.adoptNextTurn(() => {
            if (turn.stop !== undefined) this.undo(on, turn);
          });
        } else {
          const started = request.review
            ? await client.request("review/start", { threadId, target: request.review }, late)
            : await client.request(
                "turn/start",
                turnStartParams(threadId, request.input, request.turnOptions),
                late,
              );
          // codex keeps a turn's reviewer for the thread's later turns.
          if (this.loadedThreads.has(threadId)) this.loadedThreads.set(threadId, reviewer);
          turn.start(started.turn.id);
        }
      } catch (error) {
        finish();
        handedOff = true;
        throw error;
      }
      if (turn.stop !== undefined) this.undo(on, turn);
      turn.events.onFinish = finish;
      handedOff = true;
      return turn.events;
    } finally {
      if (!handedOff) {
        release();
        settle();
      }
    }
  }

  /**
   * Makes `threadId`'s running turn on `on` and routes its notifications to it: its approvals, its
   * idle watchdog, and the one stop every way of stopping goes through — `signal` (an abort or an
   * interruption), a reader that leaves, the watchdog, a request answered "cancel". Before its id
   * is known a stop is only noted; whoever sets the id applies it (`undo`). `finish` lets go of the
   * turn: one codex has not ended is stopped there first, and `done` is called once its undo, if
   * any, is over (with the undo's error when it failed).
   */
  private openTurn(
    on: TurnClient,
    threadId: string,
    approvals: Approvals | undefined,
    interactive: boolean,
    signal: AbortSignal | undefined,
    done: (error?: unknown) => void,
  ): OpenedTurn {
    const turn = new ActiveTurn(
      threadId,
      approvals,
      interactive,
      this.options.maxQueuedDeltaBytes ?? DEFAULT_MAX_QUEUED_DELTA_BYTES,
    );
    this.turnClients.set(turn, on);
    const stop = (kind: StopKind, error?: Error) => {
      if (turn.requestStop(kind, error)) this.undo(on, turn);
    };
    const onAbort = () =>
      isInterruption(signal?.reason)
        ? stop("interrupt")
        : stop("abort", new TurnAbortedError(signal?.reason));
    turn.onGiveUp = () => stop("abandon");
    turn.cancelled = () => stop("interrupt");
    this.router.add(turn);
    turn.watchIdle(this.options.turnIdleTimeoutMs ?? DEFAULT_TURN_IDLE_TIMEOUT_MS);
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
  private undo(on: TurnClient, turn: ActiveTurn): void {
    if (this.undoing.has(turn) || turn.turnId === undefined) return;
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

  async followTurns(
    threadId: string,
    options: ThreadOptions,
    onTurn: (turn: FollowedTurn) => void,
    signal?: AbortSignal,
  ): Promise<FollowedThread> {
    const endUse = this.supervisor.use();
    let release = endUse;
    try {
      const client = await this.connection();
      const on = new TurnClient(client, client.hold());
      release = () => {
        on.release();
        endUse();
      };
      const unlock = await this.threadLocks.lock(threadId, signal);
      const unfollow = release;
      release = () => {
        this.followers.delete(threadId);
        unlock();
        unfollow();
      };
      await this.attach(client, threadId, options);
      const approvals = mergeApprovals(this.options.approvals, options.approvals);
      const follower = new ThreadFollower(
        () => on.client,
        (turnId, done) => {
          const opened = this.openTurn(on, threadId, approvals, false, undefined, done);
          opened.turn.start(turnId);
          opened.turn.events.onFinish = opened.finish;
          return opened;
        },
        async () => {
          const read = await on.client.request("thread/read", { threadId, includeTurns: true });
          return read.thread.turns.find((turn) => turn.status === "inProgress")?.id;
        },
        onTurn,
        release,
      );
      this.followers.set(threadId, follower);
      return follower;
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * A turn codex started by itself on a followed thread becomes the thread's running turn (the
   * one before it may still be read, but codex has ended it).
   */
  private adoptStarted(notification: RpcNotification): void {
    const { threadId, turn } = (notification.params ?? {}) as {
      threadId?: unknown;
      turn?: { id?: unknown };
    };
    if (typeof threadId !== "string" || typeof turn?.id !== "string") return;
    const follower = this.followers.get(threadId);
    const running = this.router.get(threadId);
    if (follower && (running === undefined || running.codexEnded.aborted)) follower.adopt(turn.id);
  }

  /**
   * Starts a new thread (`threadId` null) or loads a saved one now, instead of at its first turn.
   * Outside a git repository it fails with `not_a_git_repo` unless `skipGitRepoCheck` is true.
   * A thread codex cannot resume fails with `thread_not_found`, or is replaced under
   * `onLostThread: "startNew"` (then `replaced` says which).
   */
  async openThread(threadId: string | null, options: ThreadOptions): Promise<OpenedThread> {
    this.checkGitRepo(options);
    const endUse = this.supervisor.use();
    try {
      const client = await this.connection();
      if (threadId === null) return await this.startThread(client, options);
      return await this.attach(client, threadId, options);
    } finally {
      endUse();
    }
  }

  private async startThread(
    client: AppServerClient,
    options: ThreadOptions,
  ): Promise<OpenedThread> {
    const started = await client.request("thread/start", threadStartParams(options), {
      onLateAnswer: undoLateThreadStart(client),
    });
    this.loadedThreads.set(started.thread.id, started.approvalsReviewer);
    return {
      threadId: started.thread.id,
      model: started.model,
      modelProvider: started.modelProvider,
    };
  }

  /** Resumes `threadId` unless this process has it loaded; replaces a lost one if asked to. */
  private async attach(
    client: AppServerClient,
    threadId: string,
    options: ThreadOptions,
  ): Promise<OpenedThread> {
    if (this.loadedThreads.has(threadId)) return { threadId };
    let lost: unknown;
    try {
      const resumed = await client.request("thread/resume", threadResumeParams(threadId, options));
      this.loadedThreads.set(threadId, resumed.approvalsReviewer);
      return { threadId, model: resumed.model, modelProvider: resumed.modelProvider };
    } catch (error) {
      lost = explainResumeFailure(threadId, error);
    }
    if (!(lost instanceof CodexHarnessError && lost.code === "thread_not_found")) throw lost;
    if (options.onLostThread !== "startNew") throw lost;
    const started = await this.startThread(client, options);
    return { ...started, replaced: { threadId, error: lost } };
  }

  async steer(threadId: string, turnId: string, input: UserInput[]): Promise<void> {
    const client = await this.connection();
    await client.request("turn/steer", {
      threadId,
      expectedTurnId: turnId,
      input: toWireInput(input),
    });
  }

  async close(): Promise<void> {
    await this.supervisor.close();
  }
}

function replacedNotice(replaced: string, threadId: string): ExtendedThreadEvent {
  return {
    type: "notice",
    thread_id: threadId,
    code: "thread_replaced",
    message: `codex could not resume thread ${replaced}, so a new thread ${threadId} was started (onLostThread: "startNew"); it does not remember the old conversation.`,
    replaced_thread_id: replaced,
  };
}

/** codex answers an unknown thread id with -32600 "no rollout found": say so plainly. */
function explainResumeFailure(threadId: string, error: unknown): unknown {
  if (error instanceof RpcWireError && error.code === RpcErrorCodes.InvalidRequest) {
    return threadNotFound(threadId, error.message, error) ?? error;
  }
  return error;
}
