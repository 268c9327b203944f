// The app-server transport of the Thread API: one long-lived `codex app-server` shared by all threads.
import type { AppServerClient } from "../app-server/client.js";
import { AppServerSupervisor } from "../app-server/supervisor.js";
import type { ApprovalTarget } from "../approvals/broker.js";
import { mergeApprovals } from "../approvals/merge.js";
import { checkReviewerConflict } from "../approvals/reviewer.js";
import { CodexHarnessError } from "../errors.js";
import { type WithRaw, withRaw } from "../events/raw.js";
import { interruptedTurnEvent, threadStartedEvent } from "../events/turn-events.js";
import type { ExtendedThreadEvent } from "../events/types.js";
import type { ApprovalsReviewer } from "../protocol/generated/ts/v2/ApprovalsReviewer.js";
import type { RpcNotification } from "../protocol/messages.js";
import { RemoteDisconnectedError, RpcErrorCodes, RpcWireError } from "../rpc/errors.js";
import { ActiveTurn, ActiveTurns, type StopKind } from "./active-turn.js";
import { apiKeyOf, clientOptionsOf } from "./client-options.js";
import type { EventQueue } from "./event-queue.js";
import { checkGitRepo } from "./git-check.js";
import { undoLateThreadStart, undoLateTurnStart } from "./late-answers.js";
import type { CodexOptions, ThreadOptions, UserInput } from "./options.js";
import { type RejoinHost, rejoinTurns, TurnClient } from "./rejoin.js";
import { TurnAbortedError } from "./run-result.js";
import { threadNotFound } from "./thread-errors.js";
import {
  threadResumeParams,
  threadStartParams,
  toWireInput,
  turnStartParams,
} from "./thread-params.js";
import { stopAtCodex, warnNotStopped } from "./turn-interrupt.js";
import { isInterruption } from "./turn-stop.js";
import { TurnStream } from "./turn-stream.js";
import type { OpenedThread, TurnRequest, TurnTransport } from "./turn-transport.js";
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
  private readonly threadLocks = new Map<string, Promise<void>>();
  private readonly otherListeners = new Set<(notification: RpcNotification) => void>();
  private readonly supervisor: AppServerSupervisor;
  /** The connection each running turn is on (it changes when a dropped one is rejoined). */
  private readonly turnClients = new WeakMap<ActiveTurn, TurnClient>();
  /** The ids of the last turns stopped here: a request codex still sends for one is declined. */
  private readonly stoppedTurns = new RecentIds(256);
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
      unlock = await this.lock(threadId, signal);
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
      const turn = new ActiveTurn(
        threadId,
        approvals,
        request.interactive ?? true,
        this.options.maxQueuedDeltaBytes ?? DEFAULT_MAX_QUEUED_DELTA_BYTES,
      );
      const on = new TurnClient(client, unhold as () => void);
      unhold = () => on.release();
      this.turnClients.set(turn, on);
      // Every way of stopping the turn comes here: its signal (abort or interrupt), a reader that
      // leaves, the idle watchdog. Before turn/start answered it is applied once the id is known.
      const stop = (kind: StopKind, error?: Error) => {
        if (turn.requestStop(kind, error)) this.undo(on, turn);
      };
      const onAbort = () =>
        isInterruption(signal?.reason)
          ? stop("interrupt")
          : stop("abort", new TurnAbortedError(signal?.reason));
      turn.onGiveUp = () => stop("abandon");
      turn.cancelled = () => stop("interrupt");
      turn.onStopSettled = settle;
      this.router.add(turn);
      turn.watchIdle(this.options.turnIdleTimeoutMs ?? DEFAULT_TURN_IDLE_TIMEOUT_MS);
      signal?.addEventListener("abort", onAbort, { once: true });
      let settled = false;
      const finish = () => {
        if (settled) return;
        settled = true;
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
          release();
          settle(error);
        });
      };
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

  /** Waits until no other turn runs on `threadId`, then holds it until the returned release. */
  private async lock(threadId: string, signal: AbortSignal | undefined): Promise<() => void> {
    for (let held = this.threadLocks.get(threadId); held; held = this.threadLocks.get(threadId)) {
      await waitOrAbort(held, signal);
    }
    let release!: () => void;
    const lock = new Promise<void>((resolve) => {
      release = () => {
        if (this.threadLocks.get(threadId) === lock) this.threadLocks.delete(threadId);
        resolve();
      };
    });
    this.threadLocks.set(threadId, lock);
    return release;
  }
}

/** The target of a request of a turn stopped here: nothing of it may be approved. */
const STOPPED_TURN: ApprovalTarget = {
  approvals: undefined,
  interactive: false,
  emit: () => undefined,
  answerable: AbortSignal.abort(),
  changesOf: () => [],
};

/** The last `size` ids added (the oldest forgotten first). */
class RecentIds {
  private readonly ids = new Set<string>();
  constructor(private readonly size: number) {}
  add(id: string): void {
    this.ids.delete(id);
    this.ids.add(id);
    if (this.ids.size > this.size) this.ids.delete(this.ids.values().next().value as string);
  }
  has(id: string): boolean {
    return this.ids.has(id);
  }
}

function waitOrAbort(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortedBeforeStart(signal.reason));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortedBeforeStart(signal.reason));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
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

/**
 * A turn stopped before codex started it: an interrupted one ends at once (status `interrupted`),
 * an aborted one throws its abort error.
 */
async function* stoppedBeforeStart(
  reason: unknown,
  threadId: string | null,
): AsyncGenerator<WithRaw<ExtendedThreadEvent>, undefined> {
  if (!isInterruption(reason)) throw abortedBeforeStart(reason);
  yield interruptedTurnEvent(threadId ?? undefined);
  return undefined;
}

function abortedBeforeStart(reason: unknown): TurnAbortedError {
  return new TurnAbortedError(
    reason,
    "The turn was aborted by its signal before codex started it.",
  );
}
