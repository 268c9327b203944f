// Whether an error is worth trying again, and a helper that does: as the official Python SDK's
// `is_retryable_error` and `retry_on_overload`, in our tree (codex's -32001, a turn that failed
// for a transient reason, a remote connection that dropped).
import { RemoteDisconnectedError, RpcErrorCodes, RpcWireError } from "./rpc/errors.js";
import { DEFAULT_RETRY, type RetryOptions, withRetries } from "./rpc/retry.js";
import { TurnFailedError } from "./turns/run-result.js";

/** codex's reasons for a failed turn that another try may not meet (the model's side hiccuped). */
const TRANSIENT_TURN_FAILURES = new Set([
  "serverOverloaded",
  "internalServerError",
  "httpConnectionFailed",
  "responseStreamConnectionFailed",
  "responseStreamDisconnected",
  "responseTooManyFailedAttempts",
]);

/**
 * Whether trying again may succeed: codex said it is overloaded (-32001), a turn failed for a
 * transient reason (the model's server overloaded or erroring, its connection or stream lost), or
 * the connection to a remote codex dropped. Not: bad input, a method codex lacks (-32601), bad
 * params (-32602), usage or rate limits (they need their reset), a full context window, an abort.
 */
export function isRetryableError(error: unknown): boolean {
  if (error instanceof RpcWireError) return error.code === RpcErrorCodes.Overloaded;
  if (error instanceof RemoteDisconnectedError) return true;
  if (error instanceof TurnFailedError) {
    const reason = error.codexErrorInfo;
    const name =
      typeof reason === "string"
        ? reason
        : reason && typeof reason === "object"
          ? Object.keys(reason)[0]
          : undefined;
    return name !== undefined && TRANSIENT_TURN_FAILURES.has(name);
  }
  return false;
}

/** Options of {@link retryOnOverload}. */
export interface RetryOnOverloadOptions extends RetryOptions {
  /** Stops waiting between tries: rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Which errors to try again after (default {@link isRetryableError}). */
  isRetryable?: (error: unknown) => boolean;
}

/**
 * Calls `operation` (with the attempt number, from 0) until it resolves, trying again after an
 * error {@link isRetryableError} accepts, with exponential backoff and jitter (default: 4 retries,
 * 100 ms doubling to 5 s). Any other error, or the last retryable one, rejects at once.
 *
 * @example
 * const result = await retryOnOverload(() => thread.run("Summarize the diff"));
 */
export async function retryOnOverload<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryOnOverloadOptions = {},
): Promise<T> {
  options.signal?.throwIfAborted();
  const { maxRetries, initialDelayMs, maxDelayMs } = options;
  return withRetries(
    operation,
    {
      maxRetries: maxRetries ?? DEFAULT_RETRY.maxRetries,
      initialDelayMs: initialDelayMs ?? DEFAULT_RETRY.initialDelayMs,
      maxDelayMs: maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
    },
    options.isRetryable ?? isRetryableError,
    options.signal,
  );
}
