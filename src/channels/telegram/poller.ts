// Long polling of the Bot API (`getUpdates`): no public URL needed. One loop, started by the
// backend and stopped on close; its failures back off on their own and never touch deliveries.
import type { Api } from "grammy";
import type { Update } from "grammy/types";
import { RetryableError } from "../backends.js";
import { withRequestSignal } from "../request-signal.js";
import { callFailure, redactToken } from "./api-errors.js";
import { type ApiSignal, apiSignal } from "./signal.js";

/** Options of {@link startPolling}. */
export interface PollingOptions {
  api: Api;
  /** For redacting messages. */
  token: string;
  /** How long Telegram holds a `getUpdates` open when there is nothing (seconds). */
  timeoutSeconds: number;
  /** Called with each update, in order; its failures are its own. */
  onUpdate(update: Update): Promise<void>;
  /** A failed `getUpdates` (already redacted); polling goes on after a backoff unless it is final. */
  onError(error: Error): void;
}

/** A running poll loop. */
export interface Polling {
  /** Stops polling: aborts the open `getUpdates` and waits (at most `waitMs`) for the loop. */
  stop(waitMs?: number): Promise<void>;
}

/** How long a failed `getUpdates` waits before the next (doubling from 1 s up to 30 s). */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;

/**
 * Starts polling: `deleteWebhook` once (Telegram refuses `getUpdates` while a webhook is set), then
 * `getUpdates` with the next `offset` (which confirms the updates before it) for callback queries
 * and messages. Network errors, 5xx, 409 (another poller) and 429 (`retry_after`) are reported and
 * retried with backoff; 401/404 (a wrong token) stop the loop.
 */
export function startPolling(options: PollingOptions): Polling {
  const abort = new AbortController();
  const loop = run(options, abort.signal);
  return {
    async stop(waitMs = 5_000) {
      abort.abort();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        loop,
        new Promise((resolve) => {
          timer = setTimeout(resolve, waitMs);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}

async function run(options: PollingOptions, signal: AbortSignal): Promise<void> {
  const { api, token } = options;
  const callTimeoutMs = (options.timeoutSeconds + 15) * 1000;
  let offset = 0;
  let webhookDeleted = false;
  let backoff = FIRST_BACKOFF_MS;
  // Each call gets a signal of its own, tied to the loop's and cleaned up after it.
  const bounded = <T>(call: (signal: ApiSignal) => Promise<T>) =>
    withRequestSignal([signal], (own) => call(apiSignal(own)), callTimeoutMs);
  while (!signal.aborted) {
    const method = webhookDeleted ? "getUpdates" : "deleteWebhook";
    try {
      if (!webhookDeleted) {
        await bounded((own) => api.deleteWebhook({ drop_pending_updates: false }, own));
        webhookDeleted = true;
        continue;
      }
      const updates = await bounded((own) =>
        api.getUpdates(
          {
            offset,
            timeout: options.timeoutSeconds,
            allowed_updates: ["callback_query", "message"],
          },
          own,
        ),
      );
      backoff = FIRST_BACKOFF_MS;
      for (const update of updates) {
        offset = Math.max(offset, update.update_id + 1);
        if (signal.aborted) return;
        await options.onUpdate(update).catch((error: unknown) => {
          const reason = redactToken(String((error as Error)?.message ?? error), token);
          options.onError(new Error(`Telegram update ${update.update_id} failed: ${reason}`));
        });
      }
    } catch (error) {
      if (signal.aborted) return;
      const failure = callFailure(method, error, token);
      const code = (error as { error_code?: unknown }).error_code;
      if (code === 401 || code === 404) {
        options.onError(new Error(`${failure.message} Polling stopped.`));
        return;
      }
      options.onError(failure);
      const asked = failure instanceof RetryableError ? (failure.retryAfterMs ?? 0) : 0;
      await sleep(Math.min(Math.max(backoff, asked), MAX_BACKOFF_MS * 4), signal);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
