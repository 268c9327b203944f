// People, their tokens and their linked chat users over the runtime's API, behind the `admin`
// scope: what `codex-harness people …` does on the store, for programs and admins elsewhere. Each
// change is recorded in the audit log as by the caller, from `api`.
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { CodexHarnessError } from "../errors.js";
import { requireScope } from "./access.js";
import { ChannelsError } from "./errors.js";
import { readJson, sendJson } from "./http-body.js";
import { People } from "./people.js";
import type { Identity } from "./people-types.js";
import type { ChannelsRuntime } from "./runtime.js";
import { parseBody } from "./schemas.js";

/** POST /v1/people */
const addBody = z.strictObject({
  id: z.string().max(64),
  name: z.string().max(200).optional(),
  groups: z.array(z.string().max(64)).max(100).optional(),
  kind: z.enum(["person", "program"]).optional(),
});

/** POST /v1/people/:id/tokens: `["read", "answer"]` or `"read,answer"`. */
const tokenBody = z.strictObject({
  scopes: z.union([z.string().max(200), z.array(z.string().max(20)).max(10)]),
});

/** POST /v1/people/:id/links */
const linkBody = z.strictObject({ platformUser: z.string().max(100) });

/** The HTTP status of each error code `People` throws. */
const STATUS: Readonly<Record<string, number>> = {
  invalid_input: 400,
  invalid_request: 400,
  not_found: 404,
  conflict: 409,
};

/** Whether `parts` (the path's decoded parts, `["v1", …]`) is one of the routes served here. */
export function isPeopleRoute(parts: readonly string[]): boolean {
  return parts[1] === "people" || parts[1] === "tokens" || parts[1] === "links";
}

/**
 * Serves a people route (see {@link isPeopleRoute}) for `identity`, who needs the `admin` scope
 * (`missing_scope`, 403, before the body is read):
 *
 * - `GET /v1/people`: everyone, with their tokens (never secrets) and links;
 * - `POST /v1/people` `{id, name?, groups?, kind?}`: adds one (201);
 * - `DELETE /v1/people/:id`: removes one with their tokens and links;
 * - `POST /v1/people/:id/tokens` `{scopes}`: issues a token (201; the token is in this response
 *   only, never again);
 * - `POST /v1/tokens/:id/revoke`: revokes a token from its next request on;
 * - `POST /v1/people/:id/links` `{platformUser}`: links a chat user (201);
 * - `DELETE /v1/links/:platformUser`: unlinks one.
 *
 * Errors: 400 `invalid_input` or `invalid_request`, 404 `not_found` (also for a store that keeps
 * no people), 409 `conflict`.
 */
export async function servePeople(
  runtime: ChannelsRuntime,
  request: IncomingMessage,
  response: ServerResponse,
  parts: readonly string[],
  identity: Identity,
  maxBodyBytes: number,
): Promise<void> {
  const method = request.method ?? "GET";
  const path = `/${parts.join("/")}`;
  requireScope(identity, "admin");
  const store = runtime.peopleStore;
  if (!store) {
    throw new ChannelsError("not_found", 404, "This runtime's store keeps no people.");
  }
  const people = new People(store, { by: identity, surface: "api" });
  const body = async <S extends z.ZodType>(schema: S): Promise<z.output<S>> =>
    parseBody(schema, await readJson(request, maxBodyBytes));
  const [, collection, id, sub, more] = parts;
  try {
    if (collection === "people" && id === undefined) {
      if (method === "GET") return sendJson(response, 200, { people: await everyone(people) });
      if (method === "POST") {
        const { groups, ...rest } = await body(addBody);
        const added = await people.add({ ...rest, ...(groups ? { groups } : {}) });
        return sendJson(response, 201, added);
      }
    } else if (collection === "people" && id !== undefined && more === undefined) {
      if (sub === undefined && method === "DELETE") {
        const person = await people.get(id);
        await people.remove(id);
        return sendJson(response, 200, { removed: person ?? { id } });
      }
      if (sub === "tokens" && method === "POST") {
        const { scopes } = await body(tokenBody);
        return sendJson(response, 201, await people.issueToken(id, scopes));
      }
      if (sub === "links" && method === "POST") {
        const { platformUser } = await body(linkBody);
        return sendJson(response, 201, await people.link(id, platformUser));
      }
    } else if (collection === "tokens" && id !== undefined && sub === "revoke" && !more) {
      if (method === "POST") return sendJson(response, 200, await people.revoke(id));
    } else if (collection === "links" && id !== undefined && sub === undefined) {
      if (method === "DELETE") return sendJson(response, 200, await people.unlink(id));
    }
  } catch (error) {
    throw httpError(error);
  }
  throw new ChannelsError("not_found", 404, `No route ${method} ${path}.`);
}

/** Everyone, each with their tokens and links. */
async function everyone(people: People) {
  const [all, tokens, links] = await Promise.all([people.list(), people.tokens(), people.links()]);
  return all.map((person) => ({
    ...person,
    tokens: tokens.filter((token) => token.personId === person.id),
    links: links.filter((link) => link.personId === person.id),
  }));
}

/** `People`'s errors with their HTTP status (the code and message kept; the error as `cause`). */
function httpError(error: unknown): unknown {
  if (error instanceof ChannelsError || !(error instanceof CodexHarnessError)) return error;
  const status = STATUS[error.code];
  if (status === undefined) return error;
  return new ChannelsError(error.code, status, error.message, { cause: error });
}
