// Newline-delimited JSON framing: splits a byte stream into JSON values, surviving noise and huge lines.
import { StringDecoder } from "node:string_decoder";
import { DELTA_LINE_MAX_CHARS, DeltaLineReader } from "./delta-line.js";
import { MAX_JSON_DEPTH, nestsDeeperThan, SHALLOW_TEXT_CHARS } from "./json-depth.js";

/** The default largest line accepted, in bytes (codex sends whole diffs and outputs in one line). */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * What a chunk of input turned into: parsed JSON values and per-line errors, in order. A line
 * nested deeper than {@link MAX_JSON_DEPTH} is an error (`too_deep`), not a value.
 */
export type DecodedLine = { ok: true; value: unknown } | { ok: false; error: FramingError };

/** A line that could not be read: it was over the size limit, or not JSON. The stream goes on. */
export class FramingError extends Error {
  readonly code: "line_too_long" | "invalid_json" | "too_deep";
  /** The start of the offending line (at most 200 characters), for diagnostics. */
  readonly excerpt: string;

  constructor(code: FramingError["code"], message: string, excerpt: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "FramingError";
    this.code = code;
    this.excerpt = excerpt;
  }
}

const CARRIAGE_RETURN = 13;
const EXCERPT_CHARS = 200;

/**
 * Splits input into lines and parses each as JSON. Handles messages split across chunks (also in
 * the middle of a UTF-8 character), several per chunk, `\r\n`, and blank lines. A line longer than
 * `maxLineBytes` is reported once and skipped up to its newline without being buffered.
 */
export class LineDecoder {
  private readonly maxLineBytes: number;
  private readonly utf8 = new StringDecoder("utf8");
  /** The unfinished line carried over from earlier chunks. */
  private carry = "";
  private skipping = false;
  private readonly deltas = new DeltaLineReader();
  /** The longest line the delta reader may take: one that cannot be over the size limit. */
  private readonly deltaLineMaxChars: number;

  constructor(options: { maxLineBytes?: number } = {}) {
    const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!Number.isInteger(max) || max <= 0) {
      throw new RangeError(`maxLineBytes must be a positive integer, got ${String(max)}`);
    }
    this.maxLineBytes = max;
    // UTF-8 needs at most 3 bytes per UTF-16 unit.
    this.deltaLineMaxChars = Math.min(DELTA_LINE_MAX_CHARS, Math.floor(max / 3));
  }

  /** Feeds a chunk; returns the lines it completed. */
  push(chunk: Buffer | string): DecodedLine[] {
    const out: DecodedLine[] = [];
    this.feed(
      chunk,
      (value) => out.push({ ok: true, value }),
      (error) => out.push({ ok: false, error }),
    );
    return out;
  }

  /** Feeds a chunk, handing each completed line to `onValue` or `onError` (no arrays on the way). */
  feed(
    chunk: Buffer | string,
    onValue: (value: unknown) => void,
    onError: (error: FramingError) => void,
  ): void {
    const text = typeof chunk === "string" ? chunk : this.utf8.write(chunk);
    let start = 0;
    for (;;) {
      const newline = text.indexOf("\n", start);
      if (newline === -1) {
        this.hold(text.slice(start), onError);
        return;
      }
      const from = start;
      start = newline + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      // The bulk of traffic: a whole delta line in this chunk, read without JSON.parse.
      if (this.carry === "" && newline - from <= this.deltaLineMaxChars) {
        const delta = this.deltas.read(text, from, newline);
        if (delta !== undefined) {
          onValue(delta);
          continue;
        }
      }
      let line = text.slice(from, newline);
      if (this.carry !== "") {
        line = this.carry + line;
        this.carry = "";
      }
      if (this.tooLong(line)) onError(tooLongError(line, this.maxLineBytes));
      else decodeLine(line, onValue, onError, this.deltas);
    }
  }

  /** Ends the input: a last line without a newline is decoded too. */
  flush(): DecodedLine[] {
    const out: DecodedLine[] = [];
    const line = this.carry + this.utf8.end();
    this.carry = "";
    if (!this.skipping) {
      decodeLine(
        line,
        (value) => out.push({ ok: true, value }),
        (error) => out.push({ ok: false, error }),
      );
    }
    this.skipping = false;
    return out;
  }

  /** Keeps an unfinished line, unless it already broke the limit (then it is skipped). */
  private hold(rest: string, onError: (error: FramingError) => void): void {
    if (this.skipping || rest === "") return;
    const line = this.carry + rest;
    if (this.tooLong(line)) {
      onError(tooLongError(line, this.maxLineBytes));
      this.carry = "";
      this.skipping = true;
      return;
    }
    this.carry = line;
  }

  /** UTF-8 needs at most 3 bytes per UTF-16 unit, so short lines need no byte count. */
  private tooLong(line: string): boolean {
    return line.length * 3 > this.maxLineBytes && Buffer.byteLength(line) > this.maxLineBytes;
  }
}

/**
 * Parses one message's text (a line, or a WebSocket text frame) into `onValue`, or reports why it
 * is not one to `onError` (not JSON, nested too deep). Blank text is skipped. `deltas`, if given,
 * reads a delta notification without JSON.parse.
 */
export function decodeLine(
  line: string,
  onValue: (value: unknown) => void,
  onError: (error: FramingError) => void,
  deltas?: DeltaLineReader,
): void {
  const text =
    line.length > 0 && line.charCodeAt(line.length - 1) === CARRIAGE_RETURN
      ? line.slice(0, -1)
      : line;
  const delta = deltas?.read(text, 0, text.length);
  if (delta !== undefined) {
    onValue(delta);
    return;
  }
  if (text === "") return;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    if (text.trim() === "") return;
    onError(
      new FramingError(
        "invalid_json",
        `Skipped a line that is not JSON: ${JSON.stringify(text.slice(0, EXCERPT_CHARS))}`,
        text.slice(0, EXCERPT_CHARS),
        cause,
      ),
    );
    return;
  }
  if (text.length > SHALLOW_TEXT_CHARS && nestsDeeperThan(value)) {
    onError(
      new FramingError(
        "too_deep",
        `Skipped a line nested deeper than ${MAX_JSON_DEPTH} levels (no codex message is).`,
        text.slice(0, EXCERPT_CHARS),
      ),
    );
    return;
  }
  onValue(value);
}

function tooLongError(line: string, max: number): FramingError {
  return new FramingError(
    "line_too_long",
    `A line exceeded the ${max}-byte limit and was skipped; raise maxLineBytes if such lines are expected.`,
    line.slice(0, EXCERPT_CHARS),
  );
}

/** Encodes one message as a line of JSON. */
export function encodeLine(message: unknown): string {
  return `${JSON.stringify(message)}\n`;
}
