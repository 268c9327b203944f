// The webhook backend: POSTs each change as JSON, signed with HMAC-SHA256 over a shared secret.
import { createHmac, timingSafeEqual } from "node:crypto";
import { CodexHarnessError } from "../errors.js";
import { type InteractionBackend, RetryableError } from "./backends.js";
import type { InteractionChange } from "./interaction-types.js";
import { withRequestSignal } from "./request-signal.js";
import { timestampCheck } from "./signed-requests.js";

/** Options of {@link webhookBackend}. */
export interface WebhookBackendOptions {
  /** Where to POST. */
  url: string;
  /** The shared secret the receiver checks signatures with. */
  secret: string;
  /** Per-request timeout (default 10 s). */
  timeoutMs?: number;
  /** Backend name in logs (default `webhook`). */
  name?: string;
}

/** Header with `sha256=<hex HMAC of "<timestamp>.<body>">`. */
export const SIGNATURE_HEADER = "x-codex-harness-signature";
/** Header with the signing time (Unix seconds), part of what is signed (replays can be refused). */
export const TIMESTAMP_HEADER = "x-codex-harness-timestamp";

/** The signature of a body sent at `timestamp` (what {@link SIGNATURE_HEADER} carries). */
export function signWebhook(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/**
 * Checks a received webhook: the signature over `<timestamp>.<body>` and, with `toleranceSeconds`
 * (default 300), that the timestamp is recent. For receivers written in Node.
 */
export function verifyWebhook(
  secret: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  body: string,
  options: { toleranceSeconds?: number; now?: number } = {},
): boolean {
  const { signature, timestamp } = headers;
  if (!signature || timestamp === undefined) return false;
  if (timestampCheck(timestamp, options, 300) !== "ok") return false;
  const expected = Buffer.from(signWebhook(secret, timestamp, body));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * A backend POSTing `{type, seq, interaction}` for every change, with headers
 * `x-codex-harness-event`, `x-codex-harness-delivery` (the change's sequence number),
 * {@link TIMESTAMP_HEADER} and {@link SIGNATURE_HEADER}. 2xx is delivered; network errors, timeouts,
 * 429 and 5xx are retried with backoff; other statuses are given up. The receiver answers through
 * the runtime's API (`POST /v1/interactions/:id/respond`).
 */
export function webhookBackend(options: WebhookBackendOptions): InteractionBackend {
  if (!/^https?:\/\//.test(options?.url ?? "")) {
    throw new CodexHarnessError(
      "invalid_option",
      "webhookBackend needs `url`, an http(s) address.",
    );
  }
  if (typeof options.secret !== "string" || options.secret.length < 16) {
    throw new CodexHarnessError(
      "invalid_option",
      "webhookBackend needs `secret`, a shared secret of at least 16 characters.",
    );
  }
  return {
    name: options.name ?? "webhook",
    async deliver(change: InteractionChange, context) {
      const body = JSON.stringify(change);
      const timestamp = String(Math.floor(Date.now() / 1000));
      // A signal of this delivery's own: the dispatcher's lives as long as the runtime, and
      // `AbortSignal.any` on it per delivery would keep a reference per delivery (Node 20).
      const response = await withRequestSignal(
        [context.signal],
        async (signal) => {
          let answer: Response;
          try {
            answer = await fetch(options.url, {
              method: "POST",
              headers: {
                "content-type": "application/json",
                "x-codex-harness-event": change.type,
                "x-codex-harness-delivery": String(change.seq),
                [TIMESTAMP_HEADER]: timestamp,
                [SIGNATURE_HEADER]: signWebhook(options.secret, timestamp, body),
              },
              body,
              signal,
            });
          } catch (error) {
            throw new RetryableError(`POST ${options.url} failed: ${(error as Error).message}`, {
              cause: error,
            });
          }
          await answer.body?.cancel();
          return answer;
        },
        options.timeoutMs ?? 10_000,
      );
      if (response.ok) return;
      const message = `POST ${options.url} answered ${response.status}`;
      if (response.status === 429 || response.status >= 500) throw new RetryableError(message);
      throw new CodexHarnessError("webhook_refused", `${message}; not retried.`);
    },
  };
}
