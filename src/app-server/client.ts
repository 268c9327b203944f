import type { InitializeResponse } from "../protocol/generated/ts/InitializeResponse.js";
import type { RpcNotification } from "../protocol/messages.js";
import type {
  AnsweredServerRequestMethod,
  ClientMethod,
  ClientParams,
  ClientResult,
  NotificationMethod,
  NotificationParams,
  ServerRequestParams,
  ServerRequestResult,
} from "../protocol/types.js";
import {
  MethodNotSupportedError,
  RpcErrorCodes,
  RpcLocalError,
  RpcWireError,
} from "../rpc/errors.js";
import { JsonRpcPeer, type RequestOptions, type ServerRequestContext } from "../rpc/peer.js";
import type { RetryOptions } from "../rpc/retry.js";
import type { Transport } from "../rpc/transport.js";
import { type CaptureSink, CapturingTransport, openCaptureFile } from "./capture.js";
import type { CodexBinary } from "./codex-binary.js";
import type { ConfigObject } from "./codex-config.js";
import { unsupportedParam } from "./codex-features.js";
import { type AppServerLink, remoteLink, spawnLink, transportLink } from "./links.js";
import { AppServerExitedError } from "./process-errors.js";
import type { RemoteOptions } from "./remote.js";
import { endRemoteThreadProcesses } from "./remote-processes.js";
import {
  startValidation,
  type ValidateMode,
  type ValidationIssue,
  ValidationIssues,
  validateModeOf,
} from "./validation.js";

/** The name and version codex-harness introduces itself with. */
export const DEFAULT_CLIENT_INFO = {
  name: "codex_harness",
  title: "codex-harness",
  version: "0.1.0",
};

/** Options of {@link AppServerClient.start}. */
export interface AppServerClientOptions {
  /** Path to the codex executable (default: `CODEX_HARNESS_CODEX_PATH`, then the bundled one). */
  codexPathOverride?: string;
  /**
   * The whole environment of the codex process. When given, `process.env` is not inherited (as in
   * `@openai/codex-sdk`); when left out, it is copied. Never mutated.
   */
  env?: Record<string, string>;
  /** The CODEX_HOME folder; created when missing. */
  codexHome?: string;
  /** Config values passed as `-c key=value` (nested objects become dotted keys). */
  config?: ConfigObject;
  /** Raw `-c` overrides, passed after `config`. */
  configOverrides?: string[];
  /** Working directory of the process. */
  cwd?: string;
  /** How this client introduces itself in `initialize`. */
  clientInfo?: { name: string; title?: string | null; version: string };
  /** Opt into experimental methods and fields (default true). */
  experimentalApi?: boolean;
  /** Notification methods codex should not send on this connection. */
  optOutNotificationMethods?: string[];
  /** Default per-request timeout in ms (default 60 000). */
  requestTimeoutMs?: number;
  /** How long `initialize` may take in ms (default 30 000). */
  initializeTimeoutMs?: number;
  /** Largest accepted stdout line in bytes (default 64 MiB). */
  maxLineBytes?: number;
  /** Retry requests codex rejects as overloaded (-32001) with these settings (default: off). */
  retry?: RetryOptions;
  /** Stderr lines kept for error messages (default 40). */
  stderrTailLines?: number;
  /** Receives codex's stderr as it arrives. */
  onStderr?: (text: string) => void;
  /** Grace period of each close step (stdin EOF, SIGTERM, SIGKILL) in ms (default 2 000). */
  closeGraceMs?: number;
  /**
   * Capture the protocol: every message in both directions, with direction and time, as JSONL
   * (tokens and API keys redacted). A path is appended to (created with mode 0600) and closed with
   * the client; a sink gets each record. Read a file back with `readCapture`, replay it with
   * `codex-harness replay <file>`.
   */
  capture?: string | CaptureSink;
  /**
   * Connect to a codex app-server running elsewhere (`ws://`, `wss://`, `unix://`) instead of
   * spawning one. The options that set up a local codex (`codexPathOverride`, `env`,
   * `codexHome`, `config`, `configOverrides`, `cwd`, stderr, `closeGraceMs`) are refused with it.
   */
  remote?: RemoteOptions;
  /**
   * Check what codex sends (notifications, server requests, results) against the pinned
   * protocol's JSON Schema: `"off"` (default: nothing checked or loaded), `"warn"` (reported, then
   * delivered as usual), `"strict"` (refused: a result rejects with `invalid_message`, a server
   * request is answered with an error and never approved, a notification is dropped and reported
   * to `onError`). Default: `$CODEX_HARNESS_VALIDATE`, else `"off"`. See {@link ValidateMode}.
   */
  validate?: ValidateMode;
  /**
   * Receives each finding of `validate` (method, field, message). Without it, `"warn"` findings
   * become process warnings (`CODEX_HARNESS_INVALID_MESSAGE`), once per method and field.
   */
  onValidationIssue?: (issue: ValidationIssue) => void;
}

