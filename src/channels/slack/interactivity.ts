// Slack's interactivity endpoint (the app's "Request URL"): a signed, form-encoded `payload=…` POST
// for every click. It checks the signature on the raw body, acknowledges at once (Slack waits 3 s)
// and hands the payload on.
import type { IncomingMessage, ServerResponse } from "node:http";
import { headerOf, readRawBody, sendFailure } from "../http-body.js";
import { SLACK_SIGNATURE_HEADER, SLACK_TIMESTAMP_HEADER, verifySlackRequest } from "./signature.js";

/** Where `codex-harness serve` mounts the endpoint by default. */
export const SLACK_INTERACTIONS_PATH = "/v1/slack/interactions";
/** The largest payload accepted (Slack's carry the whole message; far below this). */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * An HTTP handler for Slack's interactivity requests: 401 for a missing, forged or stale
 * signature, 400 for a body that is not `payload=<json>`, else 200 and `onPayload(payload)`
 * (not awaited: the caller runs and tracks it).
 */
export function interactivityHandler(
  signingSecret: string,
  onPayload: (payload: unknown) => void,
  now: () => number = Date.now,
): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  return async (request, response) => {
    const body = await readRawBody(request, MAX_BODY_BYTES);
    if (body === undefined) {
      return sendFailure(response, 413, "too_large", "The body is over 1 MiB.");
    }
    const check = verifySlackRequest(
      signingSecret,
      {
        signature: headerOf(request, SLACK_SIGNATURE_HEADER),
        timestamp: headerOf(request, SLACK_TIMESTAMP_HEADER),
      },
      body,
      { now: now() },
    );
    if (check !== "ok") {
      const message = `The Slack signature is ${check}; the request was ignored.`;
      return sendFailure(response, 401, "unauthorized", message);
    }
    let payload: unknown;
    try {
      payload = JSON.parse(new URLSearchParams(body.toString("utf8")).get("payload") ?? "");
    } catch {
      return sendFailure(
        response,
        400,
        "invalid_request",
        "Expected a form body with payload=<JSON>.",
      );
    }
    response.writeHead(200, { "content-length": 0 }).end();
    onPayload(payload);
  };
}
