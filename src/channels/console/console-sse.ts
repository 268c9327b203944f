// One server-sent event stream of the fleet console, by the rules of the runtime's own (sse.ts): a
// client that leaves more than its bound unread is cut off (it reconnects and reads again), and a
// ping at each heartbeat asks whether its token may still read; a revoked one ends the stream.
import type { ServerResponse } from "node:http";
import { drained } from "../sse.js";

/** What bounds and checks an open stream. */
export interface ConsoleSseOptions {
  /** Bytes the client may leave unread before it is cut off. */
  maxBufferedBytes: number;
  /** How often it is pinged and its token checked again (ms). */
  heartbeatMs: number;
  /** Whether the client may still read (asked at each ping). */
  stillAllowed: () => Promise<boolean>;
}

/** An open event stream to one client. */
export class ConsoleSseClient {
  private readonly heartbeat: NodeJS.Timeout;
  private readonly bound: number;

  /** Sends the stream's headers and first comment; `onClose` is told once when it ends. */
  constructor(
    private readonly response: ServerResponse,
    options: ConsoleSseOptions,
    onClose: () => void,
  ) {
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
    });
    response.write(": codex-harness fleet console\n\n");
    this.heartbeat = setInterval(() => {
      if (!this.withinBound(options.maxBufferedBytes)) return;
      response.write(": ping\n\n");
      options.stillAllowed().then(
        (allowed) => {
          if (!allowed) response.end();
        },
        () => undefined, // the store is unreachable: the next ping asks again
      );
    }, options.heartbeatMs);
    this.heartbeat.unref();
    this.bound = options.maxBufferedBytes;
    response.on("close", () => {
      clearInterval(this.heartbeat);
      onClose();
    });
  }

  /** Whether the stream is gone (closed by the client, ended, or cut off). */
  get closed(): boolean {
    return this.response.destroyed || this.response.writableEnded;
  }

  /**
   * Sends one event (`id` for a stream that can be resumed with `Last-Event-ID`); cuts the client
   * off instead when it leaves more than its bound unread. False when the stream is gone.
   */
  send(event: string, data: unknown, id?: number): boolean {
    if (this.closed || !this.withinBound(this.bound)) return false;
    const head = id === undefined ? "" : `id: ${id}\n`;
    this.response.write(`${head}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    return true;
  }

  /** Whether more than the client's bound waits unsent (a backlog it is still reading). */
  get backlogged(): boolean {
    return this.response.writableLength > this.bound;
  }

  /**
   * Waits until the client has read what waits (true), or cuts it off when it does not within
   * `timeoutMs` or goes (false): a backlog is sent at the pace the client reads.
   */
  async caughtUp(timeoutMs: number): Promise<boolean> {
    if (!this.backlogged) return !this.closed;
    if (await drained(this.response, timeoutMs)) return true;
    this.response.destroy();
    return false;
  }

  /** Ends the stream. */
  end(): void {
    if (!this.closed) this.response.end();
  }

  private withinBound(bytes: number): boolean {
    if (this.response.writableLength <= bytes) return true;
    this.response.destroy(); // not reading: cut off (it reconnects)
    return false;
  }
}
