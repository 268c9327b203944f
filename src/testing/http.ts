// HTTP plumbing of ScriptedModel: reading request bodies and writing scripted answers.
import type http from "node:http";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import type { ScriptedResponse } from "./script.js";
import { formatSse, type RenderContext, renderResponseEvents } from "./sse.js";

/** Reads a request body, decoding gzip/deflate/br, then parses JSON when it is JSON. */
export async function readBody(request: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  let bytes = Buffer.concat(chunks);
  const encoding = String(request.headers["content-encoding"] ?? "").toLowerCase();
  if (encoding === "gzip") bytes = gunzipSync(bytes);
  else if (encoding === "deflate") bytes = inflateSync(bytes);
  else if (encoding === "br") bytes = brotliDecompressSync(bytes);
  if (bytes.length === 0) return undefined;
  const text = bytes.toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Writes one scripted answer: after `delayMs`, an HTTP error or an SSE stream (events spaced by
 * `eventDelayMs`). Stops quietly when `signal` aborts (the client left or the model closed).
 */
export async function writeScriptedResponse(
  response: http.ServerResponse,
  scripted: ScriptedResponse,
  context: RenderContext,
  signal: AbortSignal,
): Promise<void> {
  if (!(await sleep(scripted.delayMs ?? 0, signal))) return;
  const common = { "x-scripted-model-response": String(context.responseNumber) };
  if (scripted.type === "http_error") {
    response.writeHead(scripted.status, {
      "content-type": "application/json",
      ...common,
      ...scripted.headers,
    });
    response.end(JSON.stringify(scripted.body));
    return;
  }
  const events = renderResponseEvents(scripted, context);
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    ...common,
  });
  const interval = scripted.eventDelayMs ?? 0;
  if (interval === 0) {
    response.write(events.map(formatSse).join(""));
  } else {
    for (const [index, event] of events.entries()) {
      if (index > 0 && !(await sleep(interval, signal))) return;
      response.write(formatSse(event));
    }
  }
  if (scripted.disconnect) {
    // Flush what was written, then drop the connection without ending the chunked body.
    await new Promise<void>((resolve) => response.write("", () => resolve()));
    response.destroy();
  } else {
    response.end();
  }
}

/** Waits `ms`; resolves `false` early if `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
