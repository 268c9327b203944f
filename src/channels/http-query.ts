// What a request to the API says in its path and query: the path's parts, decoded, and the
// list's filter, checked. Bad input is `invalid_request` (400) naming what to send instead.
import { ChannelsError } from "./errors.js";
import {
  INTERACTION_KINDS,
  INTERACTION_STATUSES,
  type InteractionFilter,
  type InteractionKind,
  type InteractionStatus,
} from "./interaction-types.js";

/** A path part, percent-decoded. */
export function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch (error) {
    throw new ChannelsError(
      "invalid_request",
      400,
      `The path part ${JSON.stringify(part)} is not valid percent-encoding.`,
      { cause: error },
    );
  }
}

/** The filter of `GET /v1/interactions?status=&kind=&threadId=&limit=&cursor=`. */
export function filterOf(url: URL): InteractionFilter {
  const list = (name: string) =>
    url.searchParams
      .getAll(name)
      .flatMap((value) => value.split(","))
      .filter(Boolean);
  const status = list("status");
  const kind = list("kind");
  for (const value of status) {
    if (!INTERACTION_STATUSES.includes(value as InteractionStatus)) {
      throw new ChannelsError(
        "invalid_request",
        400,
        `Unknown status ${JSON.stringify(value)}; use ${INTERACTION_STATUSES.join(", ")}.`,
      );
    }
  }
  for (const value of kind) {
    if (!INTERACTION_KINDS.includes(value as InteractionKind)) {
      throw new ChannelsError(
        "invalid_request",
        400,
        `Unknown kind ${JSON.stringify(value)}; use ${INTERACTION_KINDS.join(", ")}.`,
      );
    }
  }
  const limit = Number(url.searchParams.get("limit") ?? 100);
  const threadId = url.searchParams.get("threadId");
  const cursor = url.searchParams.get("cursor");
  return {
    ...(status.length ? { status: status as InteractionStatus[] } : {}),
    ...(kind.length ? { kind: kind as InteractionKind[] } : {}),
    ...(threadId ? { threadId } : {}),
    ...(cursor ? { cursor } : {}),
    limit: Number.isInteger(limit) && limit > 0 ? Math.min(limit, 1_000) : 100,
  };
}