/** The arguments after the method of `request()`: params (optional when the method takes none), options. */
export type ParamsArg<M extends ClientMethod> =
  undefined extends ClientParams<M>
    ? [params?: ClientParams<M>, options?: RequestOptions]
    : [params: ClientParams<M>, options?: RequestOptions];

/** Answers one kind of server request; a throw becomes a JSON-RPC error reply. */
export type ServerRequestHandler<M extends AnsweredServerRequestMethod> = (
  params: ServerRequestParams<M>,
  context: ServerRequestContext,
) => ServerRequestResult<M> | Promise<ServerRequestResult<M>>;

/** How long codex has to answer a cheap request, after another timed out, before it counts as hung. */
export const RESPONSIVE_WITHIN_MS = 5_000;

/**
 * A running, initialized `codex app-server`. Every client method of the pinned protocol is typed;
 * when the process dies, every pending request rejects at once with an {@link AppServerExitedError}.
 */
export class AppServerClient {
  /** How many requests, turns or other holders need the process now (see {@link hold}). */
  private holds = 0;
  /** Whether a responsiveness check is running. */
  private checking = false;

  private constructor(
    private readonly peer: JsonRpcPeer,
    private readonly link: AppServerLink,
    /** What codex answered to `initialize`. */
    readonly initializeResult: InitializeResponse,
    /** Whether what codex sends is checked against the schema (the `validate` option in force). */
    readonly validate: ValidateMode,
    private readonly issues: ValidationIssues,
  ) {
    // Idle until someone asks for something: an idle codex does not keep the program running.
    link.keepAlive(false);
  }

  /** Where the binary came from (undefined for a codex running elsewhere, see `remote`). */
  get binary(): CodexBinary | undefined {
    return this.link.binary;
  }

  /** Where codex runs, for messages: its process, or the remote endpoint (never a token). */
  get endpoint(): string {
    return this.link.endpoint;
  }

