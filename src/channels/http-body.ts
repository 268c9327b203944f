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
  const body = await readAtMost(request, max);
  if (body === undefined) throw tooLarge(max);
  const text = body.toString("utf8");
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
 * when it is over `max` bytes.
 */
export function readRawBody(request: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return readAtMost(request, max);
}

/** How much of a refused body is still read (and dropped) so that its sender sees the answer. */
const DISCARD_AT_MOST_BYTES = 64 * 1024 * 1024;
/** How long a refused body is read on before its connection is closed instead. */
const DISCARD_WITHIN_MS = 5_000;

/**
 * The body of `request`, or undefined once it is over `max` bytes (declared or sent). A body over
 * the limit is still read to its end and dropped — up to {@link DISCARD_AT_MOST_BYTES} and
 * {@link DISCARD_WITHIN_MS} — so that the sender, still writing, gets the 413 rather than a
 * connection closed under it (EPIPE); past those the answer closes the connection.
 */
function readAtMost(request: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const declared = Number(request.headers["content-length"] ?? 0);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = declared > max;
    let timer: NodeJS.Timeout | undefined;
    /** The one way out: the listeners and the timer go, then `settle`. */
    const done = (settle: () => void) => {
      clearTimeout(timer);
      request.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      settle();
    };
    const finish = (body: Buffer | undefined) => done(() => resolve(body));
    const refuse = () => {
      over = true;
      chunks.length = 0;
      timer ??= setTimeout(() => finish(undefined), DISCARD_WITHIN_MS);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (!over && size > max) refuse();
      if (over) {
        if (size > DISCARD_AT_MOST_BYTES) finish(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(over ? undefined : Buffer.concat(chunks));
    // Closed before its end (the sender gave up): no body to answer for.
    const onClose = () =>
      over
        ? finish(undefined)
        : onError(new Error("The request was closed before its body ended."));
    const onError = (error: Error) => done(() => (over ? resolve(undefined) : reject(error)));
    if (over) refuse();
    request.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
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
    // Whatever of a refused body is still coming is not read: the connection closes after.
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
