// Codex: the entry point, a superset of @openai/codex-sdk's, over app-server (default) or exec.

import type { ChatGptLogin, DeviceCodeLogin } from "./account.js";
import {
  LOCAL_CODEX_OPTIONS,
  type RemoteOptions,
  refuseLocalOptions,
  resolveRemote,
} from "./app-server/remote.js";
import { validateModeOf } from "./app-server/validation.js";
import { AppServerAccess } from "./app-server-access.js";
import type { PoolEndpoint } from "./codex-pool.js";
import { CodexHarnessError } from "./errors.js";
import {
  type DefaultModelProviderChange,
  type ModelProviders,
  setDefaultProvider,
} from "./model-providers.js";
import type { InitializeResponse } from "./protocol/generated/ts/InitializeResponse.js";
import type { Model } from "./protocol/generated/ts/v2/Model.js";
import type { RpcNotification } from "./protocol/messages.js";
import type { ListThreadsOptions, SavedThread } from "./saved-threads.js";
import { Thread } from "./thread.js";
import type { SearchThreadsOptions, ThreadSearchUpdate } from "./thread-search.js";
import { AppServerTurnTransport } from "./turns/app-server-turns.js";
import { LazyTurnTransport } from "./turns/lazy-transport.js";
import type {
  CodexOptions,
  EventsMode,
  ForkOptions,
  RemoteImages,
  ThreadOptions,
} from "./turns/options.js";
import { PoolTransport } from "./turns/pool-transport.js";
import { checkRemoteImages } from "./turns/remote-images.js";
import { checkApprovalPolicy, threadSettings, threadSourceParam } from "./turns/thread-params.js";
import { providerOf, type TelemetryDefaults } from "./turns/traced-stream.js";
import type { TurnTransport } from "./turns/turn-transport.js";

/**
 * The main class: start or resume threads. With the default `transport: "app-server"`, one
 * `codex app-server` process (started on first use) serves every thread; an idle one does not keep
 * the program alive, and `close()` ends it. `M` is the threads' default {@link EventsMode}:
 * `new Codex()` yields the official events, `new Codex({ events: "extended" })` the superset.
 */
export class Codex<M extends EventsMode = "sdk"> {
  private readonly transport: TurnTransport;
  private readonly events: EventsMode;
  private closed = false;
  /** What the threads trace with, when OpenTelemetry is on. */
  private readonly telemetry: TelemetryDefaults;
  /** The threads' `remoteImages`, unless a thread has its own. */
  private readonly remoteImages: RemoteImages | undefined;

  constructor(given: CodexOptions<M> = {}) {
    // Settled now (a bad $CODEX_HARNESS_VALIDATE fails here), not when codex first starts.
    const options: CodexOptions<M> = { ...given, validate: validateModeOf(given.validate) };
    this.events = checkEventsMode(options.events) ?? "sdk";
    this.telemetry = { telemetry: options.telemetry, modelProvider: providerOf(options.config) };
    if (
      options.transport !== undefined &&
      options.transport !== "app-server" &&
      options.transport !== "exec"
    ) {
      throw new CodexHarnessError(
        "invalid_option",
        `transport must be "app-server" or "exec", got ${JSON.stringify(options.transport)}.`,
      );
    }
    if (options.remote !== undefined) checkRemote(options);
    checkRemoteImages(options.remoteImages);
    this.remoteImages = options.remoteImages;
    const poolSize = options.poolSize ?? 1;
    if (!Number.isInteger(poolSize) || poolSize < 1) {
      throw new CodexHarnessError(
        "invalid_option",
        `poolSize must be a whole number >= 1, got ${String(poolSize)}.`,
      );
    }
    if (options.transport === "exec") {
      // Imported on the first turn: the default transport's users never load exec's modules.
      this.transport = new LazyTurnTransport(
        "exec",
        async () => new (await import("./turns/exec-turns.js")).ExecTurnTransport(options),
      );
    } else if (endpointsOf(options) !== undefined) {
      this.transport = new PoolTransport(
        poolMembers(options, endpointsOf(options) as PoolEndpoint[], oneAtATime()),
      );
    } else if (poolSize === 1) this.transport = new AppServerTurnTransport(options);
    else {
      const startInTurn = oneAtATime();
      const members = Array.from(
        { length: poolSize },
        () => new AppServerTurnTransport(options, startInTurn),
      );
      this.transport = new PoolTransport(members);
    }
  }

