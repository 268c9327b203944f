// The two error families of the JSON-RPC peer: local failures (string codes) and wire errors (numeric codes).
import { CodexHarnessError, type CodexHarnessErrorOptions } from "../errors.js";
import type { RpcErrorObject } from "../protocol/messages.js";

/** JSON-RPC error codes codex uses. */
export const RpcErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** codex is overloaded; retry later with backoff. */
  Overloaded: -32001,
} as const;

/** Why a request failed without an answer from the other side. */
export type RpcLocalErrorCode =
  | "closed"
  | "timeout"
  | "aborted"
  | "spawn_failed"
  | "process_exited"
  | "write_failed"
  | "protocol_error"
  | "invalid_message"
  | "remote_disconnected";

/** A request failed on our side: the connection closed, it timed out, it was aborted, … */
export class RpcLocalError extends CodexHarnessError {
  declare readonly code: RpcLocalErrorCode;
  /** The request method, when the error belongs to one request. */
  readonly method: string | undefined;

  constructor(
    code: RpcLocalErrorCode,
    message: string,
    options: CodexHarnessErrorOptions & { method?: string } = {},
  ) {
    super(code, message, options);
    this.method = options.method;
  }
}

/** The other side answered a request with a JSON-RPC error. */
export class RpcWireError extends Error {
  /** The JSON-RPC error code (e.g. -32001 overloaded, -32601 method not found). */
  readonly code: number;
  readonly data: unknown;
  readonly method: string | undefined;

  constructor(error: RpcErrorObject, method?: string) {
    super(
      method
        ? `${method} failed: ${error.message} (code ${error.code})`
        : `${error.message} (code ${error.code})`,
    );
    this.name = "RpcWireError";
    this.code = error.code;
    this.data = error.data;
    this.method = method;
  }

  /** True when codex said it is overloaded (-32001) and the request may be retried. */
  get overloaded(): boolean {
    return this.code === RpcErrorCodes.Overloaded;
  }
}

/** codex answered -32001: it is overloaded. After the retries (if any), this is what rejects. */
export class OverloadedError extends RpcWireError {
  /** How many times the request was sent. */
  attempts = 1;

  constructor(error: RpcErrorObject, method?: string) {
    super(error, method);
    this.name = "OverloadedError";
  }
}

/** codex does not know the method: this codex version does not support it (-32601). */
export class MethodNotSupportedError extends RpcWireError {
  /** The codex version that refused, from `initialize` (or "unknown"). */
  readonly codexVersion: string;

  constructor(error: RpcErrorObject, method: string, codexVersion: string) {
    super(error, method);
    this.name = "MethodNotSupportedError";
    this.codexVersion = codexVersion;
    this.message = `${method} is not supported by this codex version (${codexVersion}): ${stripMethod(error.message)}. Use a codex that has it (codex-harness is tested with the pinned @openai/codex).`;
  }
}

/** A wire message without the "<method> failed: … (code N)" wrapping RpcWireError adds. */
function stripMethod(message: string): string {
  return message.replace(/^.*? failed: /, "").replace(/ \(code -?\d+\)$/, "");
}

/** True when `error` is a wire error with code -32001 (overloaded). */
export function isOverloaded(error: unknown): boolean {
  return error instanceof RpcWireError && error.overloaded;
}

/**
 * The connection to a codex app-server on another machine (WebSocket, unix socket) ended without
 * our asking: the network, the remote side, or codex there went away. Running turns fail with it;
 * the next use connects again.
 */
export class RemoteDisconnectedError extends RpcLocalError {
  /** The WebSocket close code, when there was a close frame (1006: the connection just dropped). */
  readonly closeCode: number | undefined;
  /** Where codex was (never with a token). */
  readonly endpoint: string;

  constructor(
    endpoint: string,
    why: string,
    closeCode?: number,
    options: CodexHarnessErrorOptions = {},
  ) {
    super(
      "remote_disconnected",
      `The connection to codex app-server at ${endpoint} ended: ${why}.`,
      options,
    );
    this.closeCode = closeCode;
    this.endpoint = endpoint;
  }
}

/** The error for a JSON-RPC error answer to `method` (overloaded, or any other). */
export function wireError(error: RpcErrorObject, method: string): RpcWireError {
  return error.code === RpcErrorCodes.Overloaded
    ? new OverloadedError(error, method)
    : new RpcWireError(error, method);
}

/** A request aborted by its signal. */
export function abortedError(method: string, reason: unknown): RpcLocalError {
  return new RpcLocalError("aborted", `${method} was aborted.`, { method, cause: reason });
}

/** Any thrown value as an Error. */
export function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(describeError(value));
}

/** What went wrong, in words, from any thrown value; never throws itself. */
export function describeError(value: unknown): string {
  try {
    const message = value instanceof Error ? value.message : String(value);
    return typeof message === "string" && message !== "" ? message : "the request handler failed";
  } catch {
    return "the request handler failed (its error could not be read)";
  }
}
