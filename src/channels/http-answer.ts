// An answer over the API (`POST /v1/interactions/:id/respond`) and its refusals before the runtime
// sees it — a bad token, a missing scope, a malformed body — recorded in the audit log with who
// tried and the surface the answer says it came from.
import type { IncomingMessage } from "node:http";
import { requireScope } from "./access.js";
import { actorOf } from "./audit-records.js";
import type { AuditSurface } from "./audit-types.js";
import { WEB_INBOX } from "./check-response.js";
import { ChannelsError } from "./errors.js";
import { readJson } from "./http-body.js";
import { decodePart } from "./http-query.js";
import type { Interaction } from "./interaction-types.js";
import { parseToken } from "./people-tokens.js";
import type { Identity } from "./people-types.js";
import type { ChannelsRuntime } from "./runtime.js";
import { parseBody, respondBody } from "./schemas.js";

/**
 * The surface of an answer sent over the API, from what its body's `metadata.via` says: `inbox`
 * (the web inbox's `web-inbox`), `cli`, else `api`. The client says it; the identity is what the
 * runtime authenticated.
 */
export function httpSurface(body: unknown): AuditSurface {
  const metadata = (body as { metadata?: { via?: unknown } } | null | undefined)?.metadata;
  const via = typeof metadata === "object" && metadata !== null ? metadata.via : undefined;
  if (via === WEB_INBOX) return "inbox";
  if (via === "cli") return "cli";
  return "api";
}

/**
 * Answers interaction `id` as `identity` with the request's body: needs the `answer` scope (its
 * refusal comes before any about the body). Every refusal is recorded in the audit log, here or by
 * the runtime ({@link ChannelsRuntime.respond}), and thrown.
 */
export async function answer(
  runtime: ChannelsRuntime,
  request: IncomingMessage,
  id: string,
  identity: Identity,
  maxBodyBytes: number,
): Promise<Interaction> {
  const read = await readJson(request, maxBodyBytes).then(
    (value) => ({ value }),
    (error: unknown) => ({ error, value: undefined }),
  );
  const surface = httpSurface(read.value);
  let body: ReturnType<typeof parseBody<typeof respondBody>>;
  try {
    requireScope(identity, "answer");
    if ("error" in read) throw read.error;
    body = parseBody(respondBody, read.value);
  } catch (error) {
    await runtime.recordRefusal(id, actorOf(identity), surface, error);
    throw error;
  }
  return runtime.respond(id, body, identity, surface);
}

/**
 * Records an answer refused for its token (`error` a 401: missing, unknown or revoked): who sent it
 * is not known; the token's id is, when it was a person's or program's token in form. Other
 * requests and errors are not recorded.
 */
export async function recordBadToken(
  runtime: ChannelsRuntime,
  request: IncomingMessage,
  url: URL,
  error: unknown,
  maxBodyBytes: number,
): Promise<void> {
  if (!(error instanceof ChannelsError) || error.status !== 401 || request.method !== "POST")
    return;
  const parts = url.pathname.split("/").filter(Boolean);
  const [, collection, part, action] = parts;
  if (parts.length !== 4 || collection !== "interactions" || action !== "respond" || !part) return;
  let id: string;
  try {
    id = decodePart(part);
  } catch {
    return; // Not a path the API answers: the 401 stands, unrecorded.
  }
  const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "")?.[1];
  const tokenId = token ? parseToken(token)?.id : undefined;
  const body = await readJson(request, maxBodyBytes).catch(() => undefined);
  const actor = { kind: "unknown" as const, id: "unknown", ...(tokenId ? { tokenId } : {}) };
  await runtime.recordRefusal(id, actor, httpSurface(body), error);
}
