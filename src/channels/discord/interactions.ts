// Discord's Interactions Endpoint URL: a signed JSON POST for every interaction with the app. It
// checks the Ed25519 signature on the raw body (401 otherwise, as Discord's own check of the URL
// expects), answers PING with PONG, and hands a button click on for the reply Discord shows.
import type { KeyObject } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { headerOf, readRawBody, sendFailure, sendJson } from "../http-body.js";
import { type DiscordReply, tellOnly } from "./clicks.js";
import {
  DISCORD_SIGNATURE_HEADER,
  DISCORD_TIMESTAMP_HEADER,
  verifyDiscordRequest,
} from "./signature.js";

/** Where `codex-harness serve` mounts the endpoint by default. */
export const DISCORD_INTERACTIONS_PATH = "/v1/discord/interactions";
/** The largest body accepted (a click carries its message; far below this). */
const MAX_BODY_BYTES = 1024 * 1024;
/** Interaction types: PING, and a message component (a button). */
const PING = 1;
const MESSAGE_COMPONENT = 3;

/**
 * An HTTP handler for Discord's interaction requests: 401 for a missing, forged or stale
 * signature, 400 for a body that is not JSON, `{type: 1}` for PING, `onClick(payload)`'s reply for a
 * button, and an ephemeral "not for me" for any other interaction (a slash command, a modal).
 */
export function interactionsHandler(
  publicKey: KeyObject,
  onClick: (payload: unknown) => Promise<DiscordReply>,
  now: () => number = Date.now,
): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
  return async (request, response) => {
    const body = await readRawBody(request, MAX_BODY_BYTES);
    if (body === undefined) {
      return sendFailure(response, 413, "too_large", "The body is over 1 MiB.");
    }
    const check = verifyDiscordRequest(
      publicKey,
      {
        signature: headerOf(request, DISCORD_SIGNATURE_HEADER),
        timestamp: headerOf(request, DISCORD_TIMESTAMP_HEADER),
      },
      body,
      { now: now() },
    );
    if (check !== "ok") {
      const message = `The Discord signature is ${check}; the request was ignored.`;
      return sendFailure(response, 401, "unauthorized", message);
    }
    let payload: { type?: unknown };
    try {
      payload = JSON.parse(body.toString("utf8")) as { type?: unknown };
    } catch {
      return sendFailure(response, 400, "invalid_request", "Expected a JSON interaction.");
    }
    if (payload?.type === PING) return sendJson(response, 200, { type: 1 });
    if (payload?.type !== MESSAGE_COMPONENT) {
      return sendJson(
        response,
        200,
        tellOnly("codex-harness only takes clicks on its own buttons."),
      );
    }
    sendJson(response, 200, await onClick(payload));
  };
}
