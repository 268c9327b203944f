// How deeply a parsed JSON value nests: messages past a bound are refused before anything
// recursive (redaction, JSON.stringify, a renderer) can overflow the stack on them. The check
// walks the parsed value (JSON.parse itself copes with any depth), so its cost follows the number
// of objects and arrays, not the length of the strings: a delta or an 8 KiB output chunk costs a
// handful of steps.

/** The deepest nesting of objects and arrays accepted in a message (codex's are far shallower). */
export const MAX_JSON_DEPTH = 512;

/**
 * Text this long or shorter cannot nest past {@link MAX_JSON_DEPTH}: that takes more than twice as
 * many brackets. Lines up to it (deltas) need no walk.
 */
export const SHALLOW_TEXT_CHARS = 2 * MAX_JSON_DEPTH;

/**
 * Whether `value` nests objects and arrays deeper than `limit` (a top-level object or array is
 * level 1). Iterative, and stops at the first level past the limit.
 */
export function nestsDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  if (typeof value !== "object" || value === null) return false;
  const stack: [object, number][] = [[value, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, depth] = next;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}
