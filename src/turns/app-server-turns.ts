// The app-server transport of the Thread API: one long-lived `codex app-server` shared by all threads.
import type { AppServerClient, AppServerClientOptions } from "../app-server/client.js";
import { mergeApprovals } from "../approvals/merge.js";
import { CodexHarnessError } from "../errors.js";
import { type WithRaw, withRaw } from "../events/raw.js";
import { interruptedTurnEvent, threadStartedEvent } from "../events/turn-events.js";
import type { ThreadEvent } from "../events/types.js";
import { definedEnv } from "../process-env.js";
import type { RpcNotification } from "../protocol/messages.js";
import { RpcErrorCodes, RpcLocalError, RpcWireError } from "../rpc/errors.js";
import { DEFAULT_RETRY } from "../rpc/retry.js";
import type { EventQueue } from "./event-queue.js";
import type { CodexOptions, ThreadOptions, UserInput } from "./options.js";
import { AppServerSupervisor } from "./supervisor.js";
import { threadNotFound } from "./thread-errors.js";
import {
  threadResumeParams,
  threadStartParams,
  toWireInput,
  turnStartParams,
} from "./thread-params.js";
import { ActiveTurn, TurnRouter } from "./turn-router.js";
import { TurnStream } from "./turn-stream.js";
import type { OpenedThread, TurnRequest, TurnTransport } from "./turn-transport.js";

/** How long a turn may go without any event from codex (approvals waiting excepted). */
export const DEFAULT_TURN_IDLE_TIMEOUT_MS = 15 * 60_000;

/** How much delta text may wait for a slow reader before deltas are dropped (8 MiB). */
export const DEFAULT_MAX_QUEUED_DELTA_BYTES = 8 * 1024 * 1024;

/** The app-server client options a `Codex` configures. */
export function clientOptionsOf(options: CodexOptions): AppServerClientOptions {
  const env = options.apiKey
    ? { ...(options.env ?? definedEnv()), CODEX_API_KEY: options.apiKey }
    : options.env;
  const config = options.baseUrl
    ? { ...options.config, openai_base_url: options.baseUrl }
    : options.config;
  return {
    ...(options.codexPathOverride ? { codexPathOverride: options.codexPathOverride } : {}),
    ...(env ? { env } : {}),
    ...(options.codexHome ? { codexHome: options.codexHome } : {}),
    ...(config ? { config } : {}),
    ...(options.configOverrides ? { configOverrides: options.configOverrides } : {}),
    ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.maxLineBytes ? { maxLineBytes: options.maxLineBytes } : {}),
    // -32001 (overloaded) is retried with backoff and jitter unless the caller says otherwise.
    retry: options.retry ?? DEFAULT_RETRY,
    ...(options.onStderr ? { onStderr: options.onStderr } : {}),
    ...(options.capture ? { capture: options.capture } : {}),
  };
}

/**
 * Runs turns on one `codex app-server`, started on first use. Turns of different threads run
 * concurrently; turns of one thread run one after the other.
 */
