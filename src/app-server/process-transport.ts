// A transport over a codex child's stdio that reports the process's exit (code, signal, stderr) as its close reason.
import type { RpcMessage } from "../protocol/messages.js";
import { RpcLocalError } from "../rpc/errors.js";
import { StreamTransport } from "../rpc/stream-transport.js";
import type { Transport } from "../rpc/transport.js";
import type { CodexProcess } from "./codex-process.js";
import { AppServerExitedError } from "./process-errors.js";

/** How long to let stdout drain after the process exited before the connection is declared closed. */
const DRAIN_AFTER_EXIT_MS = 50;

/**
 * Speaks NDJSON over the child's stdin/stdout. When the child exits on its own, the close reason is
 * an {@link AppServerExitedError}; when we close, the child is ended in order.
 */
export class ProcessTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason?: Error) => void;
  private readonly stdio: StreamTransport;
  private closing = false;
  private stdoutEnded = false;
  private notified = false;

  constructor(
    private readonly process: CodexProcess,
    options: { maxLineBytes?: number | undefined; closeGraceMs?: number | undefined } = {},
  ) {
    this.closeGraceMs = options.closeGraceMs ?? 2_000;
    this.stdio = new StreamTransport(
      process.child.stdout,
      process.child.stdin,
      options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes },
    );
  }

  private readonly closeGraceMs: number;

  async start(): Promise<void> {
    this.stdio.onmessage = (message) => this.onmessage?.(message);
    this.stdio.onerror = (error) => this.onerror?.(error);
    this.stdio.onclose = () => {
      this.stdoutEnded = true;
    };
    await this.stdio.start();
    void this.process.exited.then(async (exit) => {
      if (!this.stdoutEnded) await delay(DRAIN_AFTER_EXIT_MS);
      this.notifyClose(
        this.closing ? undefined : new AppServerExitedError(exit, this.process.stderr.snapshot()),
      );
    });
  }

  async send(message: RpcMessage): Promise<void> {
    if (this.closing || this.process.exitInfo) {
      throw new RpcLocalError("closed", "codex app-server is not running.");
    }
    await this.stdio.send(message);
  }

  /** Ends the child: stdin EOF, then SIGTERM, then SIGKILL, each after `closeGraceMs`. */
  async close(): Promise<void> {
    if (!this.closing) {
      this.closing = true;
      this.notifyClose(undefined);
    }
    await this.process.terminate(this.closeGraceMs);
  }

  private notifyClose(reason: Error | undefined): void {
    if (this.notified) return;
    this.notified = true;
    this.onclose?.(reason);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
