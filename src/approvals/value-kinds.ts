// What a parsed value is, for validation messages: a table, an array, a string, ….

/** Whether `value` is a table (a plain object: not null, an array or a date). */
export function isTable(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date)
  );
}

/** What `value` is, in words: "an array", "a table", "a number", "nothing", …. */
export function kindOf(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (value instanceof Date) return "a date";
  return typeof value === "object" ? "a table" : `a ${typeof value}`;
}
