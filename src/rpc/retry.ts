// Waiting: exponential backoff with jitter (for requests codex rejects as overloaded, -32001),
// sleeps that an AbortSignal ends, and waits bounded in time.

/** How to retry an overloaded request. */
export interface RetryOptions {
  /** Retries after the first attempt (default 4). */
  maxRetries?: number;
  /** The first delay before jitter, in ms (default 100). */
  initialDelayMs?: number;
  /** The largest delay before jitter, in ms (default 5000). */
  maxDelayMs?: number;
}

/** The retry settings in force when a caller opts in with `retry: true`. */
export const DEFAULT_RETRY: Required<RetryOptions> = {
  maxRetries: 4,
  initialDelayMs: 100,
  maxDelayMs: 5_000,
};

/** The delay before retry number `attempt` (0-based): exponential, capped, with "equal jitter". */
export function backoffDelay(
  attempt: number,
  options: Required<RetryOptions>,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** attempt);
  return ceiling / 2 + random() * (ceiling / 2);
}

/**
 * Calls `operation` (with the attempt number, from 0) until it resolves. After an error that
 * `retryable` accepts (it sees every error, the last one too), waits the backoff and tries again,
 * up to `settings.maxRetries` retries; a wait that `signal` ends rejects with its reason.
 */
export async function withRetries<T>(
  operation: (attempt: number) => Promise<T>,
  settings: Required<RetryOptions>,
  retryable: (error: unknown, attempt: number) => boolean,
  signal?: AbortSignal,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (!retryable(error, attempt) || attempt >= settings.maxRetries) throw error;
    }
    await sleep(backoffDelay(attempt, settings), signal);
  }
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Whether `promise` settles (either way) within `ms`; the timer does not hold the event loop. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  const settled = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    timeout,
  ]);
  clearTimeout(timer);
  return settled;
}
