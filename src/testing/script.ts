// The script a ScriptedModel plays back: response and output-item types, and builders for them.
import { CodexHarnessError } from "../errors.js";
import type { RecordedRequest } from "./recorded.js";

/**
 * Token usage of one scripted response, named like codex's own `turn.completed` usage. It is sent
 * in the Responses API shape (`input_tokens_details.cached_tokens`,
 * `output_tokens_details.reasoning_tokens`). Codex adds up the usage of every response in a turn.
 */
export interface ScriptedUsage {
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
  /** Defaults to `input_tokens + output_tokens`. */
  total_tokens: number;
}

/** The usage a response reports when its script does not say: small fixed numbers. */
export const DEFAULT_USAGE: Readonly<Omit<ScriptedUsage, "total_tokens">> = Object.freeze({
  input_tokens: 100,
  cached_input_tokens: 0,
  output_tokens: 20,
  reasoning_output_tokens: 0,
});

/** An assistant message, streamed as `response.output_text.delta` chunks. */
export interface ScriptedMessage {
  type: "message";
  text: string;
  /** How to stream `text`: a number of roughly equal chunks (default 3), or the chunks themselves. */
  deltas?: number | string[] | undefined;
  /** Item id; defaults to `msg_<response>_<index>`. */
  id?: string | undefined;
  /** The Responses API message phase (`commentary` marks a preamble before tool calls). */
  phase?: "commentary" | "final_answer" | undefined;
}

/** A reasoning item whose summary parts are streamed as `response.reasoning_summary_text.delta`. */
export interface ScriptedReasoning {
  type: "reasoning";
  summary: string[];
  /** Raw reasoning text parts (`reasoning_text` content), streamed as `response.reasoning_text.delta`. */
  content?: string[] | undefined;
  /** Chunks per summary or content part (default 2). */
  deltas?: number | undefined;
  id?: string | undefined;
}

/** A function (tool) call; `arguments` is the JSON text the model would send. */
export interface ScriptedFunctionCall {
  type: "function_call";
  name: string;
  arguments: string;
  /** The `call_id` codex answers with a `function_call_output`; defaults to `call_<response>_<index>`. */
  callId?: string | undefined;
  id?: string | undefined;
  /** The tool's namespace, for namespaced tools (an MCP server's are `mcp__<server>`). */
  namespace?: string | undefined;
}

/** Escape hatch: SSE events written as they are (each needs a string `type`). */
export interface ScriptedRawEvents {
  type: "raw_events";
  events: Record<string, unknown>[];
}

/** One output item of a scripted response. */
export type ScriptedOutputItem =
  | ScriptedMessage
  | ScriptedReasoning
  | ScriptedFunctionCall
  | ScriptedRawEvents;

/** Timing shared by every scripted response. */
export interface ScriptedTiming {
  /** Wait this long before answering (holds a turn open, e.g. for interrupt tests). */
  delayMs?: number | undefined;
}

/** A streamed (SSE) response: `response.created`, the items, then `response.completed`. */
export interface ScriptedStreamResponse extends ScriptedTiming {
  type: "response";
  output: ScriptedOutputItem[];
  /** Response id; defaults to `resp_<n>`. */
  id?: string | undefined;
  /** Usage reported in `response.completed`; missing fields take {@link DEFAULT_USAGE}; `null` sends none. */
  usage?: Partial<ScriptedUsage> | null | undefined;
  /** End with `response.failed` carrying this error instead of `response.completed`. */
  failure?: { code: string; message: string } | undefined;
  /** Drop the connection after the items, with no closing event. */
  disconnect?: boolean | undefined;
  /** Pause this long between SSE events. */
  eventDelayMs?: number | undefined;
}

/** A non-streamed HTTP error answer. */
export interface ScriptedHttpError extends ScriptedTiming {
  type: "http_error";
  status: number;
  /** JSON body; defaults to `{ error: { message, type, code } }`. */
  body?: unknown;
  headers?: Record<string, string> | undefined;
}

/** One complete answer to one `POST /v1/responses`. */
export type ScriptedResponse = ScriptedStreamResponse | ScriptedHttpError;

/** Computes a step when its request arrives (its body already parsed). */
export type ScriptedResponseFactory = (
  request: RecordedRequest,
) => ScriptedResponse | ScriptedOutputItem;

