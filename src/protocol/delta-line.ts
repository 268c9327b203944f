// Reads the lines codex sends most, its delta notifications, without JSON.parse: a sticky regex
// that accepts only their exact layout, giving the object JSON.parse would give.

/** A JSON string without escapes (its text is its value). */
const PLAIN = String.raw`"[^"\\\u0000-\u001f]*"`;
/** Any JSON string: each character plain or one of JSON's escapes. */
const ESCAPED = String.raw`"((?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*)"`;
/** A JSON number that is a safe integer as written: no sign, fraction or exponent, 15 digits at most. */
const COUNT = "(0|[1-9][0-9]{0,14})";

/**
 * A delta notification exactly as codex writes it (serde_json: fields in declaration order, no
 * spaces), e.g. `{"method":"item/agentMessage/delta","params":{"threadId":"…","turnId":"…",
 * "itemId":"…","delta":"…"},"emittedAtMs":1795305466623}`; reasoning deltas add `contentIndex` or
 * `summaryIndex`, and `emittedAtMs` is absent from older codex. Anything else does not match. The
 * ids are captured as written, together: an item's deltas all have the same.
 */
const DELTA_LINE = String.raw`\{"method":(${PLAIN}),"params":\{("threadId":${PLAIN},"turnId":${PLAIN},"itemId":${PLAIN}),"delta":${ESCAPED}(?:,"(contentIndex|summaryIndex)":${COUNT})?\}(?:,"emittedAtMs":${COUNT})?\}`;

/**
 * The longest line read this way. Past about this length JSON.parse is the faster reader (it
 * copies long strings in bulk, where a regex steps through each character).
 */
export const DELTA_LINE_MAX_CHARS = 512;

/** V8 keeps a substring of 13 characters or more as a view of its whole parent string. */
const VIEW_MIN_CHARS = 13;

/** Where {@link DELTA_LINE} captures each part. */
const CAPTURE = {
  method: 1,
  ids: 2,
  delta: 3,
  indexName: 4,
  index: 5,
  emittedAtMs: 6,
} as const;

/** An item's ids, and the text they were written as. */
interface Ids {
  readonly written: string;
  readonly threadId: string;
  readonly turnId: string;
  readonly itemId: string;
}

/** How many items' ids are kept: deltas of several items (of threads running at once) may interleave. */
const KNOWN_ITEMS = 64;

const NO_IDS: Ids = { written: "", threadId: "", turnId: "", itemId: "" };

/**
 * Reads delta notification lines, the bulk of a turn's traffic, up to twice as fast as JSON.parse
 * (an item's short deltas, one after another): a line in codex's layout becomes the same object JSON.parse would make of it, and {@link read}
 * returns undefined for any other line (the caller parses it as usual). One per connection: it
 * keeps the last method and the ids of the last {@link KNOWN_ITEMS} items it read, as strings of
 * their own, so that an item's deltas share them; an item's first delta is parsed by JSON.parse.
 */
export class DeltaLineReader {
  private readonly pattern = new RegExp(DELTA_LINE, "y");
  /** The last method read, as written (quoted) and as its value. */
  private method = { written: "", value: "" };
  /** The ids of the items read, by their text as written, in the order they were first read. */
  private readonly items = new Map<string, Ids>();
  /** The ids of the last line read, and of the last other item's (two threads may take turns). */
  private last = NO_IDS;
  private previous = NO_IDS;

  /**
   * The notification in `text` from `start` to `end` (a whole line without its newline), or
   * undefined when it is not a delta line as codex writes them (or is longer than
   * {@link DELTA_LINE_MAX_CHARS}).
   */
  read(text: string, start: number, end: number): object | undefined {
    if (end - start > DELTA_LINE_MAX_CHARS) return undefined;
    const pattern = this.pattern;
    pattern.lastIndex = start;
    const match = pattern.exec(text);
    if (match === null || pattern.lastIndex !== end) return undefined;
    const writtenIds = match[CAPTURE.ids] as string;
    let ids = this.last;
    if (writtenIds !== ids.written) {
      const previous = this.previous;
      const found = writtenIds === previous.written ? previous : this.items.get(writtenIds);
      if (found === undefined) return this.first(text.slice(start, end));
      this.previous = ids;
      this.last = ids = found;
    }
    const writtenMethod = match[CAPTURE.method] as string;
    if (writtenMethod !== this.method.written) {
      const value = JSON.parse(writtenMethod) as string;
      this.method = { written: JSON.stringify(value), value };
    }
    const { threadId, turnId, itemId } = ids;
    const delta = own(match[CAPTURE.delta] as string);
    const indexName = match[CAPTURE.indexName];
    const emittedAtMs = match[CAPTURE.emittedAtMs];
    // The object JSON.parse makes of the line: one literal per shape, keys in the line's order.
    const params =
      indexName === undefined
        ? { threadId, turnId, itemId, delta }
        : indexName === "contentIndex"
          ? { threadId, turnId, itemId, delta, contentIndex: Number(match[CAPTURE.index]) }
          : { threadId, turnId, itemId, delta, summaryIndex: Number(match[CAPTURE.index]) };
    const method = this.method.value;
    return emittedAtMs === undefined
      ? { method, params }
      : { method, params, emittedAtMs: Number(emittedAtMs) };
  }

  /** An item's first delta line (it matched the pattern): parsed, and its ids kept. */
  private first(line: string): object {
    const value = JSON.parse(line) as { params: Omit<Ids, "written"> };
    const { threadId, turnId, itemId } = value.params;
    // Written from the values (the same text, as they have no escapes): the match is a view of
    // its chunk, which a kept key would keep alive.
    const written = `"threadId":"${threadId}","turnId":"${turnId}","itemId":"${itemId}"`;
    this.previous = this.last;
    this.last = { written, threadId, turnId, itemId };
    const items = this.items;
    items.set(written, this.last);
    if (items.size > KNOWN_ITEMS) items.delete(items.keys().next().value as string);
    return value;
  }
}

/**
 * The value of a JSON string's `text` (between its quotes; the pattern admits only JSON's escapes,
 * so this never throws), as a string of its own: a match's substring is a view of the whole chunk
 * it came from, and a reader that keeps the delta (or an id) would keep the chunk alive with it.
 * JSON.parse makes a flat copy, as small as its own; one made by slicing a concatenation
 * (`" " + text`) is a view of that, 32 bytes more a string.
 */
function own(text: string): string {
  return text.length < VIEW_MIN_CHARS && !text.includes("\\")
    ? text
    : (JSON.parse(`"${text}"`) as string);
}
