// Protocol capture: a transport decorator writing every message, both ways, as redacted JSONL.
import {
  closeSync,
  createWriteStream,
  fchmodSync,
  fstatSync,
  openSync,
  type WriteStream,
} from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { CodexHarnessError } from "../errors.js";
import type { RpcMessage } from "../protocol/messages.js";
import type { Transport } from "../rpc/transport.js";

/**
 * One line of a capture file: a message (`dir` `"out"`: we sent it, `"in"`: codex did), or an
 * input line the transport could not read (`error`). `ts` is an ISO 8601 time.
 */
export type CaptureRecord =
  | { ts: string; dir: "out" | "in"; message: unknown }
  | { ts: string; dir: "in"; error: string };

/** Receives capture records (already redacted). `close` is called when the connection closes. */
export interface CaptureSink {
  write(record: CaptureRecord): void;
  close?(): void | Promise<void>;
}

/** What replaces a redacted value. */
export const REDACTED = "[REDACTED]";

/**
 * How deeply a captured message may nest (the message itself is level 1; each array or object
 * inside adds one). Redaction walks no deeper, so a hostile line cannot exhaust the stack.
 */
export const MAX_CAPTURE_DEPTH = 256;

/** What replaces an array or object nested deeper than {@link MAX_CAPTURE_DEPTH}. */
export const TOO_DEEP = `[NOT CAPTURED: nested deeper than ${MAX_CAPTURE_DEPTH} levels]`;

/** Mode of a capture file: it may hold prompts, file contents and unrecognised secrets. */
const CAPTURE_MODE = 0o600;

/** Object keys whose string values (at any depth below them) are never written. */
const SECRET_KEY = /token|api[-_]?key|secret|password|authorization|cookie/i;