/**
 * One entry of the script: a response, a single output item (a response of its own), or a
 * factory called with the request.
 */
export type ScriptStep = ScriptedResponse | ScriptedOutputItem | ScriptedResponseFactory;

/** One question of a `request_user_input` call. */
export interface UserInputQuestion {
  id: string;
  header: string;
  question: string;
  options: { label: string; description: string }[];
}

/** Options of the builders that make function calls. */
export interface CallOptions {
  callId?: string | undefined;
  id?: string | undefined;
  /** The tool's namespace (see {@link ScriptedFunctionCall.namespace}). */
  namespace?: string | undefined;
}

/** Options of {@link execCommand} and {@link applyPatch}. */
export interface ExecCommandOptions extends CallOptions {
  /** Ask to run outside the sandbox (`sandbox_permissions: "require_escalated"`). */
  escalated?: boolean | undefined;
  /** The approval question shown for an escalated command. */
  justification?: string | undefined;
  workdir?: string | undefined;
  yieldTimeMs?: number | undefined;
  /** A reusable approval prefix (`prefix_rule`), only with `escalated`. */
  prefixRule?: string[] | undefined;
}

/** Builds an assistant message item: `reply("Done.")`, `reply("a b", { deltas: ["a ", "b"] })`. */
export function reply(
  text: string,
  options: Omit<ScriptedMessage, "type" | "text"> = {},
): ScriptedMessage {
  return { type: "message", text, ...options };
}

/** Builds a reasoning item from one summary part or several. */
export function reasoning(
  summary: string | string[],
  options: Omit<ScriptedReasoning, "type" | "summary"> = {},
): ScriptedReasoning {
  return {
    type: "reasoning",
    summary: typeof summary === "string" ? [summary] : summary,
    ...options,
  };
}

/** Builds a call of any tool by name; object arguments are JSON-encoded. */
export function functionCall(
  name: string,
  args: string | Record<string, unknown>,
  options: CallOptions = {},
): ScriptedFunctionCall {
  const text = typeof args === "string" ? args : JSON.stringify(args);
  return { type: "function_call", name, arguments: text, ...options };
}

/**
 * Builds a call of an MCP server's tool as codex offers it: `read_notes` in the namespace
 * `mcp__notes` for server `notes`.
 */
export function mcpToolCall(
  server: string,
  tool: string,
  args: Record<string, unknown> = {},
  options: Omit<CallOptions, "namespace"> = {},
): ScriptedFunctionCall {
  return functionCall(tool, args, { ...options, namespace: `mcp__${server}` });
}

/** Builds an `exec_command` call: `execCommand("echo hi > a.txt", { escalated: true })`. */
export function execCommand(cmd: string, options: ExecCommandOptions = {}): ScriptedFunctionCall {
  const args: Record<string, unknown> = { cmd };
  if (options.workdir !== undefined) args.workdir = options.workdir;
  if (options.yieldTimeMs !== undefined) args.yield_time_ms = options.yieldTimeMs;
  if (options.escalated) args.sandbox_permissions = "require_escalated";
  if (options.justification !== undefined) args.justification = options.justification;
  if (options.prefixRule !== undefined) args.prefix_rule = options.prefixRule;
  return functionCall("exec_command", args, { callId: options.callId, id: options.id });
}

/**
 * Builds a file change: an `exec_command` whose `cmd` is an `apply_patch` heredoc. `patch` is the
 * patch body (`*** Add File: a.txt\n+hi`); `*** Begin Patch`/`*** End Patch` are added when missing.
 */
export function applyPatch(patch: string, options: ExecCommandOptions = {}): ScriptedFunctionCall {
  let body = patch.endsWith("\n") ? patch : `${patch}\n`;
  if (!body.trimStart().startsWith("*** Begin Patch")) {
    body = `*** Begin Patch\n${body}*** End Patch\n`;
  }
  if (body.split("\n").includes("EOF")) {
    throw new CodexHarnessError(
      "scripted_model_invalid_script",
      "applyPatch(): the patch has a line that is exactly `EOF`, which would end the heredoc early. Change that line.",
    );
  }
  return execCommand(`apply_patch <<'EOF'\n${body}EOF\n`, options);
}

