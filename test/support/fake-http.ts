// What the fake chat servers (Slack, Discord, Telegram) share: a loopback HTTP server, request
// bodies, JSON answers, and a queue of scripted failures for the next calls of a method.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Listens on a free loopback port; resolves with the port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** Drops every open connection and closes the server. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** The whole request body, as text. */
export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Answers with `body` as JSON (`headers` may replace the content type); no-op once answered. */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.writableEnded) return;
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

/** A scripted failure: how to answer the next call of `method` instead of its result. */
export interface ScriptedFailure {
  method: string;
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Failures queued in order; each answers the first later call of its method, once. */
export class FailureQueue<F extends ScriptedFailure = ScriptedFailure> {
  private readonly queued: F[] = [];

  add(failure: F, count = 1): void {
    for (let i = 0; i < count; i++) this.queued.push(failure);
  }

  /** The next failure queued for `method`, taken off the queue; undefined when there is none. */
  take(method: string): F | undefined {
    const index = this.queued.findIndex((failure) => failure.method === method);
    return index >= 0 ? this.queued.splice(index, 1)[0] : undefined;
  }

  /** The next failure for `method` as an answer: its status, headers, and body or `fallback`. */
  answer(
    method: string,
    fallback: unknown,
  ): { status: number; headers?: Record<string, string>; body: unknown } | undefined {
    const failure = this.take(method);
    if (!failure) return undefined;
    return {
      status: failure.status,
      ...(failure.headers ? { headers: failure.headers } : {}),
      body: failure.body ?? fallback,
    };
  }
}