/** Credentials recognised inside any string: OpenAI-style keys, bearer tokens, JWTs. */
const SECRET_TEXT: readonly [RegExp, string][] = [
  // A bearer credential has 8+ characters and a digit, so prose ("the bearer of …") stays.
  [/\b(Bearer)\s+(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${REDACTED}`],
  [/\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, REDACTED],
  [/\bsk-[A-Za-z0-9_-]{8,}/g, REDACTED],
];

/** How long closing a capture file may wait for its writes to be flushed. */
const CLOSE_TIMEOUT_MS = 2_000;

/**
 * A redacted deep copy of a JSON value (the input is never changed). Under an object key matching
 * token, api key, secret, password, authorization or cookie, every string becomes `[REDACTED]`;
 * anywhere else, `sk-…` keys, `Bearer …` credentials and JWTs inside strings are replaced. An
 * array or object nested deeper than {@link MAX_CAPTURE_DEPTH} levels is replaced, with all it
 * holds, by the string {@link TOO_DEEP}.
 */
export function redact(value: unknown): unknown {
  return redactValue(value, false, 1);
}

function redactValue(value: unknown, secret: boolean, depth: number): unknown {
  if (typeof value === "string") return secret ? REDACTED : redactText(value);
  if (typeof value !== "object" || value === null) return value;
  if (depth > MAX_CAPTURE_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((entry) => redactValue(entry, secret, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    Object.defineProperty(copy, key, {
      value: redactValue(entry, secret || SECRET_KEY.test(key), depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

function redactText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_TEXT) out = out.replace(pattern, replacement);
  return out;
}

/** A sink appending JSONL to a file (created with mode 0600). Open it with {@link openCaptureFile}. */
export class FileCaptureSink implements CaptureSink {
  /** Called once if writing fails; later records are dropped. */
  onerror?: (error: Error) => void;
  private failed: Error | undefined;
  private closing: Promise<void> | undefined;

  private constructor(
    /** The capture file. */
    readonly path: string,
    private readonly stream: WriteStream,
  ) {
    stream.on("error", (cause: Error) => {
      if (this.failed) return;
      this.failed = new CodexHarnessError(
        "capture_write_failed",
        `Cannot write the capture file ${JSON.stringify(path)}: ${cause.message}. Later messages are not captured; check the disk and the file.`,
        { cause },
      );
      this.onerror?.(this.failed);
    });
  }

  /**
   * Opens (or creates) `file` for appending; a regular file is made mode 0600 even when it
   * existed with another mode. Throws a `capture_unavailable` error.
   */
  static open(file: string): FileCaptureSink {
    const resolved = path.resolve(file);
    let fd: number | undefined;
    try {
      fd = openSync(resolved, "a", CAPTURE_MODE);
      const info = fstatSync(fd);
      if (info.isFile() && (info.mode & 0o777) !== CAPTURE_MODE) fchmodSync(fd, CAPTURE_MODE);
    } catch (cause) {
      if (fd !== undefined) closeSync(fd);
      throw new CodexHarnessError(
        "capture_unavailable",
        `Cannot open the capture file ${JSON.stringify(resolved)}: ${(cause as Error).message}. Pass a path in a folder you can write to (capture option).`,
        { cause },
      );
    }
    try {
      return new FileCaptureSink(resolved, createWriteStream(resolved, { fd, flags: "a" }));
    } catch (cause) {
      closeSync(fd);
      throw cause;
    }
  }

  write(record: CaptureRecord): void {
    if (this.failed || this.closing) return;
    this.stream.write(`${JSON.stringify(record)}\n`);
  }

  /** Flushes and closes the file; waits at most 2 s. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CLOSE_TIMEOUT_MS);
      timer.unref();
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      if (this.stream.closed || this.stream.destroyed) return done();
      this.stream.once("close", done);
      this.stream.end();
    });
    return this.closing;
  }
}

/** Opens a capture file for appending (a regular file is made mode 0600, existing or not). */
export function openCaptureFile(file: string): FileCaptureSink {
  return FileCaptureSink.open(file);
}

/**
 * Decorates a transport: every message sent (`out`) and received (`in`), and every unreadable
 * input line, becomes one redacted {@link CaptureRecord} before it goes on. The live messages are
 * never changed. Closing the transport closes the sink (a file is flushed, in bounded time).
 */
export class CapturingTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason?: Error) => void;
  /** Where the records go. */
  readonly sink: CaptureSink;
  private closed = false;
  private closing: Promise<void> | undefined;

  /** @param capture a file path (appended to, kept at mode 0600) or a sink */
  constructor(
    private readonly inner: Transport,
    capture: string | CaptureSink,
  ) {
    this.sink = typeof capture === "string" ? openCaptureFile(capture) : capture;
    if (this.sink instanceof FileCaptureSink) {
      this.sink.onerror = (error) => this.onerror?.(error);
    }
  }

  async start(): Promise<void> {
    this.inner.onmessage = (message) => {
      this.capture("in", message);
      this.onmessage?.(message);
    };
    this.inner.onerror = (error) => {
      this.record(() => ({ ts: now(), dir: "in", error: error.message }));
      this.onerror?.(error);
    };
    this.inner.onclose = (reason) => this.onclose?.(reason);
    await this.inner.start();
  }

  async send(message: RpcMessage): Promise<void> {
    this.capture("out", message);
    await this.inner.send(message);
  }

  /** Closes the inner transport, then the sink. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.inner.close();
      } finally {
        this.closed = true;
        await this.sink.close?.();
      }
    })();
    return this.closing;
  }

  private capture(dir: "in" | "out", message: unknown): void {
    this.record(() => ({ ts: now(), dir, message: redact(message) }));
  }

  /** Writes the record `make` builds; neither building nor writing it can break the connection. */
  private record(make: () => CaptureRecord): void {
    if (this.closed) return;
    try {
      this.sink.write(make());
    } catch (error) {
      // A failing sink must not break the connection it observes.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

function now(): string {
  return new Date().toISOString();
}

/**
 * Reads a capture file written by the `capture` option. Blank lines are skipped; a line that is
 * not a capture record fails with a `capture_invalid` error naming the file and line.
 */
export async function readCapture(file: string): Promise<CaptureRecord[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (cause) {
    throw new CodexHarnessError(
      "capture_unreadable",
      `Cannot read the capture file ${JSON.stringify(file)}: ${(cause as Error).message}. Pass a file written by the capture option.`,
      { cause },
    );
  }
  return parseCapture(text, file);
}

/** Parses the text of a capture file; `file` names it in errors. */
export function parseCapture(text: string, file = "capture"): CaptureRecord[] {
  const records: CaptureRecord[] = [];
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    const problem = (reason: string) =>
      new CodexHarnessError(
        "capture_invalid",
        `${file}:${index + 1}: ${reason}. Each line must be {"ts": "<ISO time>", "dir": "in" | "out", "message": …} (or "error" instead of "message") as the capture option writes it.`,
      );
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw problem("not JSON");
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw problem("not a JSON object");
    }
    const record = value as Record<string, unknown>;
    if (typeof record.ts !== "string") throw problem('"ts" is missing or not a string');
    if (record.dir !== "in" && record.dir !== "out") throw problem('"dir" must be "in" or "out"');
    if ("message" in record) {
      records.push({ ts: record.ts, dir: record.dir, message: record.message });
    } else if (record.dir === "in" && typeof record.error === "string") {
      records.push({ ts: record.ts, dir: "in", error: record.error });
    } else {
      throw problem('neither "message" nor an "in" "error"');
    }
  }
  return records;
}
