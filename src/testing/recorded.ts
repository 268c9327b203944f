// What a ScriptedModel records about each request, and helpers that read codex's request bodies.
import type { IncomingHttpHeaders } from "node:http";

/** One HTTP request the ScriptedModel received, whatever its path. */
export interface RecordedRequest {
  /** 1-based arrival order among all requests. */
  number: number;
  /** 1-based order among `POST /v1/responses` requests (the ones that consume the script). */
  responseNumber: number | undefined;
  method: string;
  /** The path without the query string, e.g. `/v1/responses`. */
  path: string;
  /** The query string without `?`, or `""`. */
  query: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON when it is JSON, else its text; `undefined` when empty. */
  body: unknown;
  /** `Date.now()` when the request arrived. */
  receivedAt: number;
}

/** A tool result codex sent back to the model (a `function_call_output` input item). */
export interface ToolOutput {
  callId: string;
  /** The output text as the model sees it. */
  output: string;
  /** The exit code in the output (`Process exited with code N` / `Exit code: N`), if any. */
  exitCode: number | undefined;
}

/** Why a request got an error answer the script did not ask for. */
export interface ScriptedModelError {
  kind: "exhausted" | "unknown_route" | "script_error";
  /** The request's {@link RecordedRequest.number}. */
  requestNumber: number;
  method: string;
  path: string;
  message: string;
}

/** The `input` array of a Responses API request body, or `[]`. */
export function inputItems(request: RecordedRequest): Record<string, unknown>[] {
  const body = request.body as { input?: unknown } | undefined;
  if (!body || typeof body !== "object" || !Array.isArray(body.input)) return [];
  return body.input.filter(
    (item): item is Record<string, unknown> => item !== null && typeof item === "object",
  );
}

/** The text spans of the `message` input items of `role` (default `"user"`), in order. */
export function inputTexts(request: RecordedRequest, role = "user"): string[] {
  const texts: string[] = [];
  for (const item of inputItems(request)) {
    if (item.type !== "message" || item.role !== role || !Array.isArray(item.content)) continue;
    for (const span of item.content as { type?: unknown; text?: unknown }[]) {
      if (typeof span?.text === "string") texts.push(span.text);
    }
  }
  return texts;
}

/** The `function_call_output` items of a request, with exit codes parsed out of their text. */
export function toolOutputs(request: RecordedRequest): ToolOutput[] {
  const outputs: ToolOutput[] = [];
  for (const item of inputItems(request)) {
    if (item.type !== "function_call_output" && item.type !== "custom_tool_call_output") continue;
    const output = outputText(item.output);
    outputs.push({ callId: String(item.call_id ?? ""), output, exitCode: exitCodeOf(output) });
  }
  return outputs;
}

function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) {
    return output
      .map((part: { text?: unknown }) => (typeof part?.text === "string" ? part.text : ""))
      .join("");
  }
  if (output && typeof output === "object" && "content" in output) {
    return outputText((output as { content: unknown }).content);
  }
  return output === undefined ? "" : JSON.stringify(output);
}

function exitCodeOf(output: string): number | undefined {
  const match =
    /Process exited with code (-?\d+)/.exec(output) ?? /Exit code: (-?\d+)/.exec(output);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}
