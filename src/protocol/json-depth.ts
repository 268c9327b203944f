// How deeply a JSON text nests, found without parsing it: messages past a bound are refused before
// anything recursive (redaction, JSON.stringify, a renderer) can overflow the stack on them.

/** The deepest nesting of objects and arrays accepted in a message (codex's are far shallower). */
export const MAX_JSON_DEPTH = 512;

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;

/**
 * Whether `text` (JSON) nests objects and arrays deeper than `limit`. Brackets inside strings do
 * not count. Linear, and stops at the first level past the limit; a text shorter than the limit
 * cannot exceed it and is not scanned.
 */
export function nestsDeeperThan(text: string, limit = MAX_JSON_DEPTH): boolean {
  if (text.length <= limit) return false;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--;
  }
  return false;
}
