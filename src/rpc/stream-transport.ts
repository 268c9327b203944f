// A transport over a readable/writable byte stream pair (a child's stdio): NDJSON framing and backpressure.
import { once } from "node:events";
import type { Readable, Writable } from "node:stream";
import { encodeLine, LineDecoder } from "../protocol/framing.js";
import type { RpcMessage } from "../protocol/messages.js";
import { RpcLocalError } from "./errors.js";
import type { Transport } from "./transport.js";

export interface StreamTransportOptions {
  /** Largest accepted line in bytes; longer lines are reported through `onerror` and skipped. */
  maxLineBytes?: number;
}

/** Reads newline-delimited JSON from `input` and writes it to `output`. */
export class StreamTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason?: Error) => void;
  private readonly decoder: LineDecoder;
  private closed = false;
  private writeError: Error | undefined;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    options: StreamTransportOptions = {},
  ) {
    this.decoder = new LineDecoder(
      options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes },
    );
  }

  async start(): Promise<void> {
    this.input.on("data", this.handleData);
    this.input.on("end", this.handleEnd);
    this.input.on("error", this.handleInputError);
    this.output.on("error", this.handleOutputError);
  }

  async send(message: RpcMessage): Promise<void> {
    if (this.closed) throw new RpcLocalError("closed", "The connection is closed.");
    if (this.writeError) {
      throw new RpcLocalError("write_failed", `Cannot write to codex: ${this.writeError.message}`, {
        cause: this.writeError,
      });
    }
    if (!this.output.write(encodeLine(message))) {
      // Wait for the pipe to drain, but not past the connection's end.
      try {
        await Promise.race([once(this.output, "drain"), once(this.output, "close")]);
      } catch (cause) {
        throw new RpcLocalError(
          "write_failed",
          `Cannot write to codex: ${(cause as Error).message}`,
          {
            cause,
          },
        );
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.output.end();
    this.finish();
  }

  private readonly handleData = (chunk: Buffer | string): void => {
    this.decoder.feed(chunk, this.deliverValue, this.deliverError);
  };

  private readonly deliverValue = (message: unknown): void => {
    this.onmessage?.(message);
  };

  private readonly deliverError = (error: Error): void => {
    this.onerror?.(error);
  };

  private readonly handleEnd = (): void => {
    for (const line of this.decoder.flush()) this.deliver(line);
    this.finish();
  };

  private readonly handleInputError = (error: Error): void => {
    this.finish(error);
  };

  private readonly handleOutputError = (error: Error): void => {
    // EPIPE and the like: later sends fail; the process supervisor reports the exit itself.
    this.writeError = error;
    this.onerror?.(error);
  };

  private deliver(line: ReturnType<LineDecoder["flush"]>[number]): void {
    if (line.ok) this.onmessage?.(line.value);
    else this.onerror?.(line.error);
  }

  private finish(reason?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.handleData);
    this.input.off("end", this.handleEnd);
    this.onclose?.(reason);
  }
}
