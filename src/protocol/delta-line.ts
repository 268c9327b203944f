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

/**
 * Reads delta notification lines, the bulk of a turn's traffic, several times faster than
 * JSON.parse: a line in codex's layout becomes the same object JSON.parse would make of it, and
 * {@link read} returns undefined for any other line (the caller parses it as usual). One per
 * connection: it keeps the method and ids of the last delta it read, and a pattern with them
 * written in, so a run of deltas of one item captures only their text.
 */
export class DeltaLineReader {
  private readonly any = new RegExp(DELTA_LINE, "y");
  /** {@link DELTA_LINE} with the last delta's method and ids as literals. */
  private known: RegExp | undefined;
  private method = "";
  private threadId = "";
  private turnId = "";
  private itemId = "";

  /**
   * The notification in `text` from `start` to `end` (a whole line without its newline), or
   * undefined when it is not a delta line as codex writes them (or is longer than
   * {@link DELTA_LINE_MAX_CHARS}).
   */
  read(text: string, start: number, end: number): object | undefined {
    if (end - start > DELTA_LINE_MAX_CHARS) return undefined;
    const known = this.known;
    if (known !== undefined) {
      known.lastIndex = start;
      const match = known.exec(text);
      if (match !== null && known.lastIndex === end) return this.notification(match, KNOWN_SHIFT);
    }
    const any = this.any;
    any.lastIndex = start;
    const match = any.exec(text);
    if (match === null || any.lastIndex !== end) return undefined;
    this.remember(match);
    return this.notification(match, 0);
  }

  /** Keeps the method and ids of `match` (strings of their own), and a pattern naming them. */
  private remember(match: RegExpExecArray): void {
    this.method = own(match[CAPTURE.method] as string);
    this.threadId = own(match[CAPTURE.threadId] as string);
    this.turnId = own(match[CAPTURE.turnId] as string);
    this.itemId = own(match[CAPTURE.itemId] as string);
    const literal = (text: string) => `"${text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&")}"`;
    this.known = new RegExp(
      String.raw`\{"method":${literal(this.method)},"params":\{"threadId":${literal(this.threadId)},"turnId":${literal(this.turnId)},"itemId":${literal(this.itemId)},${REST}`,
      "y",
    );
  }

  /**
   * The object JSON.parse makes of the line: one literal per shape, keys in the line's order.
   * `shift` moves the captures from where {@link DELTA_LINE} has them.
   */
  private notification(match: RegExpExecArray, shift: number): object {
    const written = match[CAPTURE.delta + shift] as string;
    // The patterns admit only JSON's escapes, so this parse cannot fail.
    const delta = written.includes("\\") ? (JSON.parse(`"${written}"`) as string) : own(written);
    const indexName = match[CAPTURE.indexName + shift];
    const index = Number(match[CAPTURE.index + shift]);
    const emittedAtMs = match[CAPTURE.emittedAtMs + shift];
    const { threadId, turnId, itemId } = this;
    const params =
      indexName === undefined
        ? { threadId, turnId, itemId, delta }
        : indexName === "contentIndex"
          ? { threadId, turnId, itemId, delta, contentIndex: index }
          : { threadId, turnId, itemId, delta, summaryIndex: index };
    return emittedAtMs === undefined
      ? { method: this.method, params }
      : { method: this.method, params, emittedAtMs: Number(emittedAtMs) };
  }
}

/**
 * `text` as a string of its own: a match's substring is a view of the whole chunk it came from,
 * and a reader that keeps the delta (or an id) would keep the chunk alive with it.
 */
function own(text: string): string {
  return text.length < VIEW_MIN_CHARS ? text : ` ${text}`.slice(1);
}
