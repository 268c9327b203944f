// Reading a request's body (JSON: size-limited while it streams, and depth-limited once parsed, so
// that a deeply nested body is a 400 rather than a stack overflow anywhere later) and answering it
// with JSON: the runtime's API and the chat platforms' signed callbacks alike.
import type { IncomingMessage, ServerResponse } from "node:http";
import { nestsDeeperThan } from "../protocol/json-depth.js";
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
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ChannelsError(
      "invalid_request",
      400,
      `The body is not JSON: ${(error as Error).message}.`,
      { cause: error },
    );
  }
  if (nestsDeeperThan(value, MAX_BODY_DEPTH)) {
    throw new ChannelsError(
      "invalid_request",
      400,
      `The body is nested more than ${MAX_BODY_DEPTH} levels deep; send a flatter JSON value.`,
    );
  }
  return value;
}

/**
 * The raw body of `request` (a platform's signed callback, checked before parsing), or undefined
 * when it is over `max` bytes (stops reading there).
 */
export async function readRawBody(
  request: IncomingMessage,
  max: number,
): Promise<Buffer | undefined> {
  if (Number(request.headers["content-length"] ?? 0) > max) return undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > max) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** A request header's (first) value. */
export function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Answers with `body` as JSON (never cached). */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "content-length": Buffer.byteLength(text),
    // A refused body is not read to its end: close the connection rather than drain it.
    ...(status === 413 ? { connection: "close" } : {}),
  });
  response.end(text);
}

/** Answers `{error: {code, message}}`: the API's error shape. */
export function sendFailure(
  response: ServerResponse,
  status: number,
  code: string,
  message: string,
): void {
  sendJson(response, status, { error: { code, message } });
}

function tooLarge(max: number): ChannelsError {
  return new ChannelsError("too_large", 413, `The body is over ${max} bytes; send less.`);
}
