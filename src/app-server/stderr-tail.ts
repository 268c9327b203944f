// Keeps the last lines codex wrote to stderr, cleaned of colour codes and backtrace noise, for error messages.

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escape sequences is the point.
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
const BACKTRACE_NOISE = /^\s*(Stack backtrace:|\d+: <unknown>|at <unknown>)\s*$/;
const MAX_LINE_CHARS = 1_000;

/** A ring of the last `limit` meaningful stderr lines. */
export class StderrTail {
  private lines: string[] = [];
  private partial = "";

  constructor(private readonly limit = 40) {}

  /** Adds a chunk of stderr output. */
  push(chunk: Buffer | string): void {
    const text = this.partial + chunk.toString();
    const parts = text.split(/\r?\n/);
    this.partial = parts.pop() ?? "";
    if (this.partial.length > MAX_LINE_CHARS) this.partial = this.partial.slice(-MAX_LINE_CHARS);
    for (const line of parts) this.add(line);
  }

  /** The kept lines, oldest first, including an unfinished last line. */
  snapshot(): string[] {
    const last = clean(this.partial);
    return last ? [...this.lines, last] : [...this.lines];
  }

  private add(raw: string): void {
    const line = clean(raw);
    if (!line) return;
    this.lines.push(line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line);
    if (this.lines.length > this.limit) this.lines.shift();
  }
}

function clean(line: string): string {
  const text = line.replace(ANSI, "").trimEnd();
  return BACKTRACE_NOISE.test(text) ? "" : text;
}
