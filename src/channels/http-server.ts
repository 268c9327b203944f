// The runtime's HTTP API (`/v1/…`, `/healthz`), on 127.0.0.1 by default: bearer tokens (the data
// directory's, or a person's with scopes) or the inbox's sign-in cookie (`/auth/…`, with an OpenID
// provider), own-origin only, size-limited validated bodies, SSE for changes.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { CodexHarnessError } from "../errors.js";
import { Access } from "./access.js";
import type { AuditOptions } from "./audit-records.js";
import {
  BackendDispatcher,
  type DeliveryFailure,
  type InteractionBackend,
  type RetryPolicy,
} from "./backends.js";
import type { BadTokenLimits } from "./bad-tokens.js";
import { FleetConsoleApi } from "./console/console-api.js";
import type { FleetConsoleSource } from "./console/console-source.js";
import { DEFAULT_CHANNELS_PORT } from "./default-port.js";
import { HostNames } from "./host-names.js";
import { Api } from "./http-api.js";
import type { OidcOptions } from "./oidc.js";
import { discoverSignIn, type SignInParts, signInOver } from "./oidc-setup.js";
import { People } from "./people.js";
import { PostgresInteractionStore } from "./postgres-store.js";
import { ChannelsRuntime } from "./runtime.js";
import { SqliteInteractionStore } from "./sqlite-store.js";
import { DEFAULT_SSE_BUFFER_BYTES, DEFAULT_SSE_HEARTBEAT_MS } from "./sse.js";
import type { InteractionStore } from "./store.js";
import { loadOrCreateToken } from "./token.js";

export { DEFAULT_CHANNELS_PORT };
/** Largest request body (256 KiB). */
export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

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
  /**
   * The fleet's store, as the operator console reads it (`FleetConsoleQueries` of
   * `codex-harness/fleet`): the console's page at `/fleet` and its API under `/v1/fleet/`. The
   * caller opened it and closes it after the server.
   */
  fleetConsole?: FleetConsoleSource;
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
  /** The fleet's operator console with the token in its fragment, when it has one. */
  fleetConsoleUrl: string | undefined;
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
  const heartbeatMs = options.sseHeartbeatMs ?? DEFAULT_SSE_HEARTBEAT_MS;
  const sseBufferBytes = options.sseBufferBytes ?? DEFAULT_SSE_BUFFER_BYTES;
  const fleetConsole =
    options.fleetConsole &&
    new FleetConsoleApi(options.fleetConsole, runtime, {
      maxBufferedBytes: sseBufferBytes,
      heartbeatMs,
    });
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
      sseBufferBytes,
      ...(options.sseHeartbeatMs ? { sseHeartbeatMs: options.sseHeartbeatMs } : {}),
    },
    fleetConsole,
  );
  const server = createServer((request, response) => void api.handle(request, response));
  await listen(server, options.port ?? DEFAULT_CHANNELS_PORT, host).catch(async (error) => {
    fleetConsole?.close();
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
    fleetConsoleUrl: fleetConsole && `${url}/fleet#token=${encodeURIComponent(token)}`,
    runtime,
    async close() {
      fleetConsole?.close();
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
 * its driver here (`pg`; node:sqlite, or `better-sqlite3` on a Node without it): a missing one
 * rejects with code `missing_dependency` naming the package to install.
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

/** What to change when the server cannot listen: the host when it is not this machine's. */
function listenFix(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOTFOUND" || code === "EADDRNOTAVAIL" || code === "EAI_AGAIN"
    ? "Pick a --host of this machine (127.0.0.1 by default)."
    : "Pick another --port.";
}
