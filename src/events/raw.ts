// Keeps the wire message an event came from reachable: a non-enumerable `raw`, read with `rawOf()`.
import { DELTA_METHOD_OF_STREAM } from "./delta-streams.js";
import type { ExtendedThreadEvent } from "./types.js";

/** An event with the wire message it was made from. */
export type WithRaw<T> = T & { readonly raw?: unknown };

/** Attaches `raw` without making it part of the event's JSON or its enumerable shape. */
export function withRaw<T extends object>(event: T, raw: unknown): WithRaw<T> {
  Object.defineProperty(event, "raw", { value: raw, enumerable: false, writable: false });
  return event as WithRaw<T>;
}

/**
 * The wire message an event came from, if the transport kept one. `item.delta` events, which come
 * by the hundred thousand, do not carry it: their message is rebuilt from the event (everything but
 * codex's `emittedAtMs`).
 */
export function rawOf(event: object): unknown {
  const raw = (event as { raw?: unknown }).raw;
  if (raw !== undefined) return raw;
  const delta = event as ExtendedThreadEvent;
  if (delta.type !== "item.delta" || delta.turn_id === undefined) return undefined;
  return {
    method: DELTA_METHOD_OF_STREAM[delta.stream],
    params: {
      threadId: delta.thread_id,
      turnId: delta.turn_id,
      itemId: delta.item_id,
      delta: delta.delta,
      ...(delta.summary_index === undefined ? {} : { summaryIndex: delta.summary_index }),
      ...(delta.content_index === undefined ? {} : { contentIndex: delta.content_index }),
    },
  };
}
