// An answer over the API (`POST /v1/interactions/:id/respond`) and its refusals before the runtime
// sees it — a bad token, a missing scope, a malformed body — recorded in the audit log with who
// tried and the surface the answer says it came from.
import type { IncomingMessage } from "node:http";
import { type Authenticated, refuseForgery, requireScope } from "./access.js";
import { actorOf } from "./audit-records.js";
import type { AuditSurface } from "./audit-types.js";
import { WEB_INBOX } from "./check-response.js";
import { ChannelsError } from "./errors.js";
import { readJson } from "./http-body.js";
import { decodePart } from "./http-query.js";
import type { Interaction } from "./interaction-types.js";
import { parseToken } from "./people-tokens.js";
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
 * Answers interaction `id` as the authenticated identity with the request's body: needs the `answer`
 * scope (its refusal comes before any about the body). Every refusal is recorded in the audit log,
 * here or by the runtime ({@link ChannelsRuntime.respond}), and thrown. The surface is `inbox` for
 * the sign-in cookie; for a token, what the body says ({@link httpSurface}).
 */
export async function answer(
  runtime: ChannelsRuntime,
  request: IncomingMessage,
  id: string,
  { identity, by }: Authenticated,
  { maxBodyBytes }: { maxBodyBytes: number },
): Promise<Interaction> {
  const read = await readJson(request, maxBodyBytes).then(
    (value) => ({ value }),
    (error: unknown) => ({ error, value: undefined }),
  );
  const surface = by === "session" ? "inbox" : httpSurface(read.value);
  let body: ReturnType<typeof parseBody<typeof respondBody>>;
  try {
    requireScope(identity, "answer", by);
    if ("error" in read) throw read.error;
    body = parseBody(respondBody, read.value);
  } catch (error) {
    await runtime.recordRefusal(id, actorOf(identity), surface, error);
    throw error;
  }
  return runtime.respond(id, body, identity, surface);
}

/**
 * Refuses ({@link refuseForgery}) a change by the sign-in cookie without an Origin of the runtime's
 * own; an answer so refused is recorded in the audit log, as by whom the cookie stands for, from the
 * inbox. `parts` are the request path's.
 */
export async function refuseForgedRequest(
  runtime: ChannelsRuntime,
  request: IncomingMessage,
  parts: readonly string[],
  authenticated: Authenticated,
  ownsOrigin: (origin: string) => boolean,
): Promise<void> {
  try {
    refuseForgery(request, authenticated, ownsOrigin);
  } catch (error) {
    const [, collection, id, action] = parts;
    if (collection === "interactions" && id !== undefined && action === "respond") {
      await runtime.recordRefusal(id, actorOf(authenticated.identity), "inbox", error);
    }
    throw error;
  }
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
