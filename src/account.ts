// Logging codex in and out, and its account, as the Codex class offers them (as the official
// Python SDK does): an API key at once; ChatGPT in a browser or by device code as a handle whose
// wait() takes only its own login's completion.
import type { AppServerAccess } from "./app-server-access.js";
import { CodexHarnessError } from "./errors.js";
import type { AccountLoginCompletedNotification } from "./protocol/generated/ts/v2/AccountLoginCompletedNotification.js";
import type { CancelLoginAccountStatus } from "./protocol/generated/ts/v2/CancelLoginAccountStatus.js";
import type { RpcNotification } from "./protocol/messages.js";

/** How long {@link LoginHandle.wait} waits by default (10 minutes). */
export const DEFAULT_LOGIN_WAIT_MS = 10 * 60_000;

/** A browser or device-code login under way. */
export interface LoginHandle {
  /** codex's id of this login attempt. */
  readonly loginId: string;
  /**
   * Resolves once this login completed (another login's completion is not taken). Rejects with
   * `login_failed` (codex's reason; a cancelled login too), or `login_timeout` after `timeoutMs`
   * (default 10 minutes), or the signal's reason.
   */
  wait(options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<void>;
  /** Stops the login at codex (its `wait()` then rejects with `login_failed`). */
  cancel(): Promise<CancelLoginAccountStatus>;
}

/** A ChatGPT login in a browser: open `authUrl`. */
export interface ChatGptLogin extends LoginHandle {
  readonly authUrl: string;
}

/** A ChatGPT login by device code: open `verificationUrl` on any device and enter `userCode`. */
export interface DeviceCodeLogin extends LoginHandle {
  readonly verificationUrl: string;
  readonly userCode: string;
}

/** What `Codex` gives the login code: its app-server and its notifications. */
export interface LoginHost {
  appServer: AppServerAccess;
  onNotification(listener: (notification: RpcNotification) => void): () => void;
}

/** Starts a ChatGPT login (`account/login/start`); the handle waits for its completion. */
export async function startLogin(
  host: LoginHost,
  type: "chatgpt" | "chatgptDeviceCode",
): Promise<ChatGptLogin | DeviceCodeLogin> {
  const client = await host.appServer.client();
  // Listening before the login starts: its completion cannot come before we listen.
  // (Until codex names this login, every login's completion is kept; then only its own.)
  const completions = new Map<string, AccountLoginCompletedNotification>();
  const waiters = new Set<() => void>();
  let ours: string | undefined;
  /** Set when codex went away: no completion will come, so a wait ends with why. */
  let gone: Error | undefined;
  const offCompleted = host.onNotification((notification) => {
    if (notification.method !== "account/login/completed") return;
    const completion = notification.params as AccountLoginCompletedNotification;
    if (completion.loginId === null || (ours !== undefined && completion.loginId !== ours)) return;
    completions.set(completion.loginId, completion);
    if (completion.loginId === ours) release();
    for (const waiter of waiters) waiter();
  });
  const offClose = client.onClose((reason) => {
    gone = reason;
    release();
    for (const waiter of waiters) waiter();
  });
  function release(): void {
    offCompleted();
    offClose();
  }
  let started: Awaited<ReturnType<typeof host.appServer.request<"account/login/start">>>;
  try {
    started = await host.appServer.request("account/login/start", { type });
  } catch (error) {
    release();
    throw error;
  }
  if (started.type !== "chatgpt" && started.type !== "chatgptDeviceCode") {
    release();
    throw new CodexHarnessError(
      "login_failed",
      `codex answered a ${type} login with ${started.type}.`,
    );
  }
  const { loginId } = started;
  ours = loginId;
  if (completions.has(loginId)) release();
  const handle: LoginHandle = {
    loginId,
    wait: ({ signal, timeoutMs = DEFAULT_LOGIN_WAIT_MS } = {}) =>
      new Promise<void>((resolve, reject) => {
        const finish = (error?: unknown) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          waiters.delete(check);
          if (error === undefined) resolve();
          else reject(error);
        };
        const check = () => {
          const completion = completions.get(loginId);
          if (!completion) {
            if (gone) finish(gone);
            return;
          }
          finish(
            completion.success
              ? undefined
              : new CodexHarnessError(
                  "login_failed",
                  `codex login failed: ${completion.error ?? "no reason given"}.`,
                ),
          );
        };
        const onAbort = () => finish(signal?.reason);
        // Not unref'd: a program awaiting its login stays alive (an idle codex does not hold it).
        const timer = setTimeout(
          () =>
            finish(
              new CodexHarnessError(
                "login_timeout",
                `The login was not completed within ${timeoutMs} ms; start it again (or raise timeoutMs).`,
              ),
            ),
          timeoutMs,
        );
        if (signal?.aborted) return onAbort();
        signal?.addEventListener("abort", onAbort, { once: true });
        waiters.add(check);
        check();
      }),
    cancel: async () => (await host.appServer.request("account/login/cancel", { loginId })).status,
  };
  return started.type === "chatgpt"
    ? { ...handle, authUrl: started.authUrl }
    : { ...handle, verificationUrl: started.verificationUrl, userCode: started.userCode };
}
