// The fleet console's API, `/v1/fleet/…` (JSON, and two event streams): `read` views the summary,
// workers, runs, sessions and a run's events; `operate` cancels and retries runs. A session's pending
// approvals are the runtime's interactions on its codex thread, as the caller may see them; they are
// answered through `POST /v1/interactions/:id/respond`, like the inbox's.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Authenticated } from "../access.js";
import { requireScope } from "../access.js";
import { ChannelsError } from "../errors.js";
import { sendJson } from "../http-body.js";
import type { Scope } from "../people-types.js";
import { viewFor } from "../routing.js";
import type { ChannelsRuntime } from "../runtime.js";
import {
  CONSOLE_RUN_STATUSES,
  type ConsoleRunQuery,
  type ConsoleRunStatus,
  type FleetConsoleSource,
} from "./console-source.js";
import { ConsoleSseClient } from "./console-sse.js";
import { FleetConsoleStream, streamRunEvents } from "./console-stream.js";

/** Runs per page unless `limit` says otherwise. */
const DEFAULT_PAGE = 50;
/** Pending approvals a session's view shows. */
const SESSION_APPROVALS = 100;

/** What bounds the console's event streams (the runtime's SSE settings). */
export interface ConsoleStreamLimits {
  maxBufferedBytes: number;
  heartbeatMs: number;
}

/** A request to the console's API, authenticated and checked against forgery by the runtime's API. */
export interface ConsoleRequest {
  request: IncomingMessage;
  response: ServerResponse;
  url: URL;
  /** The path's parts, decoded: `["v1", "fleet", …]`. */
  parts: string[];
  authenticated: Authenticated;
  /** Whether the request's credential still has `scope` (an open stream's re-check). */
  stillAllowed: (scope: Scope) => Promise<boolean>;
  /** Told when an event stream opens and closes (the server ends open ones when it closes). */
  streams: Set<ServerResponse>;
}

/** Answers `/v1/fleet/…`: one per runtime server, over the fleet's {@link FleetConsoleSource}. */
export class FleetConsoleApi {
  private readonly stream: FleetConsoleStream;

  constructor(
    private readonly source: FleetConsoleSource,
    private readonly runtime: ChannelsRuntime,
    private readonly limits: ConsoleStreamLimits,
  ) {
    this.stream = new FleetConsoleStream(source);
  }

  /** Ends the live streams (the server is closing). */
  close(): void {
    this.stream.close();
  }

  async handle(call: ConsoleRequest): Promise<void> {
    const { request, response, url, authenticated } = call;
    const [, , what, id, action, ...more] = call.parts;
    const method = request.method ?? "GET";
    const may = (scope: Scope) => requireScope(authenticated.identity, scope, authenticated.by);
    const source = this.source;
    if (method === "GET" && id === undefined) {
      may("read");
      if (what === "summary") return sendJson(response, 200, await source.summary());
      if (what === "workers") return sendJson(response, 200, { workers: await source.workers() });
      if (what === "runs") return sendJson(response, 200, await source.runs(runQuery(url)));
      if (what === "sessions") {
        const cursor = url.searchParams.get("cursor");
        const page = await source.sessions({ limit: limitOf(url), ...(cursor ? { cursor } : {}) });
        return sendJson(response, 200, page);
      }
      if (what === "stream") return this.liveStream(call);
    }
    if (what === "runs" && id !== undefined && more.length === 0) {
      if (method === "GET" && action === undefined) {
        may("read");
        return sendJson(response, 200, (await source.run(id)) ?? notFound("run", id));
      }
      if (method === "GET" && action === "events") {
        may("read");
        return this.runEvents(call, id);
      }
      if (method === "POST" && action === "cancel") {
        may("operate");
        return sendJson(response, 200, await source.cancel(id));
      }
      if (method === "POST" && action === "retry") {
        may("operate");
        return sendJson(response, 201, await source.retry(id));
      }
    }
    if (what === "sessions" && id !== undefined && action === undefined && method === "GET") {
      may("read");
      const session = (await source.session(id)) ?? notFound("session", id);
      const identity = authenticated.identity;
      const pages = await Promise.all(
        session.threadIds.map((threadId) =>
          this.runtime.page({
            threadId,
            status: ["pending", "delivered"],
            limit: SESSION_APPROVALS,
          }),
        ),
      );
      const approvals = pages
        .flatMap((page) => page.interactions)
        .flatMap((one) => viewFor(one, identity) ?? [])
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      return sendJson(response, 200, { ...session, approvals });
    }
    throw new ChannelsError("not_found", 404, `No route ${method} ${url.pathname}.`);
  }

  /** `GET /v1/fleet/stream`: see {@link FleetConsoleStream}. */
  private async liveStream(call: ConsoleRequest): Promise<void> {
    const client = this.open(call, () => this.stream.remove(client));
    await this.stream.add(client);
  }

  /** `GET /v1/fleet/runs/:id/events`: 404 for an unknown run, then its events from `since`. */
  private async runEvents(call: ConsoleRequest, runId: string): Promise<void> {
    if (!(await this.source.run(runId))) notFound("run", runId);
    const given = call.request.headers["last-event-id"] ?? call.url.searchParams.get("since");
    const since = Number(given ?? 0);
    const stop = new AbortController();
    const client = this.open(call, () => stop.abort());
    await streamRunEvents(
      this.source,
      runId,
      Number.isSafeInteger(since) && since > 0 ? since : 0,
      client,
      stop.signal,
    );
  }

  private open(call: ConsoleRequest, onClose: () => void): ConsoleSseClient {
    call.streams.add(call.response);
    return new ConsoleSseClient(
      call.response,
      { ...this.limits, stillAllowed: () => call.stillAllowed("read") },
      () => {
        call.streams.delete(call.response);
        onClose();
      },
    );
  }
}

function notFound(kind: "run" | "session", id: string): never {
  throw new ChannelsError(
    `${kind}_not_found`,
    404,
    `No fleet ${kind} ${JSON.stringify(id)} in the store.`,
  );
}

/** `limit` of a list: 1–200, default 50; anything else is `invalid_request`. */
function limitOf(url: URL): number {
  const given = url.searchParams.get("limit");
  if (given === null) return DEFAULT_PAGE;
  const limit = Number(given);
  if (Number.isInteger(limit) && limit >= 1 && limit <= 200) return limit;
  throw new ChannelsError(
    "invalid_request",
    400,
    `limit must be a whole number from 1 to 200, got ${JSON.stringify(given)}.`,
  );
}

/** The query of `GET /v1/fleet/runs?status=&session=&limit=&cursor=`. */
function runQuery(url: URL): ConsoleRunQuery {
  const status = url.searchParams.get("status") || undefined;
  if (status !== undefined && !CONSOLE_RUN_STATUSES.includes(status as ConsoleRunStatus)) {
    throw new ChannelsError(
      "invalid_request",
      400,
      `Unknown status ${JSON.stringify(status)}; use one of ${CONSOLE_RUN_STATUSES.join(", ")}.`,
    );
  }
  const session = url.searchParams.get("session");
  const cursor = url.searchParams.get("cursor");
  return {
    limit: limitOf(url),
    ...(status ? { status: status as ConsoleRunStatus } : {}),
    ...(session ? { session } : {}),
    ...(cursor ? { cursor } : {}),
  };
}
