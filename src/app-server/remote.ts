// Where a codex app-server on another machine (or behind a unix socket) is, and how we prove
// who we are to it: the `remote` option checked and resolved before anything connects.
import { homedir } from "node:os";
import path from "node:path";
import { nodeFs } from "../builtins.js";
import { CodexHarnessError } from "../errors.js";

/** The env variable holding the token when the `remote` option gives none. */
export const REMOTE_TOKEN_ENV = "CODEX_HARNESS_REMOTE_TOKEN";

/** How a codex app-server that codex-harness did not start is reached. */
export interface RemoteOptions {
  /**
   * `ws://HOST:PORT` or `wss://HOST:PORT` (`codex app-server --listen ws://…`), `unix://PATH`
   * (`--listen unix://PATH`), or `unix://` for the control socket of `codex app-server daemon`
   * (`$CODEX_HOME/app-server-control/app-server-control.sock`).
   */
  url: string;
  /**
   * The capability token (`--ws-auth capability-token`), sent as `Authorization: Bearer`.
   * Default: the `tokenFile`'s content, else `$CODEX_HARNESS_REMOTE_TOKEN`.
   */
  token?: string;
  /** A file holding the capability token (surrounding whitespace ignored). */
  tokenFile?: string;
  /**
   * Signed bearer tokens (`--ws-auth signed-bearer-token`): a short-lived HS256 JWT is minted
   * for each connection from the shared secret, with the issuer and audience codex expects.
   */
  jwt?: {
    /** The shared secret (as in codex's `--ws-shared-secret-file`), or `secretFile`. */
    secret?: string;
    secretFile?: string;
    issuer: string;
    audience: string;
    /** How long each token is valid, in seconds (default 300). */
    ttlSeconds?: number;
  };
  /** Certificate authorities (PEM) to trust for `wss://`, e.g. a self-signed server's. */
  ca?: string | Buffer;
  /**
   * Send the token over plain `ws://` to a host that is not this machine. Anyone on the way can
   * read it then; use `wss://`, an SSH tunnel or a unix socket instead. Default false.
   */
  allowInsecureToken?: boolean;
  /** How long connecting (TCP, TLS and the upgrade) may take, in ms (default 10 000). */
  connectTimeoutMs?: number;
  /**
   * How often the connection is pinged, in ms (default 10 000): one that has not answered by the
   * next ping is taken as dropped (the network went silent) and rejoined.
   */
  pingEveryMs?: number;
}

/** A checked `remote` option: where to connect and how to authenticate, ready for the transport. */
export interface ResolvedRemote {
  /** What `ws` connects to (`ws+unix://PATH:/` for a socket). */
  address: string;
  /** The endpoint as people read it in messages (never with a token). */
  endpoint: string;
  /** Returns the `Authorization` header value for a new connection, if any. */
  authorization: (() => Promise<string>) | undefined;
  ca: string | Buffer | undefined;
  connectTimeoutMs: number;
  pingEveryMs: number;
}

const CODE = "invalid_remote";

/**
 * Checks `remote` and resolves it. Throws `invalid_remote` saying what to change: a URL of
 * another scheme, a missing token file, a token and a JWT together, a token over plain `ws://`
 * to another machine without `allowInsecureToken`.
 */
export function resolveRemote(
  remote: RemoteOptions,
  env: Record<string, string | undefined> = process.env,
): ResolvedRemote {
  if (typeof remote !== "object" || remote === null || typeof remote.url !== "string") {
    throw new CodexHarnessError(
      CODE,
      "remote needs `url`: ws://HOST:PORT, wss://HOST:PORT or unix://PATH.",
    );
  }
  const { address, endpoint, secure, local } = addressOf(remote.url, env);
  const token = tokenOf(remote, env);
  if (token !== undefined && remote.jwt !== undefined) {
    throw new CodexHarnessError(
      CODE,
      "remote has both a capability token and `jwt`: give the one the app-server's --ws-auth expects.",
    );
  }
  const authorization = remote.jwt
    ? jwtMinter(remote.jwt)
    : token === undefined
      ? undefined
      : async () => `Bearer ${token}`;
  if (authorization && !secure && !local && remote.allowInsecureToken !== true) {
    throw new CodexHarnessError(
      CODE,
      `Refusing to send a token over plain ws:// to ${endpoint}, which is not this machine: anyone on the way could read it. Use wss://, an SSH tunnel (ssh -L) or a unix socket, or set allowInsecureToken (--remote-insecure-token) if the network is yours.`,
    );
  }
  const connectTimeoutMs = positiveMs(remote.connectTimeoutMs, 10_000, "connectTimeoutMs");
  const pingEveryMs = positiveMs(remote.pingEveryMs, 10_000, "pingEveryMs");
  return { address, endpoint, authorization, ca: remote.ca, connectTimeoutMs, pingEveryMs };
}

