// Discord REST failures as delivery outcomes: rate limits (discord.js's RateLimitError, its own
// queueing off), 5xx, timeouts and network errors are retried by the dispatcher's backoff; other
// API errors are given up, with a code and a hint. No message ever holds the bot token.
import { CodexHarnessError } from "../../errors.js";
import { RetryableError } from "../backends.js";

/** What discord.js's REST errors carry (told apart by `name`). */
interface RestFailure {
  name?: unknown;
  message?: unknown;
  status?: unknown;
  code?: unknown;
  retryAfter?: unknown;
  timeToReset?: unknown;
  global?: unknown;
}

/**
 * The error to throw for a failed Discord call `what` (e.g. `POST /channels/{id}/messages`): a
 * {@link RetryableError} (with the wait Discord asked for) or a {@link CodexHarnessError} of code
 * `discord_error`. `token` is cut out of every message.
 */
export function discordFailure(what: string, error: unknown, token: string): Error {
  const failure = (error ?? {}) as RestFailure;
  const said = redact(String(failure.message ?? error), token);
  const name = String(failure.name ?? "");
  if (name.startsWith("RateLimitError") || typeof failure.retryAfter === "number") {
    const waits = [failure.retryAfter, failure.timeToReset].filter(
      (value): value is number => typeof value === "number" && value > 0,
    );
    const retryAfterMs = Math.ceil(Math.max(1_000, ...waits));
    return new RetryableError(
      `Discord rate-limited ${what}${failure.global === true ? " (global limit)" : ""}; retry after ${(retryAfterMs / 1000).toFixed(1)} s.`,
      { cause: error, retryAfterMs },
    );
  }
  const status = typeof failure.status === "number" ? failure.status : undefined;
  if (status !== undefined) {
    const code = name.startsWith("DiscordAPIError") ? ` (code ${String(failure.code)})` : "";
    const message = `Discord answered ${what} with HTTP ${status}: ${said}${code}`;
    if (status === 429 || status >= 500) return new RetryableError(message, { cause: error });
    return new CodexHarnessError("discord_error", `${message}${hintOf(status, failure.code)}`, {
      cause: error,
    });
  }
  if (name === "AbortError" || name === "TimeoutError") {
    return new RetryableError(`Discord did not answer ${what} in time.`, { cause: error });
  }
  if (/fetch failed|ECONN|ENOTFOUND|EAI_AGAIN|socket|network|terminated/i.test(said)) {
    const reason = (error as { cause?: { code?: unknown } }).cause?.code;
    return new RetryableError(
      `Discord could not be reached for ${what}: ${said}${typeof reason === "string" ? ` (${reason})` : ""}`,
      { cause: error },
    );
  }
  return new CodexHarnessError("discord_error", `Discord call ${what} failed: ${said}`, {
    cause: error,
  });
}

function hintOf(status: number, code: unknown): string {
  if (status === 401) return " (check DISCORD_BOT_TOKEN: the bot token from the Developer Portal).";
  if (code === 50001 || code === 50013 || status === 403) {
    return " (invite the bot with the bot scope and Send Messages, and let it see the channel).";
  }
  if (code === 10003) return " (check --discord-channel: a text channel id the bot can see).";
  return ".";
}

/** `text` with every occurrence of `token` replaced. */
export function redact(text: string, token: string): string {
  return token ? text.split(token).join("***") : text;
}
