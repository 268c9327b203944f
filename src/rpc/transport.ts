// The message transport under the JSON-RPC peer: three methods and three callbacks, plus an in-memory pair.
import type { RpcMessage } from "../protocol/messages.js";
import { RpcLocalError } from "./errors.js";

/**
 * Carries whole JSON-RPC messages. `send` resolves once the message is handed to the OS (or the
 * other side), honouring backpressure. Callbacks are set by the peer before `start()`.
 */
export interface Transport {
  start(): Promise<void>;
  send(message: RpcMessage): Promise<void>;
  close(): Promise<void>;
  /** A message arrived. */
  onmessage?: (message: unknown) => void;
  /** Something went wrong that does not end the connection (e.g. an unreadable line). */
  onerror?: (error: Error) => void;
  /** The connection ended; `reason` says why when it was not a normal close. */
  onclose?: (reason?: Error) => void;
}

/** A transport connected to another in the same process: for tests of the peer without processes. */
export class InMemoryTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason?: Error) => void;
  private other: InMemoryTransport | undefined;
  private closed = false;
  private readonly queue: unknown[] = [];
  private started = false;

  /** Two transports wired to each other. */
  static createPair(): [InMemoryTransport, InMemoryTransport] {
    const a = new InMemoryTransport();
    const b = new InMemoryTransport();
    a.other = b;
    b.other = a;
    return [a, b];
  }

  async start(): Promise<void> {
    this.started = true;
    for (const message of this.queue.splice(0)) this.onmessage?.(message);
  }

  async send(message: RpcMessage): Promise<void> {
    if (this.closed || !this.other || this.other.closed) {
      throw new RpcLocalError("closed", "The in-memory transport is closed.");
    }
    // Deliver a copy on a later tick, as a real transport would.
    const copy: unknown = JSON.parse(JSON.stringify(message));
    const other = this.other;
    queueMicrotask(() => other.receive(copy));
  }

  async close(): Promise<void> {
    this.end();
    this.other?.end();
  }

  private receive(message: unknown): void {
    if (this.closed) return;
    if (this.started) this.onmessage?.(message);
    else this.queue.push(message);
  }

  private end(reason?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.(reason);
  }
}