  /** Which transport this Codex uses. */
  get transportKind(): "app-server" | "exec" {
    return this.transport.kind;
  }

  /** Starts a new thread; it gets its id when its first turn starts. */
  startThread<T extends EventsMode = M>(options: ThreadOptions<T> = {}): Thread<T> {
    checkApprovalPolicy(options.approvalPolicy);
    return this.threadOn(null, options, this.eventsOf(options));
  }

  /** Continues a thread codex saved earlier (by id). */
  resumeThread<T extends EventsMode = M>(id: string, options: ThreadOptions<T> = {}): Thread<T> {
    if (typeof id !== "string" || id.trim() === "") {
      throw new CodexHarnessError(
        "invalid_input",
        "resumeThread needs the id of an existing thread.",
      );
    }
    checkApprovalPolicy(options.approvalPolicy);
    return this.threadOn(id, options, this.eventsOf(options));
  }

  /** A `Thread` object for thread `id` (or a new one, `null`). */
  private threadOn<T extends EventsMode>(
    id: string | null,
    options: ThreadOptions<T>,
    events: T,
  ): Thread<T> {
    checkRemoteImages(options.remoteImages, "ThreadOptions.remoteImages");
    const remoteImages = options.remoteImages ?? this.remoteImages;
    return new Thread<T>(
      () => this.activeTransport(),
      remoteImages === undefined ? options : { ...options, remoteImages },
      events,
      id,
      (threadId) => this.appServerOf(threadId),
      this.telemetry,
    );
  }

  /**
   * Starts codex now instead of at the first turn: the app-server process, its `initialize`
   * handshake and the API-key login (every process of a pool; with a remote codex, the
   * connection). The first turn then costs what any later one does — 0.1–0.15 s less on our
   * 2-core machine. With `transport: "exec"`, which starts codex for each turn, it does nothing.
   * Rejects as the first turn would (`spawn_failed`, …).
   */
  async start(): Promise<this> {
    await Promise.all(this.appServers().map((member) => member.connection()));
    return this;
  }

  /** Every client method of the pinned protocol, typed, with helpers (app-server transport). */
  get appServer(): AppServerAccess {
    return new AppServerAccess(async () => this.appServerTransport(null).connection());
  }

  /** The app-server a thread lives on (with a pool, its process; otherwise {@link appServer}). */
  appServerOf(threadId: string): AppServerAccess {
    return new AppServerAccess(async () => this.appServerTransport(threadId).connection());
  }

  /**
   * Forks a saved thread into a new one that continues from it (app-server transport): all of it,
   * or up to and including turn `lastTurnId`, or up to (not including) turn `beforeTurnId`.
   */
  async forkThread<T extends EventsMode = M>(
    id: string,
    options: ThreadOptions<T> & ForkOptions = {},
  ): Promise<Thread<T>> {
    const events = this.eventsOf(options);
    const { lastTurnId, beforeTurnId } = options;
    if (lastTurnId !== undefined && beforeTurnId !== undefined) {
      throw new CodexHarnessError(
        "invalid_option",
        "forkThread takes lastTurnId or beforeTurnId, not both.",
      );
    }
    const { thread } = await this.appServerOf(id).forkThread(id, {
      ...threadSettings(options),
      ...threadSourceParam(options),
      ...(options.ephemeral === undefined ? {} : { ephemeral: options.ephemeral }),
      ...(lastTurnId === undefined ? {} : { lastTurnId }),
      ...(beforeTurnId === undefined ? {} : { beforeTurnId }),
    });
    return this.threadOn(thread.id, options, events);
  }

  /**
   * codex's saved threads, newest first, fetched a page at a time as the loop asks
   * (`thread/list`, app-server transport): `for await (const saved of codex.listThreads()) …`.
   */
  async *listThreads(options: ListThreadsOptions = {}): AsyncGenerator<SavedThread> {
    const { listSavedThreads } = await import("./saved-threads.js");
    yield* listSavedThreads(this.appServer, options);
  }

