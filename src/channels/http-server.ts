// The runtime's HTTP API (`/v1/…`, `/healthz`), on 127.0.0.1 by default: bearer tokens (the data
// directory's, or a person's with scopes) or the inbox's sign-in cookie (`/auth/…`, with an OpenID
// provider), own-origin only, size-limited validated bodies, SSE for changes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { CodexHarnessError } from "../errors.js";
import { Access, type Authenticated, requireScope } from "./access.js";
import type { AuditOptions } from "./audit-records.js";
import {
  BackendDispatcher,
  type DeliveryFailure,
  type InteractionBackend,
  type RetryPolicy,
} from "./backends.js";
import { type BadTokenLimits, TooManyBadTokens } from "./bad-tokens.js";
import { DEFAULT_CHANNELS_PORT } from "./default-port.js";
import { ChannelsError } from "./errors.js";
import { HostNames } from "./host-names.js";
import { answer, recordBadToken, refuseForgedRequest } from "./http-answer.js";
import { readJson, sendFailure, sendJson } from "./http-body.js";
import { isPeopleRoute, servePeople } from "./http-people.js";
import { decodePart, filterOf } from "./http-query.js";
import { serveInbox } from "./inbox.js";
import type { Interaction } from "./interaction-types.js";
import type { OidcOptions } from "./oidc.js";
import { handleAuth, type SignInContext } from "./oidc-routes.js";
import { discoverSignIn, type SignInParts, signInOver } from "./oidc-setup.js";
import { People } from "./people.js";
import type { Identity } from "./people-types.js";
import { PostgresInteractionStore } from "./postgres-store.js";
import { maySee, viewFor } from "./routing.js";
import { ChannelsRuntime } from "./runtime.js";
import { cancelBody, createBody, parseBody, routingCheckBody } from "./schemas.js";
import { SqliteInteractionStore } from "./sqlite-store.js";
import { DEFAULT_SSE_BUFFER_BYTES, streamChanges } from "./sse.js";
import type { InteractionStore } from "./store.js";
import { loadOrCreateToken } from "./token.js";

type BackendRoute = NonNullable<InteractionBackend["route"]>["handle"];

export { DEFAULT_CHANNELS_PORT };
/** Largest request body (256 KiB). */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;
/** Longest a `GET /v1/interactions/:id?waitMs=` may wait. */
const MAX_WAIT_MS = 60_000;

