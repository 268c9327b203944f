// Renders a scripted response as the Responses-API SSE events codex reads, in stream order.

import type {
  ScriptedFunctionCall,
  ScriptedMessage,
  ScriptedOutputItem,
  ScriptedReasoning,
  ScriptedStreamResponse,
  ScriptedUsage,
} from "./script.js";
import { DEFAULT_USAGE } from "./script.js";

/** One SSE event: its `type` is also the SSE `event:` name. */
export type SseEvent = { type: string } & Record<string, unknown>;

/** What the renderer needs besides the script. */
export interface RenderContext {
  /** 1-based number of the response; used in default ids. */
  responseNumber: number;
  /** Model name echoed in the `response` objects. */
  model: string;
}

/** Formats one event as an SSE frame: `event: <type>\ndata: <json>\n\n`. */
export function formatSse(event: SseEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** The events of a streamed response, `sequence_number`s included. */
export function renderResponseEvents(
  response: ScriptedStreamResponse,
  context: RenderContext,
): SseEvent[] {
  const id = response.id ?? `resp_${context.responseNumber}`;
  const events: SseEvent[] = [];
  const done: Record<string, unknown>[] = [];
  const envelope = (status: string, extra: Record<string, unknown> = {}) => ({
    id,
    object: "response",
    created_at: 0,
    status,
    model: context.model,
    output: status === "in_progress" ? [] : done,
    ...extra,
  });
  events.push({ type: "response.created", response: envelope("in_progress") });
  events.push({ type: "response.in_progress", response: envelope("in_progress") });
  response.output.forEach((item, index) => {
    const rendered = renderItem(item, index, context.responseNumber);
    events.push(...rendered.events);
    if (rendered.item) done.push(rendered.item);
  });
  if (response.failure) {
    events.push({
      type: "response.failed",
      response: envelope("failed", { error: { ...response.failure }, usage: null }),
    });
  } else if (!response.disconnect) {
    const usage = response.usage === null ? null : wireUsage(response.usage ?? {});
    events.push({ type: "response.completed", response: envelope("completed", { usage }) });
  }
  return events.map((event, sequence) => ({ ...event, sequence_number: sequence }));
}

/** The Responses API `usage` object for a scripted usage (missing fields take the defaults). */
export function wireUsage(usage: Partial<ScriptedUsage>): Record<string, unknown> {
  const full = { ...DEFAULT_USAGE, ...usage };
  return {
    input_tokens: full.input_tokens,
    input_tokens_details: { cached_tokens: full.cached_input_tokens },
    output_tokens: full.output_tokens,
    output_tokens_details: { reasoning_tokens: full.reasoning_output_tokens },
    total_tokens: usage.total_tokens ?? full.input_tokens + full.output_tokens,
  };
}

/** Splits text into `count` chunks of about equal length, never inside a code point. */
export function splitText(text: string, count: number): string[] {
  const points = Array.from(text);
  if (points.length === 0) return [];
  const pieces = Math.min(count, points.length);
  const size = Math.ceil(points.length / pieces);
  const chunks: string[] = [];
  for (let start = 0; start < points.length; start += size) {
    chunks.push(points.slice(start, start + size).join(""));
  }
  return chunks;
}

interface RenderedItem {
  events: SseEvent[];
  /** The finished item, for `response.completed.output`. */
  item: Record<string, unknown> | undefined;
}

function renderItem(item: ScriptedOutputItem, index: number, responseNumber: number): RenderedItem {
  const suffix = `${responseNumber}_${index}`;
  switch (item.type) {
    case "message":
      return renderMessage(item, index, item.id ?? `msg_${suffix}`);
    case "reasoning":
      return renderReasoning(item, index, item.id ?? `rs_${suffix}`);
    case "function_call":
      return renderFunctionCall(item, index, item.id ?? `fc_${suffix}`, `call_${suffix}`);
    case "raw_events":
      return { events: item.events.map((event) => ({ ...event }) as SseEvent), item: undefined };
  }
}

function renderMessage(item: ScriptedMessage, index: number, id: string): RenderedItem {
  const deltas = Array.isArray(item.deltas) ? item.deltas : splitText(item.text, item.deltas ?? 3);
  const phase = item.phase === undefined ? {} : { phase: item.phase };
  const at = { item_id: id, output_index: index, content_index: 0 };
  const part = (text: string) => ({ type: "output_text", text, annotations: [] });
  const message = (status: string, content: unknown[]) => ({
    id,
    type: "message",
    status,
    role: "assistant",
    content,
    ...phase,
  });
  const finished = message("completed", [part(item.text)]);
  return {
    item: finished,
    events: [
      { type: "response.output_item.added", output_index: index, item: message("in_progress", []) },
      { type: "response.content_part.added", ...at, part: part("") },
      ...deltas.map((delta) => ({ type: "response.output_text.delta", ...at, delta })),
      { type: "response.output_text.done", ...at, text: item.text },
      { type: "response.content_part.done", ...at, part: part(item.text) },
      { type: "response.output_item.done", output_index: index, item: finished },
    ],
  };
}

function renderReasoning(item: ScriptedReasoning, index: number, id: string): RenderedItem {
  const count = item.deltas ?? 2;
  const at = { item_id: id, output_index: index };
  const events: SseEvent[] = [
    {
      type: "response.output_item.added",
      output_index: index,
      item: { id, type: "reasoning", summary: [] },
    },
  ];
  item.summary.forEach((text, summaryIndex) => {
    const summaryAt = { ...at, summary_index: summaryIndex };
    const part = (partText: string) => ({ type: "summary_text", text: partText });
    events.push({ type: "response.reasoning_summary_part.added", ...summaryAt, part: part("") });
    for (const delta of splitText(text, count)) {
      events.push({ type: "response.reasoning_summary_text.delta", ...summaryAt, delta });
    }
    events.push({ type: "response.reasoning_summary_text.done", ...summaryAt, text });
    events.push({ type: "response.reasoning_summary_part.done", ...summaryAt, part: part(text) });
  });
  (item.content ?? []).forEach((text, contentIndex) => {
    const contentAt = { ...at, content_index: contentIndex };
    for (const delta of splitText(text, count)) {
      events.push({ type: "response.reasoning_text.delta", ...contentAt, delta });
    }
    events.push({ type: "response.reasoning_text.done", ...contentAt, text });
  });
  const finished: Record<string, unknown> = {
    id,
    type: "reasoning",
    summary: item.summary.map((text) => ({ type: "summary_text", text })),
  };
  if (item.content !== undefined) {
    finished.content = item.content.map((text) => ({ type: "reasoning_text", text }));
  }
  events.push({ type: "response.output_item.done", output_index: index, item: finished });
  return { events, item: finished };
}

function renderFunctionCall(
  item: ScriptedFunctionCall,
  index: number,
  id: string,
  defaultCallId: string,
): RenderedItem {
  const call = (status: string, args: string) => ({
    id,
    type: "function_call",
    status,
    call_id: item.callId ?? defaultCallId,
    name: item.name,
    ...(item.namespace ? { namespace: item.namespace } : {}),
    arguments: args,
  });
  const at = { item_id: id, output_index: index };
  const finished = call("completed", item.arguments);
  return {
    item: finished,
    events: [
      { type: "response.output_item.added", output_index: index, item: call("in_progress", "") },
      ...splitText(item.arguments, 2).map((delta) => ({
        type: "response.function_call_arguments.delta",
        ...at,
        delta,
      })),
      { type: "response.function_call_arguments.done", ...at, arguments: item.arguments },
      { type: "response.output_item.done", output_index: index, item: finished },
    ],
  };
}