/** Builds a `request_user_input` call asking one to three questions. */
export function requestUserInput(
  questions: UserInputQuestion[],
  options: CallOptions = {},
): ScriptedFunctionCall {
  return functionCall("request_user_input", { questions }, options);
}

/** Builds an item of raw SSE events, for event shapes the other builders do not make. */
export function rawEvents(events: Record<string, unknown>[]): ScriptedRawEvents {
  return { type: "raw_events", events };
}

/** Bundles output items into one streamed response: `response([reasoning("…"), reply("hi")])`. */
export function response(
  output: ScriptedOutputItem | ScriptedOutputItem[],
  options: Omit<ScriptedStreamResponse, "type" | "output"> = {},
): ScriptedStreamResponse {
  return { type: "response", output: Array.isArray(output) ? output : [output], ...options };
}

/** A response that fails with a `response.failed` event (after `response.created`). */
export function failure(
  message: string,
  options: { code?: string } & Omit<ScriptedStreamResponse, "type" | "output" | "failure"> = {},
): ScriptedStreamResponse {
  const { code = "server_error", ...rest } = options;
  return { type: "response", output: [], failure: { code, message }, ...rest };
}

/** An HTTP error answer, e.g. `httpError(500)` or `httpError(400, { message: "bad" })`. */
export function httpError(
  status: number,
  options: { message?: string; code?: string } & Omit<ScriptedHttpError, "type" | "status"> = {},
): ScriptedHttpError {
  const { message, code, ...rest } = options;
  const body = rest.body ?? {
    error: {
      message: message ?? `ScriptedModel: scripted HTTP ${status}`,
      type: status >= 500 ? "server_error" : "invalid_request_error",
      code: code ?? null,
    },
  };
  return { type: "http_error", status, ...rest, body };
}

/** Turns a step's value into a checked response, or throws a CodexHarnessError naming the problem. */
export function toResponse(value: ScriptedResponse | ScriptedOutputItem): ScriptedResponse {
  const result: ScriptedResponse =
    value.type === "response" || value.type === "http_error"
      ? value
      : { type: "response", output: [value] };
  validateResponse(result);
  return result;
}

function validateResponse(value: ScriptedResponse): void {
  checkDuration("delayMs", value.delayMs);
  if (value.type === "http_error") {
    if (!Number.isInteger(value.status) || value.status < 400 || value.status > 599) {
      invalid(`httpError status ${String(value.status)} is not an HTTP error; use 400-599.`);
    }
    return;
  }
  checkDuration("eventDelayMs", value.eventDelayMs);
  if (!Array.isArray(value.output)) invalid("a response's `output` must be an array of items.");
  for (const [key, count] of Object.entries(value.usage ?? {})) {
    if (count !== undefined && (!Number.isInteger(count) || count < 0)) {
      invalid(`usage.${key} is ${String(count)}; use a non-negative integer.`);
    }
  }
  for (const item of value.output) validateItem(item);
}

function validateItem(item: ScriptedOutputItem): void {
  switch (item.type) {
    case "message":
      if (Array.isArray(item.deltas) && item.deltas.join("") !== item.text) {
        invalid(`the deltas of message ${JSON.stringify(item.text)} do not join to its text.`);
      }
      if (typeof item.deltas === "number") checkChunks("message deltas", item.deltas);
      return;
    case "reasoning":
      if (item.deltas !== undefined) checkChunks("reasoning deltas", item.deltas);
      return;
    case "function_call":
      if (!item.name) invalid("a function call needs a `name`.");
      return;
    case "raw_events":
      if (!item.events.every((event) => typeof event.type === "string")) {
        invalid("every raw event needs a string `type`.");
      }
      return;
    default:
      invalid(`unknown output item type ${JSON.stringify((item as { type: unknown }).type)}.`);
  }
}

function checkDuration(name: string, ms: number | undefined): void {
  if (ms !== undefined && (!Number.isFinite(ms) || ms < 0)) {
    invalid(`${name} is ${String(ms)}; use a non-negative number of milliseconds.`);
  }
}

function checkChunks(name: string, count: number): void {
  if (!Number.isInteger(count) || count < 1) invalid(`${name} is ${count}; use an integer >= 1.`);
}

function invalid(message: string): never {
  throw new CodexHarnessError("scripted_model_invalid_script", `ScriptedModel: ${message}`);
}
