// Newline-delimited JSON framing: splits a byte stream into JSON values, surviving noise and huge lines.

/** The default largest line accepted, in bytes (codex sends whole diffs and outputs in one line). */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** What a chunk of input turned into: parsed JSON values and per-line errors, in order. */
export type DecodedLine = { ok: true; value: unknown } | { ok: false; error: FramingError };

/** A line that could not be read: it was over the size limit, or not JSON. The stream goes on. */
export class FramingError extends Error {
  readonly code: "line_too_long" | "invalid_json";
  /** The start of the offending line (at most 200 characters), for diagnostics. */
  readonly excerpt: string;

  constructor(code: FramingError["code"], message: string, excerpt: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "FramingError";
    this.code = code;
    this.excerpt = excerpt;
  }
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const EXCERPT_CHARS = 200;

/**
 * Splits bytes into lines and parses each as JSON. Handles messages split across chunks, several
 * per chunk, `\r\n`, and blank lines. A line longer than `maxLineBytes` is reported once and skipped
 * up to its newline without being buffered.
 */
export class LineDecoder {
  private readonly maxLineBytes: number;
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(options: { maxLineBytes?: number } = {}) {
    const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!Number.isInteger(max) || max <= 0) {
      throw new RangeError(`maxLineBytes must be a positive integer, got ${String(max)}`);
    }
    this.maxLineBytes = max;
  }

  /** Feeds a chunk; returns the lines it completed. */
  push(chunk: Buffer | string): DecodedLine[] {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    const out: DecodedLine[] = [];
    let start = 0;
    for (;;) {
      const newline = bytes.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.append(bytes.subarray(start), out);
        return out;
      }
      this.append(bytes.subarray(start, newline), out);
      this.finishLine(out);
      start = newline + 1;
    }
  }

  /** Ends the input: a last line without a newline is decoded too. */
  flush(): DecodedLine[] {
    const out: DecodedLine[] = [];
    this.finishLine(out);
    return out;
  }

  private append(piece: Buffer, out: DecodedLine[]): void {
    if (this.skipping || piece.length === 0) return;
    if (this.size + piece.length > this.maxLineBytes) {
      const excerpt = excerptOf(Buffer.concat([...this.parts, piece.subarray(0, EXCERPT_CHARS)]));
      out.push({
        ok: false,
        error: new FramingError(
          "line_too_long",
          `A line exceeded the ${this.maxLineBytes}-byte limit and was skipped; raise maxLineBytes if such lines are expected.`,
          excerpt,
        ),
      });
      this.parts = [];
      this.size = 0;
      this.skipping = true;
      return;
    }
    this.parts.push(piece);
    this.size += piece.length;
  }

  private finishLine(out: DecodedLine[]): void {
    if (this.skipping) {
      this.skipping = false;
      return;
    }
    let line = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
    this.parts = [];
    this.size = 0;
    if (line.length > 0 && line[line.length - 1] === CARRIAGE_RETURN) {
      line = line.subarray(0, line.length - 1);
    }
    const text = line.toString("utf8");
    if (text.trim() === "") return;
    try {
      out.push({ ok: true, value: JSON.parse(text) });
    } catch (cause) {
      out.push({
        ok: false,
        error: new FramingError(
          "invalid_json",
          `Skipped a line that is not JSON: ${JSON.stringify(text.slice(0, EXCERPT_CHARS))}`,
          text.slice(0, EXCERPT_CHARS),
          cause,
        ),
      });
    }
  }
}

function excerptOf(bytes: Buffer): string {
  return bytes.toString("utf8").slice(0, EXCERPT_CHARS);
}

/** Encodes one message as a line of JSON. */
export function encodeLine(message: unknown): string {
  return `${JSON.stringify(message)}\n`;
}
