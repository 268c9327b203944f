// Reading a request's JSON body: size-limited while it streams, and depth-limited before it is
// parsed, so that a deeply nested body is a 400 rather than a stack overflow anywhere later.
import type { IncomingMessage } from "node:http";
import { ChannelsError } from "./errors.js";

/** Deepest nesting of arrays and objects a request body may have. */
export const MAX_BODY_DEPTH = 64;

/**
 * The JSON body of `request`, at most `max` bytes and {@link MAX_BODY_DEPTH} levels deep. Throws
 * `too_large` (413), or `invalid_request` (400) for an empty (unless `optional`), non-JSON or too
 * deeply nested body.
 */
export async function readJson(
  request: IncomingMessage,
  max: number,
  optional = false,
): Promise<unknown> {
  const declared = Number(request.headers["content-length"] ?? 0);
  if (declared > max) throw tooLarge(max);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > max) throw tooLarge(max);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") {
    if (optional) return {};
    throw new ChannelsError("invalid_request", 400, "The request needs a JSON body.");
  }
  const depth = nestingDepth(text, MAX_BODY_DEPTH);
  if (depth > MAX_BODY_DEPTH) {
    throw new ChannelsError(
      "invalid_request",
      400,
      `The body is nested more than ${MAX_BODY_DEPTH} levels deep; send a flatter JSON value.`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ChannelsError(
      "invalid_request",
      400,
      `The body is not JSON: ${(error as Error).message}.`,
      { cause: error },
    );
  }
}

/**
 * How deeply `[` and `{` nest in the JSON text `text` (outside strings), counted without
 * recursion; stops counting once past `limit`.
 */
export function nestingDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c)
        i += 1; // backslash: skip the escaped character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x5b || char === 0x7b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (char === 0x5d || char === 0x7d) {
      depth -= 1;
    }
  }
  return deepest;
}

function tooLarge(max: number): ChannelsError {
  return new ChannelsError("too_large", 413, `The body is over ${max} bytes; send less.`);
}
