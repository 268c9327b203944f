// A transport to a codex app-server listening on WebSocket (`--listen ws://…` or `unix://…`):
// one JSON-RPC message per text frame, over the `ws` library. Loaded only when `remote` is used.
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import WebSocket from "ws";
import { CodexHarnessError } from "../errors.js";
import { DeltaLineReader } from "../protocol/delta-line.js";
import { decodeLine, FramingError } from "../protocol/framing.js";
import type { RpcMessage } from "../protocol/messages.js";
import { RemoteDisconnectedError, RpcLocalError } from "../rpc/errors.js";
import type { Transport } from "../rpc/transport.js";
import type { ResolvedRemote } from "./remote.js";

/** How long a close handshake may take before the socket is dropped. */
const CLOSE_WITHIN_MS = 2_000;

/**
 * Speaks JSON-RPC over one WebSocket connection. `start()` connects (refusals are
 * {@link CodexHarnessError}s saying what to fix); a connection that drops, or stops answering
 * pings, closes with a {@link RemoteDisconnectedError}. Tokens appear in no message.
 */
export class WebSocketTransport implements Transport {
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: (reason?: Error) => void;
  private socket: WebSocket | undefined;
  private tcp: Socket | undefined;
  private closing = false;
  private notified = false;
  /** Reads the delta notifications of the text frames without JSON.parse. */
  private readonly deltas = new DeltaLineReader();
  private heartbeat: NodeJS.Timeout | undefined;
  private awaitingPong = false;
  private keepingAlive = true;
  private markEnded: () => void = () => undefined;
  /** Resolves when the connection has ended (or failed to open). */
  readonly ended: Promise<void> = new Promise((resolve) => {
    this.markEnded = resolve;
  });

  constructor(
    private readonly remote: ResolvedRemote,
    private readonly options: { maxMessageBytes?: number | undefined } = {},
  ) {}

