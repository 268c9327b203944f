// The runtime's API, one request at a time: host names and origins checked, the caller
// authenticated (a token, or the inbox's sign-in cookie), then each route with the scope it needs
// — interactions as the caller may see them, the event stream, people (admin), sign-in.

import type { IncomingMessage, ServerResponse } from "node:http";
import { CodexHarnessError } from "../errors.js";
import { carrierFromHeaders } from "../telemetry/carrier.js";
import { type Access, type Authenticated, requireScope } from "./access.js";
import type { InteractionBackend } from "./backends.js";
import { TooManyBadTokens } from "./bad-tokens.js";
import type { FleetConsoleApi } from "./console/console-api.js";
import { serveConsolePage } from "./console/console-files.js";
import { ChannelsError } from "./errors.js";
import type { HostNames } from "./host-names.js";
import { answer, recordBadToken, refuseForgedRequest } from "./http-answer.js";
import { readJson, sendFailure, sendJson } from "./http-body.js";
import { isPeopleRoute, servePeople } from "./http-people.js";
import { decodePart, filterOf } from "./http-query.js";
import { serveInbox } from "./inbox.js";
import type { Interaction } from "./interaction-types.js";
import { handleAuth, type SignInContext } from "./oidc-routes.js";
import type { Identity } from "./people-types.js";
import { maySee, viewFor } from "./routing.js";
import type { ChannelsRuntime } from "./runtime.js";
import { cancelBody, createBody, parseBody, routingCheckBody } from "./schemas.js";
import { streamChanges } from "./sse.js";

/** A backend's route handler (a chat platform's callbacks). */
export type BackendRoute = NonNullable<InteractionBackend["route"]>["handle"];

/** Longest a `GET /v1/interactions/:id?waitMs=` may wait. */
const MAX_WAIT_MS = 60_000;

/** What the API allows of requests and event streams. */
export interface ApiLimits {
  maxBodyBytes: number;
  inbox: boolean;
  sseBufferBytes: number;
  sseHeartbeatMs?: number;
}