/** Options of {@link startChannelsServer}. */
export interface ChannelsServerOptions {
  /** Where the token and the embedded store live. */
  dataDir: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Default: the SQLite store `<dataDir>/interactions.db` (or `storeUrl`'s). */
  store?: InteractionStore;
  /** `postgres://…` to share interactions between runtime instances (LISTEN/NOTIFY). */
  storeUrl?: string;
  maxBodyBytes?: number;
  /**
   * The `Host` names the runtime answers to (DNS rebinding protection): by default the loopback
   * names (`localhost`, `127.0.0.1`, `[::1]`); given, these instead. The listening `host` is
   * always one, unless it is a wildcard (0.0.0.0, ::). Other names get 403 `forbidden_host`.
   */
  allowedHosts?: string[];
  /**
   * Bytes an SSE client (`GET /v1/events`) may leave unread before it is cut off (default
   * {@link DEFAULT_SSE_BUFFER_BYTES}, 1 MiB); it may reconnect with `Last-Event-ID`.
   */
  sseBufferBytes?: number;
  /** Serve the web inbox at `/` (default true). */
  inbox?: boolean;
  /** Where to send interactions besides the API and the inbox (e.g. `webhookBackend`). */
  backends?: InteractionBackend[];
  /** Told when a backend gives up on a change. */
  onBackendFailure?: (failure: DeliveryFailure) => void;
  /** How backends are retried (default 6 attempts from 500 ms, doubling, up to 30 s). */
  backendRetry?: RetryPolicy;
  /**
   * How an address sending bad tokens is slowed down (default: after 10, it waits 1 s, then twice
   * as long after each further one, up to 60 s, answered 429 meanwhile).
   */
  badTokens?: BadTokenLimits;
  /**
   * How often an event stream is pinged and its token checked again (default 15 s): a stream whose
   * token was revoked meanwhile ends then.
   */
  sseHeartbeatMs?: number;
  /**
   * What the audit log records of requests: `{ prompts: true }` keeps their text too (questions,
   * reasons, messages, an answer's values); by default it keeps none (`codex-harness serve
   * --audit-prompts`).
   */
  audit?: AuditOptions;
  /**
   * Sign-in to the web inbox with an OpenID Connect provider (authorization code + PKCE): people
   * who sign in are added to (or updated in) the store's people, with the claims' name and groups,
   * and get a session cookie with `oidc.scopes`. The provider is discovered at start: an
   * unreachable or bad issuer fails the start (`oidc_discovery_failed`). Tokens keep working.
   */
  oidc?: OidcOptions;
}

/** A running runtime server. */
export interface ChannelsServer {
  /** e.g. `http://127.0.0.1:4317`. */
  url: string;
  token: string;
  tokenFile: string;
  /** True when this start generated the token (print it once). */
  tokenCreated: boolean;
  /**
   * The people and programs who may use the API with tokens of their own (the store's; undefined
   * for a store that keeps none, where only {@link token} works).
   */
  people: People | undefined;
  /** The web inbox with the token in its fragment (never sent to the server by the browser). */
  inboxUrl: string;
  runtime: ChannelsRuntime;
  close(): Promise<void>;
}

/** Starts the runtime and its HTTP server. */
export async function startChannelsServer(options: ChannelsServerOptions): Promise<ChannelsServer> {
  const host = options.host ?? "127.0.0.1";
  let url = "";
  // The provider first: a bad issuer fails the start before anything is opened.
  const discovered = options.oidc && (await discoverSignIn(options.oidc, host, () => url));
  const { token, file, created } = await loadOrCreateToken(options.dataDir);
  const store = options.store ?? (await openStore(options.storeUrl, options.dataDir));
  const runtime = new ChannelsRuntime({
    store,
    ...(options.audit ? { audit: options.audit } : {}),
  });
  const people = store.people ? new People(store.people) : undefined;
  let signIn: SignInParts | undefined;
  try {
    signIn = discovered && signInOver(discovered, store);
  } catch (error) {
    await runtime.close();
    throw error;
  }
  const dispatcher = options.backends?.length
    ? new BackendDispatcher(runtime, options.backends, {
        ...options.backendRetry,
        ...(options.onBackendFailure ? { onFailure: options.onBackendFailure } : {}),
      })
    : undefined;
  await dispatcher?.start().catch(async (error) => {
    await dispatcher.close();
    await runtime.close();
    throw error;
  });
  const routes = new Map(
    (options.backends ?? []).flatMap((backend) =>
      backend.route ? [[backend.route.path, backend.route.handle] as const] : [],
    ),
  );
  const sockets = new Set<ServerResponse>();
  let port = 0;
  const hosts = new HostNames(host, options.allowedHosts, () => port);
  const access = new Access(token, people, options.badTokens, signIn?.sessions);
  const api = new Api(
    runtime,
    access,
    signIn && { ...signIn, access, ownsOrigin: (origin) => hosts.ownsOrigin(origin) },
    hosts,
    sockets,
    routes,
    {
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      inbox: options.inbox !== false,
      sseBufferBytes: options.sseBufferBytes ?? DEFAULT_SSE_BUFFER_BYTES,
      ...(options.sseHeartbeatMs ? { sseHeartbeatMs: options.sseHeartbeatMs } : {}),
    },
  );
  const server = createServer((request, response) => void api.handle(request, response));
  await listen(server, options.port ?? DEFAULT_CHANNELS_PORT, host).catch(async (error) => {
    await dispatcher?.close();
    await runtime.close();
    throw new CodexHarnessError(
      "listen_failed",
      `Cannot listen on ${host}:${options.port ?? DEFAULT_CHANNELS_PORT}: ${(error as Error).message}. ${listenFix(error)}`,
      { cause: error },
    );
  });
  port = (server.address() as AddressInfo).port;
  const shown = host.includes(":") ? `[${host}]` : host;
  url = `http://${shown}:${port}`;
  return {
    url,
    token,
    tokenFile: file,
    tokenCreated: created,
    people,
    inboxUrl: `${url}/#token=${encodeURIComponent(token)}`,
    runtime,
    async close() {
      for (const socket of sockets) socket.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dispatcher?.close();
      await runtime.close();
    },
  };
}

/**
 * The store of a `--store` URL (PostgreSQL), or the embedded SQLite store in `dataDir`. Each loads
 * its optional driver (`pg`, `better-sqlite3`) here: a missing one rejects with code
 * `missing_dependency` naming the package to install.
 */
export async function openStore(
  url: string | undefined,
  dataDir: string,
): Promise<InteractionStore> {
  if (url === undefined) {
    return SqliteInteractionStore.open(path.join(path.resolve(dataDir), "interactions.db"));
  }
  if (/^postgres(ql)?:\/\//.test(url)) return PostgresInteractionStore.open(url);
  throw new CodexHarnessError(
    "invalid_option",
    `Unknown store ${JSON.stringify(url)}: give a postgres://user:password@host:port/database URL, or no --store for the embedded SQLite store.`,
  );
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

interface ApiLimits {
  maxBodyBytes: number;
  inbox: boolean;
  sseBufferBytes: number;
  sseHeartbeatMs?: number;
}

class Api {
  constructor(
    private readonly runtime: ChannelsRuntime,
    private readonly access: Access,
    private readonly signIn: SignInContext | undefined,
    private readonly hosts: HostNames,
    private readonly streams: Set<ServerResponse>,
    private readonly routes: ReadonlyMap<string, BackendRoute>,
    private readonly limits: ApiLimits,
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
        const created = await runtime.create(body, identity, surface);
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

/** What to change when the server cannot listen: the host when it is not this machine's. */
function listenFix(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOTFOUND" || code === "EADDRNOTAVAIL" || code === "EAI_AGAIN"
    ? "Pick a --host of this machine (127.0.0.1 by default)."
    : "Pick another --port.";
}
