// Keeps one codex app-server running: starts it on demand, restarts it after a crash with backoff, gives up when it keeps crashing.

import { CodexHarnessError } from "../errors.js";
import { RemoteDisconnectedError } from "../rpc/errors.js";
import { backoffDelay } from "../rpc/retry.js";
import type { AppServerClient } from "./client.js";
import { AppServerExitedError } from "./process-errors.js";

/** How often a crashed app-server is restarted. */
export interface RestartPolicy {
  /** Restarts allowed within `windowMs` before the Codex stays failed (default 5). */
  maxRestarts?: number;
  /** The window for `maxRestarts`, in ms (default 60 000). */
  windowMs?: number;
  /** The first restart's delay before jitter, in ms (default 250). */
  initialDelayMs?: number;
  /** The longest delay before jitter, in ms (default 5 000). */
  maxDelayMs?: number;
}

const DEFAULTS: Required<RestartPolicy> = {
  maxRestarts: 5,
  windowMs: 60_000,
  initialDelayMs: 250,
  maxDelayMs: 5_000,
};

/**
 * Owns the app-server connection. A process that dies unexpectedly is not restarted at once: the
 * next use starts a new one after a backoff that grows with the crashes in the window; past
 * `maxRestarts` crashes in `windowMs` every use fails with `app_server_failed`.
 */
export class AppServerSupervisor {
  private client: Promise<AppServerClient> | undefined;
  private readonly crashes: number[] = [];
  private failure: CodexHarnessError | undefined;
  private closed = false;
  private uses = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly policy: Required<RestartPolicy> | undefined;

  /**
   * @param start spawns and initializes a new app-server
   * @param idleShutdownMs stop the process after this long without use (it restarts on demand)
   */
  constructor(
    private readonly start: () => Promise<AppServerClient>,
    policy: RestartPolicy | false | undefined,
    private readonly idleShutdownMs?: number,
  ) {
    this.policy = policy === false ? undefined : { ...DEFAULTS, ...policy };
  }

  /** The running app-server, started (or restarted) if needed. */
  connection(): Promise<AppServerClient> {
    if (this.closed) {
      return Promise.reject(
        new CodexHarnessError("codex_closed", "This Codex was closed; create a new one."),
      );
    }
    if (this.failure) return Promise.reject(this.failure);
    this.client ??= this.launch().catch((error: unknown) => {
      this.client = undefined;
      throw error;
    });
    return this.client;
  }

  /** The app-server if one is running or starting, without starting one. */
  current(): Promise<AppServerClient> | undefined {
    return this.client;
  }

  /** Marks the process as in use (a turn runs); call the result when done. */
  use(): () => void {
    this.uses++;
    clearTimeout(this.idleTimer);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      if (--this.uses === 0 && this.idleShutdownMs !== undefined) {
        this.idleTimer = setTimeout(() => void this.stopIfIdle(), this.idleShutdownMs);
        this.idleTimer.unref();
      }
    };
  }

  /** Whether a turn is using the process. */
  get busy(): number {
    return this.uses;
  }

  private async stopIfIdle(): Promise<void> {
    if (this.uses > 0 || this.closed) return;
    const client = await this.client?.catch(() => undefined);
    if (this.uses > 0 || !client) return;
    this.client = undefined;
    await client.close();
  }

  /** Ends the app-server; later uses fail with `codex_closed`. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    const client = await this.client?.catch(() => undefined);
    this.client = undefined;
    await client?.close();
  }

  private async launch(): Promise<AppServerClient> {
    const delay = this.restartDelay();
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    if (this.closed)
      throw new CodexHarnessError("codex_closed", "This Codex was closed; create a new one.");
    const client = await this.start();
    client.onClose((reason) => {
      // A crash, or a remote connection lost: the next use starts (connects) again.
      if (
        this.closed ||
        !(reason instanceof AppServerExitedError || reason instanceof RemoteDisconnectedError)
      ) {
        return;
      }
      this.client = undefined;
      this.crashed(reason);
    });
    return client;
  }

  /** Records a crash; past the bound, the supervisor stays failed. */
  private crashed(reason: AppServerExitedError | RemoteDisconnectedError): void {
    const now = Date.now();
    this.crashes.push(now);
    const windowMs = this.policy?.windowMs ?? 0;
    while (this.crashes.length > 0 && (this.crashes[0] as number) < now - windowMs)
      this.crashes.shift();
    const allowed = this.policy?.maxRestarts ?? 0;
    if (this.crashes.length > allowed) {
      this.failure = new CodexHarnessError(
        "app_server_failed",
        this.policy
          ? `codex app-server exited ${this.crashes.length} times within ${windowMs / 1000} s, so it is not restarted again. Last exit: ${reason.message}`
          : `codex app-server exited and restarts are off (restart: false). Last exit: ${reason.message}`,
        { cause: reason },
      );
    }
  }

  private restartDelay(): number {
    if (!this.policy || this.crashes.length === 0) return 0;
    return backoffDelay(this.crashes.length - 1, {
      maxRetries: this.policy.maxRestarts,
      initialDelayMs: this.policy.initialDelayMs,
      maxDelayMs: this.policy.maxDelayMs,
    });
  }
}