export class AppServerTurnTransport implements TurnTransport {
  readonly kind = "app-server" as const;
  private readonly router = new TurnRouter();
  private readonly loadedThreads = new Set<string>();
  private readonly threadLocks = new Map<string, Promise<void>>();
  private readonly otherListeners = new Set<(notification: RpcNotification) => void>();
  private readonly supervisor: AppServerSupervisor;

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
    new ApprovalBroker(
      client,
      (threadId) => (threadId === null ? undefined : this.router.get(threadId)),
      () => this.options.approvals,
    );
    client.onAnyNotification((notification) => {
      if (this.router.route(notification)) return;
      for (const listener of this.otherListeners) listener(notification);
    });
    client.onClose((reason) => {
      // Running turns end with the reason; threads reattach lazily (the next turn resumes them).
      this.loadedThreads.clear();
      this.router.failAll(reason);
    });
    return client;
  }

  runTurn(request: TurnRequest): AsyncGenerator<WithRaw<ThreadEvent>> {
    return new TurnStream(this.setUpTurn(request), request.observer);
  }

  /**
   * Starts (or resumes) the thread, takes its lock, yields `thread.started`, starts the turn, and
   * returns the turn's queue. The lock and the router entry are released when the queue finishes.
   */
  private async *setUpTurn(
    request: TurnRequest,
  ): AsyncGenerator<WithRaw<ThreadEvent>, EventQueue<WithRaw<ThreadEvent>> | undefined> {
    const { signal } = request.turnOptions;
    if (signal?.aborted) {
      yield* endedBeforeStart(request.threadId);
      return undefined;
    }
    // The process is in use until the turn's stream finishes (for idle shutdown).
    const endUse = this.supervisor.use();
    let unlock: (() => void) | undefined;
    const release = () => {
      unlock?.();
      endUse();
    };
    let handedOff = false;
    try {
      const client = await this.connection();
      let threadId =
        request.threadId ?? (await this.startThread(client, request.threadOptions)).threadId;
      unlock = await this.lock(threadId, signal).catch(() => undefined);
      if (!unlock) {
        yield* endedBeforeStart(threadId);
        return undefined;
      }
      const attached = await this.attach(client, threadId, request.threadOptions);
      if (attached.replaced) {
        threadId = attached.threadId;
        yield withRaw(
          replacedNotice(attached.replaced.threadId, threadId),
          attached.replaced.error,
        );
      }
      yield threadStartedEvent(threadId);
      const turn = new ActiveTurn(
        threadId,
        mergeApprovals(this.options.approvals, request.threadOptions.approvals),
        request.interactive ?? true,
        this.options.maxQueuedDeltaBytes ?? DEFAULT_MAX_QUEUED_DELTA_BYTES,
      );
      const interrupt = () => void this.interruptQuietly(client, turn);
      this.router.add(turn);
      turn.watchIdle(this.options.turnIdleTimeoutMs ?? DEFAULT_TURN_IDLE_TIMEOUT_MS);
      const finish = () => {
        signal?.removeEventListener("abort", interrupt);
        // Left before codex ended the turn (break, process death): do not leave it running.
        if (!turn.mapper.outcome) interrupt();
        turn.close();
        this.router.remove(turn);
        release();
      };
      try {
        const started = await client.request(
          "turn/start",
          turnStartParams(threadId, request.input, request.turnOptions),
        );
        turn.start(started.turn.id);
      } catch (error) {
        finish();
        handedOff = true;
        throw error;
      }
      if (signal?.aborted) interrupt();
      else signal?.addEventListener("abort", interrupt, { once: true });
      turn.events.onFinish = finish;
      handedOff = true;
      return turn.events;
    } finally {
      if (!handedOff) release();
    }
  }

  /**
   * Starts a new thread (`threadId` null) or loads a saved one now, instead of at its first turn.
   * A thread codex cannot resume fails with `thread_not_found`, or is replaced under
   * `onLostThread: "startNew"` (then `replaced` says which).
   */
  async openThread(threadId: string | null, options: ThreadOptions): Promise<OpenedThread> {
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
    const started = await client.request("thread/start", threadStartParams(options));
    this.loadedThreads.add(started.thread.id);
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
      this.loadedThreads.add(threadId);
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

  async interrupt(threadId: string, turnId: string): Promise<void> {
    const client = await this.connection();
    await client.request("turn/interrupt", { threadId, turnId });
  }

  async close(): Promise<void> {
    await this.supervisor.close();
  }

  private async interruptQuietly(client: AppServerClient, turn: ActiveTurn): Promise<void> {
    if (turn.turnId === undefined || client.closedReason) return;
    await client
      .request("turn/interrupt", { threadId: turn.threadId, turnId: turn.turnId })
      .catch(() => undefined);
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

function replacedNotice(replaced: string, threadId: string): ThreadEvent {
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

/** A turn aborted before it reached codex ends at once, as interrupted (as with exec). */
function* endedBeforeStart(threadId: string | null): Generator<WithRaw<ThreadEvent>> {
  if (threadId !== null) yield threadStartedEvent(threadId);
  yield interruptedTurnEvent(threadId ?? undefined);
}

function abortedBeforeStart(reason: unknown): RpcLocalError {
  return new RpcLocalError("aborted", "The turn was aborted before it started.", { cause: reason });
}
