// JSON-RPC message shapes as codex speaks them (no "jsonrpc" field) and their classification.

/** A request id. Ours are integers; the server's may be anything JSON-RPC allows. */
export type RequestId = string | number;

/** A request, from either side. */
export interface RpcRequest {
  id: RequestId;
  method: string;
  params?: unknown;
  /** W3C trace context of the request (codex's `JSONRPCRequest.trace`, read by its app-server). */
  trace?: RpcTraceContext;
}

/** The W3C trace context a request may carry (`traceparent`, optional `tracestate`). */
export interface RpcTraceContext {
  traceparent: string;
  tracestate?: string;
}

/** A notification, from either side. */
export interface RpcNotification {
  method: string;
  params?: unknown;
}

/** The error object of an error response. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A successful response. */
export interface RpcResultResponse {
  id: RequestId;
  result: unknown;
}

/** An error response. `id` is null when the peer could not read the request's id. */
export interface RpcErrorResponse {
  id: RequestId | null;
  error: RpcErrorObject;
}

/** Any message on the wire. */
export type RpcMessage = RpcRequest | RpcNotification | RpcResultResponse | RpcErrorResponse;

/** A message sorted by kind. A message with a `method` is a request or notification, never a response. */
export type ClassifiedMessage =
  | { kind: "request"; message: RpcRequest }
  | { kind: "notification"; message: RpcNotification }
  | { kind: "response"; message: RpcResultResponse }
  | { kind: "error"; message: RpcErrorResponse }
  | { kind: "invalid"; reason: string };

function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/**
 * Sorts a parsed JSON value into a JSON-RPC message kind. Having a `method` decides: a server
 * request whose id equals one of our pending ids is still a request.
 */
export function classifyMessage(value: unknown): ClassifiedMessage {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { kind: "invalid", reason: "a JSON-RPC message must be a JSON object" };
  }
  const record = value as Record<string, unknown>;
  if ("method" in record) {
    if (typeof record.method !== "string") {
      return { kind: "invalid", reason: "`method` must be a string" };
    }
    if (!("id" in record) || record.id === undefined) {
      return { kind: "notification", message: record as unknown as RpcNotification };
    }
    if (!isRequestId(record.id)) {
      return { kind: "invalid", reason: "a request `id` must be a string or a number" };
    }
    return { kind: "request", message: record as unknown as RpcRequest };
  }
  if ("error" in record) {
    const error = record.error as Record<string, unknown> | null;
    if (typeof error !== "object" || error === null || typeof error.code !== "number") {
      return { kind: "invalid", reason: "an error response needs `error.code` (a number)" };
    }
    if (record.id !== null && !isRequestId(record.id)) {
      return { kind: "invalid", reason: "an error response `id` must be a string, number or null" };
    }
    return {
      kind: "error",
      message: {
        id: record.id as RequestId | null,
        error: {
          code: error.code,
          message: typeof error.message === "string" ? error.message : "",
          ...("data" in error ? { data: error.data } : {}),
        },
      },
    };
  }
  if ("result" in record) {
    if (!isRequestId(record.id)) {
      return { kind: "invalid", reason: "a response `id` must be a string or a number" };
    }
    return { kind: "response", message: record as unknown as RpcResultResponse };
  }
  return { kind: "invalid", reason: "not a request, notification or response" };
}
