// One call to a channels runtime's HTTP API with a bearer token, as the tests make them.
import type { ChannelsServer } from "../../src/channels/http-server.js";
import type { Interaction } from "../../src/channels/interaction-types.js";

/** A reply of the runtime's API: its status, headers and JSON body (`{}` when empty). */
export interface Reply {
  status: number;
  headers: Headers;
  body: { error?: { code: string; message: string } } & Partial<Interaction> &
    Record<string, unknown>;
}

/** Calls the runtime's API with `token` (a JSON body when `body` is given). */
export async function call(
  server: ChannelsServer,
  token: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<Reply> {
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : {} };
}
