// In front of the ACP SDK's connection: a message that is not a valid JSON-RPC 2.0 request but
// whose id can be read is answered here, -32600 with that id (the SDK answers it with `id: null`,
// and one with an id and no method not at all, leaving the editor waiting); everything else passes
// through untouched, unparseable lines included (the SDK's -32700 with `id: null` is right there).
import * as acp from "@agentclientprotocol/sdk";

/**
 * The answer to an incoming `message` that has a readable id (a string or a number) and yet is no
 * request ACP can take: a version other than `"jsonrpc": "2.0"`, no `method` (and no `result` or
 * `error`: a response is the SDK's to match), or a `method` that is not a string. Undefined for
 * anything else.
 */
export function refusalOf(message: unknown): acp.AnyResponse | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
  const fields = message as Record<string, unknown>;
  const id = fields.id;
  if (typeof id !== "string" && !(typeof id === "number" && Number.isFinite(id))) return undefined;
  const isResponse = !("method" in fields) && ("result" in fields || "error" in fields);
  if (isResponse) return undefined;
  const problem =
    fields.jsonrpc !== "2.0"
      ? `"jsonrpc" must be "2.0", not ${"jsonrpc" in fields ? JSON.stringify(fields.jsonrpc) : "missing"}`
      : !("method" in fields)
        ? `no "method": a request names its method (and a response has "result" or "error")`
        : typeof fields.method !== "string"
          ? `"method" must be a string, not ${JSON.stringify(fields.method)}`
          : undefined;
  if (problem === undefined) return undefined;
  return {
    jsonrpc: "2.0",
    id,
    error: acp.RequestError.invalidRequest(undefined, problem).toErrorResponse(),
  };
}

/**
 * `stream` with its incoming messages gated: those {@link refusalOf} refuses are answered on the
 * stream's own output (in order with the connection's messages) and never reach the connection.
 */
export function gateMessages(stream: acp.Stream): acp.Stream {
  // One writer for the connection's messages and the gate's answers, in the order they come.
  const writer = stream.writable.getWriter();
  const writable = new WritableStream<acp.AnyMessage>({
    write: (message) => writer.write(message),
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  const readable = stream.readable.pipeThrough(
    new TransformStream<acp.AnyMessage, acp.AnyMessage>({
      async transform(message, controller) {
        const refusal = refusalOf(message);
        if (refusal) await writer.write(refusal);
        else controller.enqueue(message);
      },
    }),
  );
  return { readable, writable };
}
