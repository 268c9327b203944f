// A TCP proxy for fault tests: forwards connections to a target, and cuts them on demand (the
// network dropping a connection while both ends live on).
import { connect, createServer, type Server, type Socket } from "node:net";
import { Transform } from "node:stream";
import { createServer as createTlsServer } from "node:tls";

/**
 * Looks at each chunk before it is forwarded, `from` the client or the server, on the `n`th
 * connection (from 1): "forward" it, "hold" it back (never forwarded), or "cut" that connection
 * instead (both sides, the chunk dropped).
 */
export type ProxyWatch = (
  chunk: Buffer,
  from: "client" | "server",
  n: number,
) => "forward" | "hold" | "cut";

export interface TcpProxy {
  /** `ws://127.0.0.1:PORT` (`wss://localhost:PORT` with `tls`), the address for a WebSocket client. */
  url: string;
  /** The loopback port it listens on. */
  port: number;
  /** Destroys every open connection (both sides); new ones are accepted as before. */
  cut(): void;
  /** Stops forwarding on the open connections without closing them (the network goes silent). */
  freeze(): void;
  /** How many connections were made through it so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/**
 * Listens on a free loopback port and forwards each connection to `target` (`host:port`); with
 * `tls`, it ends TLS with that key and certificate first (a TLS proxy in front of codex).
 */
export async function startTcpProxy(
  target: { host: string; port: number },
  options: { tls?: { key: string; cert: string }; watch?: ProxyWatch } = {},
): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let connections = 0;
  const forward = (client: Socket) => {
    connections++;
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on("close", () => open.delete(socket));
      socket.on("error", () => undefined);
    }
    const { watch } = options;
    if (watch) {
      const n = connections;
      const through = (from: "client" | "server") =>
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            const verdict = watch(chunk, from, n);
            if (verdict === "cut") {
              client.destroy();
              upstream.destroy();
            }
            done(null, verdict === "forward" ? chunk : undefined);
          },
        });
      client.pipe(through("client")).pipe(upstream);
      upstream.pipe(through("server")).pipe(client);
    } else {
      client.pipe(upstream);
      upstream.pipe(client);
    }
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  };
  const server: Server = options.tls
    ? createTlsServer(options.tls, forward)
    : createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: options.tls ? `wss://localhost:${port}` : `ws://127.0.0.1:${port}`,
    port,
    cut() {
      for (const socket of open) socket.destroy();
    },
    freeze() {
      for (const socket of open) {
        socket.unpipe();
        socket.pause();
      }
    },
    get connections() {
      return connections;
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