  /**
   * Searches the saved threads' content for `query` (`thread/search/stream`, codex 0.171.0 on):
   * yields codex's provisional matches as it finds them (`final: false`), then the sorted page
   * (`final: true`). Stopping the loop early or aborting `options.signal` cancels it in codex.
   */
  async *searchThreads(
    query: string,
    options: SearchThreadsOptions = {},
  ): AsyncGenerator<ThreadSearchUpdate, void, undefined> {
    const { searchSavedThreads } = await import("./thread-search.js");
    yield* searchSavedThreads(this.appServer, query, options);
  }

  /** Archives a saved thread: it leaves the list (see `listThreads({ archived: true })`). */
  async archiveThread(id: string): Promise<void> {
    await this.appServerOf(id).archiveThread(id);
  }

  /** Brings an archived thread back, as a `Thread` to continue (app-server transport). */
  async unarchiveThread<T extends EventsMode = M>(
    id: string,
    options: ThreadOptions<T> = {},
  ): Promise<Thread<T>> {
    const { thread } = await this.appServerOf(id).request("thread/unarchive", { threadId: id });
    return this.threadOn(thread.id, options, this.eventsOf(options));
  }

  /** What codex answered to `initialize`: its user agent (with its version), its platform. */
  async metadata(): Promise<InitializeResponse> {
    return (await this.appServer.client()).initializeResult;
  }

