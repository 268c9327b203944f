// The app-server transport of the Thread API: one long-lived `codex app-server` shared by all threads.
import type { AppServerClient } from "../app-server/client.js";
import { AppServerSupervisor } from "../app-server/supervisor.js";
import { mergeApprovals } from "../approvals/merge.js";
import { checkReviewerConflict } from "../approvals/reviewer.js";
import { waitFor } from "../approvals/wait.js";
import { type WithRaw, withRaw } from "../events/raw.js";
import { threadStartedEvent } from "../events/turn-events.js";
import type { ExtendedThreadEvent } from "../events/types.js";
import type { RpcNotification } from "../protocol/messages.js";
import { RemoteDisconnectedError } from "../rpc/errors.js";
import { apiKeyOf, clientOptionsOf } from "./client-options.js";
import type { EventQueue } from "./event-queue.js";
import { ThreadFollower } from "./followed-thread.js";
import { checkGitRepo } from "./git-check.js";
import { undoLateTurnStart } from "./late-answers.js";
import { LoadedThreads, replacedNotice } from "./loaded-threads.js";
import type { CodexOptions, ThreadOptions, UserInput } from "./options.js";
import { type RejoinHost, rejoinTurns, TurnClient } from "./rejoin.js";
import { inlineRemoteImages } from "./remote-images.js";
import { RunningTurns } from "./running-turns.js";
import { stoppedBeforeStart } from "./stopped-turns.js";
import { ThreadLocks } from "./thread-locks.js";
import { toWireInput, turnStartParams } from "./thread-params.js";
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
  private readonly turns: RunningTurns;
  /** The threads codex has loaded for this client, and the reviewer codex said each uses. */
  private readonly loadedThreads = new LoadedThreads();
  private readonly threadLocks = new ThreadLocks();
  private readonly otherListeners = new Set<(notification: RpcNotification) => void>();
  private readonly supervisor: AppServerSupervisor;
  /** The threads whose turns codex starts by itself (a goal's), each with its follower. */
  private readonly followers = new Map<string, ThreadFollower>();

  /**
   * @param startInTurn pool members share one: their processes start one at a time (codex 0.163
   *   loses a race when two app-servers first initialize one CODEX_HOME together).
   */
  constructor(
    private readonly options: CodexOptions,
    private readonly startInTurn: <T>(start: () => Promise<T>) => Promise<T> = (start) => start(),
  ) {
    this.turns = new RunningTurns(
      options.maxQueuedDeltaBytes ?? DEFAULT_MAX_QUEUED_DELTA_BYTES,
      options.turnIdleTimeoutMs ?? DEFAULT_TURN_IDLE_TIMEOUT_MS,
    );
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
      (threadId, turnId) => this.turns.approvalTarget(threadId, turnId),
      () => this.options.approvals,
    );
    client.onValidationIssue((issue) => applyValidationIssue(this.turns.router, issue));
    client.onAnyNotification((notification) => {
      // Archived, deleted or unloaded at codex: its next turn loads it again (thread/resume).
      if (UNLOADED.has(notification.method)) {
        const { threadId } = (notification.params ?? {}) as { threadId?: unknown };
        if (typeof threadId === "string") this.loadedThreads.forget(threadId);
      }
      if (notification.method === "turn/started") this.adoptStarted(notification);
      if (this.turns.router.route(notification)) return;
      for (const listener of this.otherListeners) listener(notification);
    });
    client.onClose((reason) => {
      // Threads reattach lazily (the next turn resumes them).
      this.loadedThreads.clear();
      // A remote codex keeps running turns when the connection drops: rejoin them. Otherwise
      // (a crash, or no running turn) they end with the reason.
      if (reason instanceof RemoteDisconnectedError && this.turns.router.all().length > 0) {
        void rejoinTurns(this.rejoinHost(), reason);
      } else this.turns.router.failAll(reason);
    });
    return client;
  }

  /** What {@link rejoinTurns} needs of this transport. */
  private rejoinHost(): RejoinHost {
    return {
      router: this.turns.router,
      connection: () => this.connection(),
      attached: (turn, client) => {
        this.loadedThreads.set(turn.threadId, undefined);
        // Asked to stop while the connection was down: stopped at codex now.
        this.turns.moveTo(turn, client);
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
    // Images given by URL, fetched when asked (codex refuses them): before codex is asked anything.
    let input: UserInput[];
    try {
      input = await inlineRemoteImages(request.input, request.threadOptions.remoteImages, signal);
    } catch (error) {
      settle();
      if (signal?.aborted) return yield* stoppedBeforeStart(signal.reason, request.threadId);
      throw error;
    }
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
      // A stop while codex starts ends the turn at once (nothing of it exists at codex yet); the
      // start goes on, for the turns after.
      const connected = await waitFor(this.connection(), signal ?? new AbortController().signal);
      if (connected.outcome !== "value" || signal?.aborted) {
        return yield* stoppedBeforeStart(signal?.reason, threadId);
      }
      const client = connected.value;
      // A running turn keeps the program alive; an idle app-server does not.
      unhold = client.hold();
      // codex parents its spans for the thread's start or resume on the turn's span, if traced.
      const trace = request.telemetry?.carrier();
      threadId ??= (await this.loadedThreads.start(client, request.threadOptions, trace)).threadId;
      unlock = await this.threadLocks.lock(threadId, signal);
      const attached = await this.loadedThreads.attach(
        client,
        threadId,
        request.threadOptions,
        trace,
      );
      request.telemetry?.threadOpened(attached);
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
      const reviewer =
        request.turnOptions.approvalsReviewer ?? this.loadedThreads.reviewerOf(threadId);
      checkReviewerConflict(reviewer, approvals);
      const on = new TurnClient(client, unhold as () => void);
      unhold = () => on.release();
      const { turn, finish } = this.turns.open(
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
      turn.telemetry = request.telemetry;
      try {
        const options = {
          // Given up (timed out) yet answered later: codex runs a turn we reported as failed.
          onLateAnswer: undoLateTurnStart(client, this.turns.router, threadId),
          // codex parents its span for the request (and the turn's) on the turn's span, if traced.
          trace,
        };
        if (request.compact) {
          await client.request("thread/compact/start", { threadId });
          // codex answers before it starts the compaction's turn: stopped then, if asked to be.
          turn.adoptNextTurn(() => {
            if (turn.stop !== undefined) this.turns.undo(turn);
          });
        } else {
          const started = request.review
            ? await client.request("review/start", { threadId, target: request.review }, options)
            : await client.request(
                "turn/start",
                turnStartParams(threadId, input, request.turnOptions),
                options,
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
      if (turn.stop !== undefined) this.turns.undo(turn);
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

  async followTurns(
    threadId: string,
    options: ThreadOptions,
    onTurn: (turn: FollowedTurn) => void,
    signal?: AbortSignal,
  ): Promise<FollowedThread> {
    const endUse = this.supervisor.use();
    let on: TurnClient | undefined;
    let unlock: (() => void) | undefined;
    let follower: ThreadFollower | undefined;
    const release = () => {
      if (follower && this.followers.get(threadId) === follower) this.followers.delete(threadId);
      unlock?.();
      on?.release();
      endUse();
    };
    try {
      const client = await this.connection();
      const turnClient = new TurnClient(client, client.hold());
      on = turnClient;
      unlock = await this.threadLocks.lock(threadId, signal);
      await this.loadedThreads.attach(client, threadId, options);
      const approvals = mergeApprovals(this.options.approvals, options.approvals);
      follower = new ThreadFollower(
        () => turnClient.client,
        (turnId, done) => {
          const opened = this.turns.open(turnClient, threadId, approvals, false, undefined, done);
          opened.turn.start(turnId);
          opened.turn.events.onFinish = opened.finish;
          return opened;
        },
        async () => {
          const read = await turnClient.client.request("thread/read", {
            threadId,
            includeTurns: true,
          });
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
    const running = this.turns.router.get(threadId);
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
      if (threadId === null) return await this.loadedThreads.start(client, options);
      return await this.loadedThreads.attach(client, threadId, options);
    } finally {
      endUse();
    }
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
