// Slack's request signing: `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<timestamp>:<body>">`
// with the app's signing secret, and `X-Slack-Request-Timestamp` within five minutes.
import { createHmac, timingSafeEqual } from "node:crypto";
import { timestampCheck } from "../signed-requests.js";

/** Header with Slack's `v0=` signature. */
export const SLACK_SIGNATURE_HEADER = "x-slack-signature";
/** Header with the time Slack signed the request (Unix seconds). */
export const SLACK_TIMESTAMP_HEADER = "x-slack-request-timestamp";
/** How old (or how far ahead) a signed request may be, in seconds: Slack's five minutes. */
export const SLACK_TOLERANCE_SECONDS = 300;

/** The `v0=` signature Slack sends for `body` at `timestamp` (tests, fake servers). */
export function signSlackRequest(
  signingSecret: string,
  timestamp: string,
  body: string | Buffer,
): string {
  const hmac = createHmac("sha256", signingSecret);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(body);
  return `v0=${hmac.digest("hex")}`;
}

/** Why a request's signature was refused, or `ok`. */
export type SlackSignatureCheck = "ok" | "missing" | "stale" | "mismatch";

/**
 * Checks a request from Slack against the signing secret: the signature over the raw `body`
 * (compared in constant time) and a timestamp within `toleranceSeconds` of `now`.
 */
export function verifySlackRequest(
  signingSecret: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  body: string | Buffer,
  options: { toleranceSeconds?: number; now?: number } = {},
): SlackSignatureCheck {
  const { signature, timestamp } = headers;
  if (!signature || timestamp === undefined) return "missing";
  const when = timestampCheck(timestamp, options, SLACK_TOLERANCE_SECONDS);
  if (when !== "ok") return when;
  const expected = Buffer.from(signSlackRequest(signingSecret, timestamp, body));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? "ok" : "mismatch";
}