  /** The models codex offers (`model/list`, every page); `includeHidden` adds the hidden ones. */
  async models(options: { includeHidden?: boolean } = {}): Promise<Model[]> {
    const models: Model[] = [];
    let cursor: string | null = null;
    do {
      const page = await this.appServer.listModels({
        ...(options.includeHidden ? { includeHidden: true } : {}),
        ...(cursor ? { cursor } : {}),
      });
      models.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    return models;
  }

  /** codex's model providers and the default new threads use (`modelProvider/list`, 0.169.0 on). */
  modelProviders(): Promise<ModelProviders> {
    return this.appServer.request("modelProvider/list", {});
  }

  /**
   * Makes configured provider `providerId` the default for new threads (`modelProvider/default/set`,
   * codex 0.171.0 on; written to `config.toml`). `applied` is false when this Codex's own
   * `config.model_provider` overrides it.
   */
  setDefaultModelProvider(providerId: string): Promise<DefaultModelProviderChange> {
    return setDefaultProvider(this.appServer, providerId);
  }

  /** Logs codex in with an API key (`account/login/start`; app-server transport). */
  async login(options: { apiKey: string }): Promise<void> {
    if (typeof options?.apiKey !== "string" || options.apiKey.trim() === "") {
      throw new CodexHarnessError("invalid_input", 'login needs { apiKey: "sk-…" }.');
    }
    await this.appServer.request("account/login/start", { type: "apiKey", apiKey: options.apiKey });
  }

  /**
   * Starts a ChatGPT login in a browser: open `authUrl`, then `await login.wait()` (codex listens
   * for the browser's return on 127.0.0.1). `cancel()` stops it.
   */
  async loginWithChatGPT(): Promise<ChatGptLogin> {
    // Loaded when used, not with the package root.
    const { startLogin } = await import("./account.js");
    return (await startLogin(this, "chatgpt")) as ChatGptLogin;
  }

  /** Starts a ChatGPT login by device code: open `verificationUrl` anywhere, enter `userCode`. */
  async loginWithDeviceCode(): Promise<DeviceCodeLogin> {
    const { startLogin } = await import("./account.js");
    return (await startLogin(this, "chatgptDeviceCode")) as DeviceCodeLogin;
  }

  /** codex's account (`account/read`): who is logged in, and whether the provider needs it. */
  account(options: { refreshToken?: boolean } = {}) {
    return this.appServer.request("account/read", { refreshToken: options.refreshToken === true });
  }

  /** Logs codex out (`account/logout`): its stored login is gone. */
  async logout(): Promise<void> {
    await this.appServer.request("account/logout", undefined);
  }

  /** The ChatGPT plan's usage limits (`account/rateLimits/read`; needs a ChatGPT login). */
  rateLimits() {
    return this.appServer.request("account/rateLimits/read", undefined);
  }

  /**
   * Listens to app-server notifications that belong to no running turn: start-up warnings
   * (`configWarning`, `deprecationNotice`), account and MCP server status, other threads. With a
   * pool, every process's. Returns an unsubscribe function. (The exec transport has none.)
   */
  onNotification(listener: (notification: RpcNotification) => void): () => void {
    const offs = this.appServers().map((member) => member.onOtherNotification(listener));
    return () => {
      for (const off of offs) off();
    };
  }

  /** Ends the app-server process (or running exec processes). Later turns reject. */
  async close(): Promise<void> {
    this.closed = true;
    await this.transport.close();
  }

  /** A thread's events mode: its own, else this Codex's. */
  private eventsOf<T extends EventsMode>(options: ThreadOptions<T>): T {
    return (checkEventsMode(options.events) ?? this.events) as T;
  }

  private activeTransport(): TurnTransport {
    if (this.closed)
      throw new CodexHarnessError("codex_closed", "This Codex was closed; create a new one.");
    return this.transport;
  }

  /** Every app-server this Codex uses (one, a pool's members, or none with exec). */
  private appServers(): readonly AppServerTurnTransport[] {
    const transport = this.activeTransport();
    if (transport instanceof PoolTransport) return transport.members;
    return transport instanceof AppServerTurnTransport ? [transport] : [];
  }

  /** The app-server of a thread (with a pool, the one it lives on), or of no thread in particular. */
  private appServerTransport(threadId: string | null): AppServerTurnTransport {
    const transport = this.activeTransport();
    if (transport instanceof PoolTransport) return transport.memberFor(threadId);
    if (transport instanceof AppServerTurnTransport) return transport;
    throw new CodexHarnessError(
      "unsupported_operation",
      'codex.appServer needs the app-server transport; create the Codex with transport: "app-server".',
    );
  }
}

function checkEventsMode(value: unknown): EventsMode | undefined {
  if (value === undefined || value === "sdk" || value === "extended") return value;
  throw new CodexHarnessError(
    "invalid_option",
    `events must be "sdk" (the official events, the default) or "extended", got ${JSON.stringify(value)}.`,
  );
}

/** Runs async jobs one after another (each starts when the previous settled). */
function oneAtATime(): <T>(job: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(job: () => Promise<T>): Promise<T> => {
    const run = last.then(job, job);
    last = run.catch(() => undefined);
    return run;
  };
}

/** The options of a codex this program starts (a remote one has its own). */
const LOCAL_OPTIONS = [...LOCAL_CODEX_OPTIONS, "baseUrl"] as const;

/** A `remote` Codex: app-server only, none of the options of a local codex, a valid `remote`. */
function checkRemote(options: CodexOptions<EventsMode>): void {
  if (options.transport === "exec") {
    throw new CodexHarnessError(
      "invalid_option",
      'remote needs transport "app-server": codex exec runs on this machine.',
    );
  }
  refuseLocalOptions(options, LOCAL_OPTIONS);
  resolveRemote(options.remote as RemoteOptions);
}

/** The endpoints a {@link CodexPool} was given (carried through `Codex`'s options). */
function endpointsOf(options: CodexOptions<EventsMode>): PoolEndpoint[] | undefined {
  return (options as { endpoints?: PoolEndpoint[] }).endpoints;
}

/** One transport per endpoint: local ones with the pool's options, remote ones with theirs. */
function poolMembers(
  options: CodexOptions<EventsMode>,
  endpoints: PoolEndpoint[],
  startInTurn: <T>(start: () => Promise<T>) => Promise<T>,
): AppServerTurnTransport[] {
  const shared: CodexOptions<EventsMode> = { ...options };
  for (const key of LOCAL_OPTIONS) delete shared[key];
  return endpoints.map((endpoint) => {
    if (endpoint === "local") return new AppServerTurnTransport(options, startInTurn);
    resolveRemote(endpoint);
    return new AppServerTurnTransport({ ...shared, remote: endpoint });
  });
}
