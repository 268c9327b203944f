// Slack's interactivity endpoint (the app's "Request URL"): a signed, form-encoded `payload=…` POST
// for every click. It checks the signature on the raw body, acknowledges at once (Slack waits 3 s)
// and hands the payload on.
import type { IncomingMessage, ServerResponse } from "node:http";
import { readRawBody } from "../http-body.js";
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
    if (body === undefined) return reply(response, 413, "The body is over 1 MiB.");
    const check = verifySlackRequest(
      signingSecret,
      {
        signature: header(request, SLACK_SIGNATURE_HEADER),
        timestamp: header(request, SLACK_TIMESTAMP_HEADER),
      },
      body,
      { now: now() },
    );
    if (check !== "ok") {
      return reply(response, 401, `The Slack signature is ${check}; the request was ignored.`);
    }
    let payload: unknown;
    try {
      payload = JSON.parse(new URLSearchParams(body.toString("utf8")).get("payload") ?? "");
    } catch {
      return reply(response, 400, "Expected a form body with payload=<JSON>.");
    }
    response.writeHead(200, { "content-length": 0 }).end();
    onPayload(payload);
  };
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function reply(response: ServerResponse, status: number, message: string): void {
  const text = JSON.stringify({
    error: { code: status === 401 ? "unauthorized" : "invalid_request", message },
  });
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...(status === 413 ? { connection: "close" } : {}),
  });
  response.end(text);
}
