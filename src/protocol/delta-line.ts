// Reads the lines codex sends most, its delta notifications, without JSON.parse: sticky regexes
// that accept only their exact layout, giving the object JSON.parse would give.

/** A JSON string without escapes (its text is its value). */
const PLAIN = String.raw`"([^"\\\u0000-\u001f]*)"`;
/** Any JSON string: each character plain or one of JSON's escapes. */
const ESCAPED = String.raw`"((?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*)"`;
/** A JSON number that is a safe integer as written: no sign, fraction or exponent, 15 digits at most. */
const COUNT = "(0|[1-9][0-9]{0,14})";
/** What follows the method and ids: the delta, a reasoning index if any, then `emittedAtMs` if any. */
const REST = String.raw`"delta":${ESCAPED}(?:,"(contentIndex|summaryIndex)":${COUNT})?\}(?:,"emittedAtMs":${COUNT})?\}`;

/**
 * A delta notification exactly as codex writes it (serde_json: fields in declaration order, no
 * spaces), e.g. `{"method":"item/agentMessage/delta","params":{"threadId":"…","turnId":"…",
 * "itemId":"…","delta":"…"},"emittedAtMs":1795305466623}`; reasoning deltas add `contentIndex` or
 * `summaryIndex`, and `emittedAtMs` is absent from older codex. Anything else does not match.
 */
const DELTA_LINE = String.raw`\{"method":${PLAIN},"params":\{"threadId":${PLAIN},"turnId":${PLAIN},"itemId":${PLAIN},${REST}`;

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
  threadId: 2,
  turnId: 3,
  itemId: 4,
  delta: 5,
  indexName: 6,
  index: 7,
  emittedAtMs: 8,
} as const;
/** A `known` pattern has the method and ids written in: its captures start at the delta. */
const KNOWN_SHIFT = -4;

/** Whose deltas a line is: its method and ids, as strings of their own. */
interface Ids {
  readonly method: string;
  readonly threadId: string;
  readonly turnId: string;
  readonly itemId: string;
}

/** {@link DELTA_LINE} with one item's method and ids written in: it captures only the rest. */
interface Known extends Ids {
  readonly pattern: RegExp;
  /** The number of the last line it read (see {@link DeltaLineReader.lines}). */
  lastRead: number;
}

/**
 * How many items' patterns are kept, and how many items' ids read without one are remembered:
 * deltas of a few items (of threads running at once) may interleave.
 */
const KNOWN_ITEMS = 4;
/** A pattern that read none of the last this many lines may be replaced by another item's. */
const STALE_LINES = 64;

/**
 * Reads delta notification lines, the bulk of a turn's traffic, up to four times faster than
 * JSON.parse (short deltas; about a third faster at 40 characters): a line in codex's layout becomes the same object JSON.parse would make of it, and
 * {@link read} returns undefined for any other line (the caller parses it as usual). One per
 * connection. The second time it reads a delta of an item without a pattern, it writes that item's
 * method and ids into a pattern of their own, so the item's next deltas capture only their text.
 */
export class DeltaLineReader {
  private readonly any = new RegExp(DELTA_LINE, "y");
  private readonly known: Known[] = [];
  /** How many lines {@link read} was asked for. */
  private lines = 0;
  /** The ids of the last items read without a pattern, the latest last. */
  private readonly recent: Ids[] = [];

  /**
   * The notification in `text` from `start` to `end` (a whole line without its newline), or
   * undefined when it is not a delta line as codex writes them (or is longer than
   * {@link DELTA_LINE_MAX_CHARS}).
   */
  read(text: string, start: number, end: number): object | undefined {
    if (end - start > DELTA_LINE_MAX_CHARS) return undefined;
    const line = ++this.lines;
    for (const known of this.known) {
      const pattern = known.pattern;
      pattern.lastIndex = start;
      const match = pattern.exec(text);
      if (match !== null && pattern.lastIndex === end) {
        known.lastRead = line;
        return notification(known, match, KNOWN_SHIFT);
      }
    }
    const any = this.any;
    any.lastIndex = start;
    const match = any.exec(text);
    if (match === null || any.lastIndex !== end) return undefined;
    return notification(this.remember(match), match, 0);
  }

  /**
   * The ids of `match`, as strings of their own. When they are a recent item's, that item gets a
   * pattern.
   */
  private remember(match: RegExpExecArray): Ids {
    const method = match[CAPTURE.method] as string;
    const threadId = match[CAPTURE.threadId] as string;
    const turnId = match[CAPTURE.turnId] as string;
    const itemId = match[CAPTURE.itemId] as string;
    const recent = this.recent;
    const again = recent.findIndex(
      (ids) =>
        ids.itemId === itemId &&
        ids.turnId === turnId &&
        ids.threadId === threadId &&
        ids.method === method,
    );
    if (again !== -1) {
      const ids = recent[again] as Ids;
      recent.splice(again, 1);
      this.keep(ids);
      return ids;
    }
    // The latest item's method, thread and turn are most likely this one's too.
    const latest = recent.at(-1);
    const ids: Ids = {
      method: method === latest?.method ? latest.method : own(method),
      threadId: threadId === latest?.threadId ? latest.threadId : own(threadId),
      turnId: turnId === latest?.turnId ? latest.turnId : own(turnId),
      itemId: own(itemId),
    };
    if (recent.push(ids) > KNOWN_ITEMS) recent.shift();
    return ids;
  }

  /**
   * Makes the pattern of `ids`, in a free place or one whose item read none of the last
   * {@link STALE_LINES} lines. When every pattern is in use (more items interleave than are kept),
   * none is replaced: patterns made only to be replaced would cost more than they save.
   */
  private keep(ids: Ids): void {
    const known = this.known;
    const place =
      known.length < KNOWN_ITEMS
        ? known.length
        : known.findIndex((k) => this.lines - k.lastRead > STALE_LINES);
    if (place === -1) return;
    const literal = (text: string) => `"${text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&")}"`;
    const pattern = new RegExp(
      String.raw`\{"method":${literal(ids.method)},"params":\{"threadId":${literal(ids.threadId)},"turnId":${literal(ids.turnId)},"itemId":${literal(ids.itemId)},${REST}`,
      "y",
    );
    known[place] = { ...ids, pattern, lastRead: this.lines };
  }
}

/**
 * The object JSON.parse makes of the line: one literal per shape, keys in the line's order.
 * `shift` moves the captures from where {@link DELTA_LINE} has them.
 */
function notification(ids: Ids, match: RegExpExecArray, shift: number): object {
  const delta = own(match[CAPTURE.delta + shift] as string);
  const indexName = match[CAPTURE.indexName + shift];
  const index = Number(match[CAPTURE.index + shift]);
  const emittedAtMs = match[CAPTURE.emittedAtMs + shift];
  const { method, threadId, turnId, itemId } = ids;
  const params =
    indexName === undefined
      ? { threadId, turnId, itemId, delta }
      : indexName === "contentIndex"
        ? { threadId, turnId, itemId, delta, contentIndex: index }
        : { threadId, turnId, itemId, delta, summaryIndex: index };
  return emittedAtMs === undefined
    ? { method, params }
    : { method, params, emittedAtMs: Number(emittedAtMs) };
}

/**
 * The value of a JSON string's `text` (between its quotes; the patterns admit only JSON's escapes,
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
