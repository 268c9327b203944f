// What a failed Telegram Bot API call means for the runtime: retried (429, 5xx, network, timeout)
// or given up, in messages that never hold the bot token (grammy puts it in every request URL).
import { CodexHarnessError } from "../../errors.js";
import { RetryableError } from "../backends.js";

/** What the Bot API says when a call fails (grammy's `GrammyError` carries these fields). */
interface BotApiFailure {
  error_code: number;
  description?: unknown;
  parameters?: { retry_after?: unknown };
}

function isBotApiFailure(error: unknown): error is BotApiFailure {
  return (
    typeof error === "object" &&
    error !== null &&
    typeof (error as { error_code?: unknown }).error_code === "number"
  );
}

/** `text` with every occurrence of `token` replaced by `<token>`. */
export function redactToken(text: string, token: string): string {
  return token === "" ? text : text.split(token).join("<token>");
}

/** The words of an error and of its `error` / `cause` (grammy's `HttpError` wraps the fetch error). */
function reasonOf(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    parts.push(current.message);
    const inner = current as Error & { error?: unknown };
    current = inner.error ?? inner.cause;
  }
  return parts.length > 0 ? parts.join(": ") : String(error);
}

/**
 * The error to throw for a failed call of `method`: a {@link RetryableError} for 429 (with
 * `retryAfterMs` from `parameters.retry_after`), 5xx, network failures and timeouts; a
 * {@link CodexHarnessError} `telegram_refused` for what retrying cannot fix (400, 401, 403, …).
 * No message holds `token`, and no original error is kept as `cause` (its URL holds it).
 */
export function callFailure(method: string, error: unknown, token: string): Error {
  if (isBotApiFailure(error)) {
    const code = error.error_code;
    const description = redactToken(String(error.description ?? "no description"), token);
    const message = `Telegram ${method} answered ${code}: ${description}`;
    if (code === 429 || code >= 500) {
      const after = error.parameters?.retry_after;
      return typeof after === "number" && after >= 0
        ? new RetryableError(`${message} (retry after ${after} s)`, { retryAfterMs: after * 1000 })
        : new RetryableError(message);
    }
    const hint = code === 401 || code === 404 ? " (is TELEGRAM_BOT_TOKEN right?)" : "";
    return new CodexHarnessError("telegram_refused", `${message}${hint}; not retried.`);
  }
  return new RetryableError(`Telegram ${method} failed: ${redactToken(reasonOf(error), token)}`);
}

/** Whether `error` is Telegram's "message is not modified" (an edit to the text it already has). */
export function isNotModified(error: unknown): boolean {
  return (
    isBotApiFailure(error) &&
    error.error_code === 400 &&
    /message is not modified/i.test(String(error.description))
  );
}
