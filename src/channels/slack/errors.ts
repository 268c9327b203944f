// Slack Web API failures as delivery outcomes: rate limits, 5xx and network errors are retried by
// the dispatcher's backoff (the SDK's own retries are off); anything else is given up, with a code.
import { CodexHarnessError } from "../../errors.js";
import { RetryableError } from "../backends.js";

/** Platform errors (`ok: false`) that say "try again later". */
const TRANSIENT = new Set([
  "ratelimited",
  "fatal_error",
  "internal_error",
  "service_unavailable",
  "request_timeout",
]);

/**
 * The error to throw for a failed Slack call `method`, from what `@slack/web-api` threw (told
 * apart by its `code`): a {@link RetryableError} (with the 429's `Retry-After`) or a
 * {@link CodexHarnessError} of code `slack_error`. Messages name the method and Slack's error,
 * never the request (which holds the token).
 */
export function slackFailure(method: string, error: unknown): Error {
  const failure = (error ?? {}) as {
    code?: unknown;
    retryAfter?: unknown;
    statusCode?: unknown;
    original?: { message?: unknown };
    data?: { error?: unknown };
  };
  switch (failure.code) {
    case "slack_webapi_rate_limited_error": {
      const seconds = typeof failure.retryAfter === "number" ? failure.retryAfter : 1;
      return new RetryableError(`Slack rate-limited ${method}; retry after ${seconds} s.`, {
        cause: error,
        retryAfterMs: seconds * 1000,
      });
    }
    case "slack_webapi_http_error": {
      const status = Number(failure.statusCode);
      const message = `Slack answered ${method} with HTTP ${status}`;
      if (status === 429 || status >= 500) return new RetryableError(message, { cause: error });
      return new CodexHarnessError("slack_error", `${message}; not retried.`, { cause: error });
    }
    case "slack_webapi_request_error":
      return new RetryableError(
        `Slack could not be reached for ${method}: ${String(failure.original?.message ?? "request failed")}`,
        { cause: error },
      );
    case "slack_webapi_platform_error": {
      const code = String(failure.data?.error ?? "unknown_error");
      const message = `Slack refused ${method}: ${code}`;
      if (TRANSIENT.has(code)) return new RetryableError(message, { cause: error });
      return new CodexHarnessError("slack_error", `${message}${hintOf(code)}`, { cause: error });
    }
    default:
      return new CodexHarnessError(
        "slack_error",
        `Slack call ${method} failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
  }
}

function hintOf(code: string): string {
  if (code === "invalid_auth" || code === "not_authed" || code === "token_revoked") {
    return " (check SLACK_BOT_TOKEN: a bot token, xoxb-…).";
  }
  if (code === "not_in_channel" || code === "channel_not_found") {
    return " (invite the app to the channel: /invite @your-app).";
  }
  if (code === "missing_scope") return " (the app needs the chat:write scope).";
  return ".";
}