  /**
   * Keeps the program running while work is in flight (a request, a turn): codex's process and
   * pipes hold Node's event loop only while someone holds the client. Call the result when done.
   * Requests hold it by themselves.
   */
  hold(): () => void {
    if (this.holds++ === 0) this.link.keepAlive(true);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.holds === 0) this.link.keepAlive(false);
    };
  }

  /**
   * Spawns `codex app-server` (or, with `remote`, connects to one running elsewhere), sends
   * `initialize` and `initialized`, and resolves when ready.
   */
  static async start(options: AppServerClientOptions = {}): Promise<AppServerClient> {
    return AppServerClient.over(
      () => (options.remote ? remoteLink(options) : spawnLink(options)),
      options,
    );
  }

  /**
   * Initializes a codex app-server reached over a transport of your own (a pipe through SSH, a
   * socket, a test double): the same client as {@link start}'s, over `transport`. Closing the
   * client closes the transport. `options` may set the request, initialize and capture settings.
   */
  static async connect(
    transport: Transport,
    options: Pick<
      AppServerClientOptions,
      | "clientInfo"
      | "experimentalApi"
      | "optOutNotificationMethods"
      | "requestTimeoutMs"
      | "initializeTimeoutMs"
      | "retry"
      | "capture"
      | "validate"
      | "onValidationIssue"
    > & { endpoint?: string } = {},
  ): Promise<AppServerClient> {
    return AppServerClient.over(async () => transportLink(transport, options.endpoint), options);
  }

  private static async over(
    makeLink: () => Promise<AppServerLink>,
    options: AppServerClientOptions,
  ): Promise<AppServerClient> {
    // Settled first, so that a bad mode or a missing schema fails with nothing to clean up.
    const validate = validateModeOf(options.validate);
    const issues = new ValidationIssues(options.onValidationIssue);
    const check = await startValidation(validate, issues.report);
    // Opened next, so that a bad path fails with nothing to clean up.
    const capture =
      typeof options.capture === "string" ? openCaptureFile(options.capture) : options.capture;
    let link: AppServerLink;
    try {
      link = await makeLink();
    } catch (error) {
      await capture?.close?.();
      throw error;
    }
    const peer = new JsonRpcPeer(
      capture ? new CapturingTransport(link.transport, capture) : link.transport,
      {
        ...(options.requestTimeoutMs === undefined
          ? {}
          : { requestTimeoutMs: options.requestTimeoutMs }),
        ...(options.retry === undefined ? {} : { retry: options.retry }),
        ...(check === undefined ? {} : { check }),
      },
    );
    try {
      await peer.start();
      const initializeTimeoutMs = options.initializeTimeoutMs ?? 30_000;
      const result = (await peer.request(
        "initialize",
        {
          clientInfo: { ...DEFAULT_CLIENT_INFO, ...options.clientInfo },
          capabilities: {
            experimentalApi: options.experimentalApi ?? true,
            requestAttestation: false,
            optOutNotificationMethods: options.optOutNotificationMethods ?? null,
          },
        },
        { timeoutMs: initializeTimeoutMs },
      )) as InitializeResponse;
      await peer.notify("initialized");
      return new AppServerClient(peer, link, result, validate, issues);
    } catch (error) {
      const explained = await link.explainStartFailure(error);
      await peer.close();
      throw explained;
    }
  }

  /** The process id of codex (undefined for a remote one). */
  get pid(): number | undefined {
    return this.link.pid;
  }

  /**
   * Kills the processes codex started for `threadId` since `sinceMs` (`Date.now()` time) and
   * resolves once they are gone, with their pids: a stopped turn's commands, found by the
   * environment codex gives them (Linux). A remote codex ends them on its machine, running a
   * script for it (see `remote-processes.ts`).
   */
  endThreadProcesses(threadId: string, sinceMs: number): Promise<number[]> {
    return (
      this.link.endThreadProcesses?.(threadId, sinceMs) ??
      endRemoteThreadProcesses(this, threadId, sinceMs)
    );
  }

  /**
   * Resolves with the exit code/signal once the process has exited; for a remote codex, with
   * nulls once the connection has ended.
   */
  get exited(): Promise<{ exitCode: number | null; signal: NodeJS.Signals | null }> {
    return this.link.ended;
  }

  /** Why the connection ended, once it has (an {@link AppServerExitedError} when codex died). */
  get closedReason(): Error | undefined {
    return this.peer.closedReason;
  }

  /** Sends a typed client request. */
  request<M extends ClientMethod>(method: M, ...args: ParamsArg<M>): Promise<ClientResult<M>> {
    const [params, options] = args;
    // A param this codex would drop without a word (see codex-features.ts) is refused instead.
    const unsupported = unsupportedParam(method, params, this.codexVersion);
    if (unsupported) return Promise.reject(unsupported);
    const release = this.hold();
    return (this.peer.request(method, params, options) as Promise<ClientResult<M>>)
      .finally(release)
      .catch((error: unknown) => {
        if (error instanceof RpcLocalError && error.code === "timeout") void this.checkResponsive();
        if (isUnknownMethod(error, method)) {
          const wire = error as RpcWireError;
          throw new MethodNotSupportedError(
            {
              code: wire.code,
              message: wire.message.replace(/, expected one of .*/s, ""),
              data: wire.data,
            },
            method,
            this.codexVersion,
          );
        }
        throw error;
      });
  }

  /** The codex version, from `initialize`'s user agent (`name/VERSION (…)`), or "unknown". */
  get codexVersion(): string {
    return /\/(\d+\.\d+\.\d+[^\s]*)/.exec(this.initializeResult.userAgent)?.[1] ?? "unknown";
  }

  /** Listens to one notification method with typed params. Returns an unsubscribe function. */
  onNotification<M extends NotificationMethod>(
    method: M,
    listener: (params: NotificationParams<M>) => void,
  ): () => void {
    return this.peer.onNotification(method, listener as (params: unknown) => void);
  }

  /** Listens to every notification, including methods this version does not know. */
  onAnyNotification(listener: (notification: RpcNotification) => void): () => void {
    return this.peer.onAnyNotification(listener);
  }

  /** Answers one kind of server request. Unhandled kinds get a JSON-RPC error reply. */
  setRequestHandler<M extends AnsweredServerRequestMethod>(
    method: M,
    handler: ServerRequestHandler<M>,
  ): () => void {
    return this.peer.setRequestHandler(method, (params, context) =>
      handler(params as ServerRequestParams<M>, context),
    );
  }

  /** Listens to the findings of `validate` (see {@link AppServerClientOptions.validate}). */
  onValidationIssue(listener: (issue: ValidationIssue) => void): () => void {
    return this.issues.subscribe(listener);
  }

  /** Errors that do not end the connection (unreadable lines, stray responses, failing handlers). */
  onError(listener: (error: Error) => void): () => void {
    return this.peer.onError(listener);
  }

  /** Called once when the connection ends, with the reason. */
  onClose(listener: (reason: Error) => void): () => void {
    return this.peer.onClose(listener);
  }

  /**
   * After a request timed out: codex must answer a cheap request within
   * {@link RESPONSIVE_WITHIN_MS}, or it is taken as hung and killed, which ends the connection as
   * a crash does (running turns fail with `AppServerExitedError`, a `Codex` starts a new process
   * on its next use).
   */
  private async checkResponsive(): Promise<void> {
    if (this.checking || this.peer.closedReason) return;
    this.checking = true;
    try {
      await this.peer.request("thread/loaded/list", {}, { timeoutMs: RESPONSIVE_WITHIN_MS });
    } catch (error) {
      if (error instanceof RpcLocalError && error.code === "timeout") {
        this.link.kill();
      }
    } finally {
      this.checking = false;
    }
  }

  /** Closes the connection and ends the process (stdin EOF, SIGTERM, SIGKILL). Bounded in time. */
  async close(): Promise<void> {
    // Ending codex is work in flight: the program waits for it.
    const release = this.hold();
    try {
      await this.peer.close(new RpcLocalError("closed", "The app-server client was closed."));
    } finally {
      release();
    }
  }
}

/**
 * Whether codex refused `method` as unknown: JSON-RPC's -32601, or what codex really answers
 * (0.163.0 and 0.169.0): -32600 "Invalid request: unknown variant `<method>`, expected one of …".
 */
function isUnknownMethod(error: unknown, method: string): boolean {
  if (!(error instanceof RpcWireError)) return false;
  if (error.code === RpcErrorCodes.MethodNotFound) return true;
  return (
    error.code === RpcErrorCodes.InvalidRequest &&
    error.message.includes(`unknown variant \`${method}\``)
  );
}