function addressOf(
  url: string,
  env: Record<string, string | undefined>,
): { address: string; endpoint: string; secure: boolean; local: boolean } {
  if (url === "unix://" || url.startsWith("unix://")) {
    const socket =
      url === "unix://"
        ? path.join(
            env.CODEX_HOME ?? path.join(homedir(), ".codex"),
            "app-server-control",
            "app-server-control.sock",
          )
        : url.slice("unix://".length);
    if (!path.isAbsolute(socket)) {
      throw new CodexHarnessError(
        CODE,
        `remote url ${JSON.stringify(url)}: write the socket's absolute path, unix:///path/to/socket.`,
      );
    }
    return {
      address: `ws+unix://${socket}:/`,
      endpoint: `unix://${socket}`,
      secure: true,
      local: true,
    };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CodexHarnessError(
      CODE,
      `remote url ${JSON.stringify(url)} is not a URL: use ws://HOST:PORT, wss://HOST:PORT or unix://PATH.`,
    );
  }
  if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:") {
    throw new CodexHarnessError(
      CODE,
      `remote url ${JSON.stringify(url)}: use ws://, wss:// or unix:// (codex app-server --listen speaks WebSocket).`,
    );
  }
  if (parsed.username || parsed.password) {
    throw new CodexHarnessError(
      CODE,
      "remote url: put the token in `token` / `tokenFile` / $CODEX_HARNESS_REMOTE_TOKEN, not in the URL.",
    );
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  const local = host === "localhost" || host === "::1" || /^127\./.test(host);
  return {
    address: parsed.href,
    endpoint: `${parsed.protocol}//${parsed.host}`,
    secure: parsed.protocol === "wss:",
    local,
  };
}

function tokenOf(
  remote: RemoteOptions,
  env: Record<string, string | undefined>,
): string | undefined {
  if (remote.token !== undefined) return nonEmpty(remote.token, "remote.token");
  if (remote.tokenFile !== undefined)
    return nonEmpty(
      readSecret(remote.tokenFile, "token file"),
      `the token file ${remote.tokenFile}`,
    );
  const fromEnv = env[REMOTE_TOKEN_ENV];
  return fromEnv === undefined || fromEnv === "" || remote.jwt !== undefined ? undefined : fromEnv;
}

function jwtMinter(jwt: NonNullable<RemoteOptions["jwt"]>): () => Promise<string> {
  const secret =
    jwt.secret ??
    (jwt.secretFile === undefined ? undefined : readSecret(jwt.secretFile, "shared secret file"));
  if (secret === undefined || secret.trim() === "") {
    throw new CodexHarnessError(
      CODE,
      "remote.jwt needs `secret` or `secretFile` (the app-server's --ws-shared-secret-file).",
    );
  }
  for (const key of ["issuer", "audience"] as const) {
    if (typeof jwt[key] !== "string" || jwt[key] === "") {
      throw new CodexHarnessError(
        CODE,
        `remote.jwt needs \`${key}\` (the app-server's --ws-${key}).`,
      );
    }
  }
  const ttl = jwt.ttlSeconds ?? 300;
  const key = new TextEncoder().encode(secret);
  return async () => {
    // Loaded for the first connection that signs, not at import.
    const { SignJWT } = await import("jose");
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer(jwt.issuer)
      .setAudience(jwt.audience)
      .setIssuedAt()
      .setExpirationTime(`${ttl}s`)
      .sign(key);
    return `Bearer ${token}`;
  };
}

function positiveMs(value: number | undefined, fallback: number, name: string): number {
  const ms = value ?? fallback;
  if (!Number.isInteger(ms) || ms <= 0) {
    throw new CodexHarnessError(
      CODE,
      `remote.${name} must be a positive whole number of ms, got ${String(value)}.`,
    );
  }
  return ms;
}

function readSecret(file: string, what: string): string {
  try {
    return nodeFs().readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new CodexHarnessError(
      CODE,
      `Cannot read the ${what} ${file} (${reason}): point to the file the app-server was started with.`,
      { cause: error },
    );
  }
}

function nonEmpty(value: string, what: string): string {
  const trimmed = value.trim();
  if (trimmed === "")
    throw new CodexHarnessError(CODE, `${what} is empty: give the app-server's token.`);
  return trimmed;
}

/** Options of both `Codex` and `AppServerClient` that set up a codex this program starts. */
export const LOCAL_CODEX_OPTIONS = [
  "codexPathOverride",
  "codexHome",
  "config",
  "configOverrides",
  "env",
  "onStderr",
] as const;

/**
 * Refuses the options among `keys` that are given alongside `remote`: they set up a codex this
 * program would start, and the remote one has its own. Throws `invalid_option` naming them.
 */
export function refuseLocalOptions(options: object, keys: readonly string[]): void {
  const given = keys.filter((key) => {
    const value = (options as Record<string, unknown>)[key];
    return value !== undefined && !(Array.isArray(value) && value.length === 0);
  });
  if (given.length === 0) return;
  throw new CodexHarnessError(
    "invalid_option",
    `${given.join(", ")} set up a codex this program starts; with \`remote\`, codex runs elsewhere with its own: set ${given.length === 1 ? "it" : "them"} where it runs (codex-harness host …), or drop \`remote\`.`,
  );
}