  async start(): Promise<void> {
    const { remote } = this;
    const authorization = await remote.authorization?.();
    const socket = new WebSocket(remote.address, {
      headers: authorization ? { Authorization: authorization } : {},
      ...(remote.ca ? { ca: remote.ca } : {}),
      handshakeTimeout: remote.connectTimeoutMs,
      maxPayload: this.options.maxMessageBytes ?? 64 * 1024 * 1024,
      perMessageDeflate: false,
    });
    this.socket = socket;
    socket.on("upgrade", (response: IncomingMessage) => {
      this.tcp = response.socket as Socket;
      this.applyKeepAlive();
    });
    await new Promise<void>((resolve, reject) => {
      const fail = (error: Error) => {
        socket.removeAllListeners("open");
        socket.terminate();
        this.markEnded();
        reject(error);
      };
      socket.once("open", () => {
        socket.off("error", onError);
        socket.off("unexpected-response", onRefused);
        resolve();
      });
      const onError = (error: Error) => fail(this.unreachable(error));
      const onRefused = (_request: unknown, response: IncomingMessage) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          if (body.length < 500) body += chunk;
        });
        response.on("end", () => fail(this.refused(response.statusCode ?? 0, body.trim())));
        response.on("error", () => fail(this.refused(response.statusCode ?? 0, body.trim())));
      };
      socket.on("error", onError);
      socket.on("unexpected-response", onRefused);
    });
    socket.on("message", (data, isBinary) => this.receive(data, isBinary));
    socket.on("error", (error) => this.onerror?.(error));
    socket.on("close", (code, reason) => {
      clearInterval(this.heartbeat);
      this.markEnded();
      const why =
        code === 1006
          ? "the connection dropped"
          : `closed with code ${code}${reason.length > 0 ? ` (${reason.toString("utf8").slice(0, 200)})` : ""}`;
      this.notifyClose(
        this.closing ? undefined : new RemoteDisconnectedError(this.remote.endpoint, why, code),
      );
    });
    socket.on("pong", () => {
      this.awaitingPong = false;
    });
    // No pong by the next ping: the connection is taken as lost.
    this.heartbeat = setInterval(() => this.ping(), remote.pingEveryMs);
    this.heartbeat.unref();
  }

  async send(message: RpcMessage): Promise<void> {
    const socket = this.socket;
    if (this.closing || !socket || socket.readyState !== WebSocket.OPEN) {
      throw new RpcLocalError("closed", `The connection to ${this.remote.endpoint} is closed.`);
    }
    await new Promise<void>((resolve, reject) => {
      socket.send(JSON.stringify(message), (error) => {
        if (!error) resolve();
        else {
          reject(
            new RpcLocalError(
              "write_failed",
              `Cannot write to ${this.remote.endpoint}: ${error.message}`,
              {
                cause: error,
              },
            ),
          );
        }
      });
    });
  }

  /** Closes the connection (a close frame, then the socket after 2 s). */
  async close(): Promise<void> {
    if (!this.closing) {
      this.closing = true;
      this.notifyClose(undefined);
    }
    clearInterval(this.heartbeat);
    const socket = this.socket;
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    socket.close(1000, "client closed");
    const timer = setTimeout(() => socket.terminate(), CLOSE_WITHIN_MS);
    await this.ended;
    clearTimeout(timer);
  }

  /** Ends the connection at once, as a crash would (codex there stopped answering). */
  kill(): void {
    this.socket?.terminate();
  }

  /** Whether an open connection keeps the program running (see `AppServerClient.hold`). */
  keepAlive(on: boolean): void {
    this.keepingAlive = on;
    this.applyKeepAlive();
  }

  private applyKeepAlive(): void {
    if (this.keepingAlive) this.tcp?.ref();
    else this.tcp?.unref();
  }

  private ping(): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    if (this.awaitingPong) {
      // No pong within a whole period: the network or the other side is gone.
      socket.terminate();
      return;
    }
    this.awaitingPong = true;
    socket.ping();
  }

  private receive(data: WebSocket.RawData, isBinary: boolean): void {
    if (isBinary) {
      this.onerror?.(
        new FramingError(
          "invalid_json",
          "Skipped a binary WebSocket frame (codex sends text).",
          "",
        ),
      );
      return;
    }
    const text = Array.isArray(data) ? Buffer.concat(data).toString("utf8") : data.toString("utf8");
    decodeLine(
      text,
      (value) => this.onmessage?.(value),
      (error) => this.onerror?.(error),
      this.deltas,
    );
  }

  private notifyClose(reason: Error | undefined): void {
    if (this.notified) return;
    this.notified = true;
    this.onclose?.(reason);
  }

  private refused(status: number, body: string): CodexHarnessError {
    const said = body ? ` (${body})` : "";
    if (status === 401) {
      return new CodexHarnessError(
        "remote_unauthorized",
        `codex app-server at ${this.remote.endpoint} refused the connection: HTTP 401${said}. Give the token it was started with (token / tokenFile / $CODEX_HARNESS_REMOTE_TOKEN, or jwt for --ws-auth signed-bearer-token).`,
      );
    }
    if (status === 403) {
      return new CodexHarnessError(
        "remote_forbidden",
        `codex app-server at ${this.remote.endpoint} refused the connection: HTTP 403${said}. It refuses browser origins and unknown clients; connect from a program, not a page.`,
      );
    }
    return new CodexHarnessError(
      "remote_refused",
      `${this.remote.endpoint} answered HTTP ${status}${said} instead of a WebSocket: is it a codex app-server started with --listen ws://…?`,
    );
  }

  private unreachable(error: Error): CodexHarnessError {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code ?? error.message;
    const hint =
      code === "ECONNREFUSED" || code === "ENOENT"
        ? "Is codex app-server running there (codex-harness host, or codex app-server --listen …)?"
        : "Check the address and the network.";
    return new CodexHarnessError(
      "remote_unreachable",
      `Cannot connect to codex app-server at ${this.remote.endpoint} (${reason}). ${hint}`,
      { cause: error },
    );
  }
}
