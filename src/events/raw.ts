// Keeps the wire message an event came from reachable as a non-enumerable `raw` property.

/** An event with the wire message it was made from. */
export type WithRaw<T> = T & { readonly raw?: unknown };

/** Attaches `raw` without making it part of the event's JSON or its enumerable shape. */
export function withRaw<T extends object>(event: T, raw: unknown): WithRaw<T> {
  Object.defineProperty(event, "raw", { value: raw, enumerable: false, writable: false });
  return event as WithRaw<T>;
}

/** The wire message an event came from, if the transport kept it. */
export function rawOf(event: object): unknown {
  return (event as { raw?: unknown }).raw;
}
