// Reading loosely typed wire values without throwing: what codex sends may lack any field.

/** A JSON object as it came off the wire. */
export type Wire = Record<string, unknown>;

/** `value` if it is a string, else "". */
export function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The strings of `value` if it is an array, else none. */
export function strings(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((entry): entry is string => typeof entry === "string")
    : [];
}

/** Whether `value` is a JSON object (not null, not an array). */
export function isObject(value: unknown): value is Wire {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` if it is a JSON object, else an empty one. */
export function asWire(value: unknown): Wire {
  return isObject(value) ? value : {};
}