/** Answers the runtime's HTTP requests. */
export class Api {
  constructor(
    private readonly runtime: ChannelsRuntime,
    private readonly access: Access,
    private readonly signIn: SignInContext | undefined,
    private readonly hosts: HostNames,
    private readonly streams: Set<ServerResponse>,
    private readonly routes: ReadonlyMap<string, BackendRoute>,
    private readonly limits: ApiLimits,
    /** The fleet's operator console (`/fleet`, `/v1/fleet/…`), when the runtime has the fleet's store. */
    private readonly fleetConsole?: FleetConsoleApi,
  ) {}

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    try {
      const url = new URL(request.url ?? "/", "http://runtime");
      // A backend's route (a chat platform's callbacks) checks its own signatures.
      const route = request.method === "POST" ? this.routes.get(url.pathname) : undefined;
      if (route) return await route(request, response);
      const health = url.pathname === "/healthz" && request.method === "GET";
      // Health probes may use any name; everything else only the runtime's own.
      if (!health) this.hosts.check(request.headers.host);
      if (this.limits.inbox && request.method === "GET" && serveInbox(request, response)) return;
      if (this.fleetConsole && request.method === "GET" && serveConsolePage(request, response)) {
        return;
      }
      const origin = request.headers.origin;
      if (origin !== undefined && !this.hosts.ownsOrigin(origin)) {
        throw new ChannelsError(
          "forbidden_origin",
          403,
          `Requests from origin ${origin} are refused; only the runtime's own pages may call it.`,
        );
      }
      if (health) return sendJson(response, 200, { ok: true });
      if (url.pathname.startsWith("/auth/")) {
        return await handleAuth(request, response, url, this.signIn);
      }
      if (!url.pathname.startsWith("/v1/")) {
        throw new ChannelsError(
          "not_found",
          404,
          `No such path ${url.pathname}; the API is under /v1/.`,
        );
      }
      const authenticated = await this.access
        .authenticate(request)
        .catch(async (error: unknown) => {
          await recordBadToken(this.runtime, request, url, error, this.limits.maxBodyBytes);
          throw error;
        });
      await this.route(request, response, url, authenticated);
    } catch (error) {
      sendError(response, error);
    }
  }

  /**
   * Each route needs a scope of the caller's ({@link requireScope}: 403 naming it when not); a
   * signed-in browser's changes, an Origin of the runtime's own ({@link refuseForgedRequest}).
   */
  private async route(
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    authenticated: Authenticated,
  ): Promise<void> {
    const parts = url.pathname.split("/").filter(Boolean).map(decodePart);
    const method = request.method ?? "GET";
    const runtime = this.runtime;
    const { identity } = authenticated;
    // What the signed-in inbox does is the inbox's.
    const surface = authenticated.by === "session" ? "inbox" : "api";
    await refuseForgedRequest(runtime, request, parts, authenticated, (origin) =>
      this.hosts.ownsOrigin(origin),
    );
    const may = (scope: Parameters<typeof requireScope>[1]) =>
      requireScope(identity, scope, authenticated.by);
    if (parts[1] === "me" && parts.length === 2 && method === "GET") {
      const { tokenId: _, ...shown } = identity;
      return sendJson(response, 200, shown);
    }
    if (parts[1] === "fleet") {
      if (!this.fleetConsole) {
        throw new ChannelsError(
          "not_found",
          404,
          "This runtime has no fleet console: start it with `codex-harness serve --fleet-store postgres://…`.",
        );
      }
      return this.fleetConsole.handle({
        request,
        response,
        url,
        parts,
        authenticated,
        stillAllowed: (scope) => this.access.stillAllowed(request, scope),
        streams: this.streams,
      });
    }
    if (isPeopleRoute(parts))
      return servePeople(runtime, request, response, parts, identity, this.limits.maxBodyBytes);
    if (parts[1] === "events" && parts.length === 2 && method === "GET") {
      may("read");
      return this.events(request, response, url, identity);
    }
    if (parts[1] === "routing" && parts[2] === "check" && parts.length === 3 && method === "POST") {
      may("create");
      const body = parseBody(routingCheckBody, await readJson(request, this.limits.maxBodyBytes));
      await runtime.checkRouting(body.routing);
      return sendJson(response, 200, { ok: true });
    }
    if (parts[1] !== "interactions") {
      throw new ChannelsError("not_found", 404, `No such path ${url.pathname}.`);
    }
    const id = parts[2];
    if (id === undefined) {
      if (method === "POST") {
        may("create");
        const body = parseBody(createBody, await readJson(request, this.limits.maxBodyBytes));
        const created = await runtime.create(
          body,
          identity,
          surface,
          carrierFromHeaders(request.headers),
        );
        return sendJson(response, 201, viewFor(created, identity) ?? created);
      }
      if (method === "GET") {
        may("read");
        const page = await runtime.page(filterOf(url));
        const interactions = page.interactions.flatMap((one) => viewFor(one, identity) ?? []);
        return sendJson(response, 200, { ...page, interactions });
      }
    } else if (parts.length === 3 && method === "GET") {
      may("read");
      await this.visible(id, identity);
      const waitMs = Math.min(Number(url.searchParams.get("waitMs") ?? 0) || 0, MAX_WAIT_MS);
      const aborted = new AbortController();
      response.on("close", () => aborted.abort());
      return this.send(response, await runtime.wait(id, waitMs, aborted.signal), identity);
    } else if (parts.length === 4 && method === "POST") {
      const action = parts[3];
      if (action === "respond") {
        const answered = await answer(runtime, request, id, authenticated, this.limits);
        return this.send(response, answered, identity);
      }
      if (action === "cancel") {
        may("operate");
        await this.visible(id, identity);
        const body = parseBody(cancelBody, await readJson(request, this.limits.maxBodyBytes, true));
        const ended = await runtime.cancel(id, body.reason, body.message, identity, surface);
        return this.send(response, ended, identity);
      }
      if (action === "delivered") {
        // Said by whoever was shown it (the inbox does, for each waiting request it shows).
        may("read");
        await this.visible(id, identity);
        await runtime.markDelivered(id);
        return this.send(response, await runtime.get(id), identity);
      }
    }
    throw new ChannelsError("not_found", 404, `No route ${method} ${url.pathname}.`);
  }

  /**
   * Throws `not_found` (404) when there is no interaction `id` or its routing hides it from
   * `identity` (the same answer: whether a hidden one exists is not told).
   */
  private async visible(id: string, identity: Identity): Promise<Interaction> {
    const interaction = await this.runtime.get(id);
    if (maySee(interaction, identity)) return interaction;
    throw new ChannelsError("not_found", 404, `There is no interaction ${JSON.stringify(id)}.`);
  }

  /** Sends `interaction` as `identity` sees it ({@link viewFor}). */
  private send(response: ServerResponse, interaction: Interaction, identity: Identity): void {
    sendJson(response, 200, viewFor(interaction, identity) ?? interaction);
  }

  /** SSE: see {@link streamChanges}; each change as `identity` sees it, hidden ones left out. */
  private events(
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    identity: Identity,
  ): Promise<void> {
    this.streams.add(response);
    return streamChanges(this.runtime, request, response, url, {
      view: (interaction) => viewFor(interaction, identity),
      maxBufferedBytes: this.limits.sseBufferBytes,
      ...(this.limits.sseHeartbeatMs ? { heartbeatMs: this.limits.sseHeartbeatMs } : {}),
      stillAllowed: () => this.access.stillAllowed(request, "read"),
      onClose: () => this.streams.delete(response),
    });
  }
}

function sendError(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const status =
    error instanceof ChannelsError
      ? error.status
      : error instanceof CodexHarnessError && error.code === "invalid_request"
        ? 400
        : 500;
  const code = error instanceof CodexHarnessError ? error.code : "internal_error";
  const message = error instanceof Error ? error.message : String(error);
  if (status === 401) response.setHeader("www-authenticate", 'Bearer realm="codex-harness"');
  if (error instanceof TooManyBadTokens) {
    response.setHeader("retry-after", String(Math.ceil(error.retryAfterMs / 1000)));
  }
  sendFailure(response, status, code, message);
}
