// The remote side, started the way codex-harness connects to it: the pinned codex app-server
// listening on WebSocket or a unix socket, with a capability token or a JWT secret made for it.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { homedir } from "node:os";
import path from "node:path";
import { CodexHarnessError } from "../errors.js";
import { findCodexBinary } from "./codex-binary.js";
import { type ConfigObject, toConfigOverrides } from "./codex-config.js";
import { CodexProcess } from "./codex-process.js";

/** How the host checks who connects (codex's `--ws-auth`). */
export type HostAuth = "capability-token" | "signed-bearer-token" | "none";

/** Options of {@link startHost}. */
export interface HostOptions {
  /** `ws://IP:PORT` (port 0: any free one) or `unix://PATH`. */
  listen: string;
  /**
   * Default `capability-token` for `ws://`: a random token written to `secretFile`. `none` is
   * only for loopback and unix sockets (codex refuses it on other addresses).
   */
  auth?: HostAuth;
  /**
   * Where the token (or JWT shared secret) is kept, 0600 (default `<codex home>/app-server-token`);
   * a new random one is written when the file is missing or empty, an existing one is reused.
   */
  secretFile?: string;
  /** Issuer and audience of signed bearer tokens (default `codex-harness`, `codex-app-server`). */
  issuer?: string;
  audience?: string;
  codexHome?: string;
  /** codex config values (`-c`), e.g. a model provider. */
  config?: ConfigObject;
  codexPathOverride?: string;
  env?: Record<string, string>;
  /** How long codex may take to listen, in ms (default 30 000). */
  readyTimeoutMs?: number;
}

/** A running host: where to connect and with what. */
export interface Host {
  /** The URL clients give as `remote.url`. */
  url: string;
  auth: HostAuth;
  /** The token or shared secret file (absent with `auth: "none"`). */
  secretFile?: string;
  issuer?: string;
  audience?: string;
  /** codex, which ends (with all it started) when this process does, even by SIGKILL. */
  process: CodexProcess;
  /** Stops codex (and what it started). */
  close(): Promise<void>;
}

/**
 * A unix socket's folder must be the user's own: in a folder others write to (/tmp) anyone on the
 * machine could take the socket's name or reach it, and codex releases before 0.169 make the
 * socket's folder 0700, which would lock everyone else out of it.
 */
async function refuseSharedSocketFolder(socket: string): Promise<void> {
  const folder = path.dirname(path.resolve(socket));
  const mode = (await stat(folder).catch(() => undefined))?.mode ?? 0;
  if ((mode & 0o1000) !== 0 || (mode & 0o002) !== 0) {
    throw new CodexHarnessError(
      "invalid_option",
      `--listen unix://${socket}: ${folder} is shared with other users (mode ${(mode & 0o7777).toString(8)}); put the socket in a folder of your own, e.g. unix://${path.join(folder, `codex-harness-${process.getuid?.() ?? "user"}`, "app-server.sock")} (a folder only you can write).`,
    );
  }
}

/**
 * Starts the pinned `codex app-server --listen …` with the auth flags, making the token or
 * secret file (0600) first, and resolves once it listens. Throws `host_failed` with codex's own
 * words when it cannot (an address in use, a non-loopback address without auth).
 */
export async function startHost(options: HostOptions): Promise<Host> {
  const unix = options.listen.startsWith("unix://");
  if (!unix && !/^ws:\/\/[^/]+:\d+\/?$/.test(options.listen)) {
    throw new CodexHarnessError(
      "invalid_option",
      `--listen ${JSON.stringify(options.listen)}: use ws://IP:PORT (0.0.0.0 for every interface, port 0 for any) or unix:///path/to/socket.`,
    );
  }
  const auth = options.auth ?? (unix ? "none" : "capability-token");
  if (unix) await refuseSharedSocketFolder(options.listen.slice("unix://".length));
  const args = ["app-server", "--listen", options.listen];
  const host: Partial<Host> = { auth };
  if (auth !== "none") {
    // Beside the hosted codex's own files: its home, as codex itself finds it.
    const base =
      options.codexHome ??
      (options.env ?? process.env).CODEX_HOME ??
      path.join(homedir(), ".codex");
    const secretFile = path.resolve(options.secretFile ?? path.join(base, "app-server-token"));
    await mkdir(path.dirname(secretFile), { recursive: true });
    // A restarted host keeps its secret, so its clients connect again as they were.
    if (!(await hasContent(secretFile))) {
      await writeFile(secretFile, randomBytes(32).toString("base64url"), { mode: 0o600 });
    }
    await chmod(secretFile, 0o600);
    host.secretFile = secretFile;
    if (auth === "capability-token") {
      args.push("--ws-auth", auth, "--ws-token-file", secretFile);
    } else {
      host.issuer = options.issuer ?? "codex-harness";
      host.audience = options.audience ?? "codex-app-server";
      args.push("--ws-auth", auth, "--ws-shared-secret-file", secretFile);
      args.push("--ws-issuer", host.issuer, "--ws-audience", host.audience);
    }
  }
  for (const override of toConfigOverrides(options.config ?? {})) args.push("-c", override);
  const binary = findCodexBinary({
    codexPathOverride: options.codexPathOverride,
    env: options.env,
  });
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env ?? process.env)) {
    if (value !== undefined) env[key] = value;
  }
  if (options.codexHome) {
    await mkdir(options.codexHome, { recursive: true });
    env.CODEX_HOME = path.resolve(options.codexHome);
  }
  let banner = "";
  let heard: (() => void) | undefined;
  const child = await CodexProcess.spawn({
    executablePath: binary.executablePath,
    args,
    env,
    // codex --listen reads no stdin: without a watcher it would outlive a host killed by SIGKILL,
    // serving on its own, holding the port.
    endWithThisProcess: true,
    onStderr: (text) => {
      banner += text;
      if (/listening on: ws:\/\/\S+/.test(banner)) heard?.();
    },
  });
  const close = async () => {
    await child.terminate(2_000);
  };
  try {
    const url = await listening(
      child,
      options,
      () => banner,
      (wake) => {
        heard = wake;
      },
    );
    return { ...host, url, process: child, close } as Host;
  } catch (error) {
    await close();
    throw error;
  }
}

/** Waits until codex listens: its banner's address, or a socket that accepts. */
async function listening(
  child: CodexProcess,
  options: HostOptions,
  banner: () => string,
  onBanner: (wake: () => void) => void,
): Promise<string> {
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  const unix = options.listen.startsWith("unix://");
  const socket = unix ? options.listen.slice("unix://".length) : "";
  for (;;) {
    if (child.exitInfo) {
      const said = child.stderr.snapshot().filter((line) => !/bubblewrap|PATH aliases/.test(line));
      throw new CodexHarnessError(
        "host_failed",
        `codex app-server --listen ${options.listen} exited before listening${said.length > 0 ? `:\n${said.join("\n")}` : "."}`,
      );
    }
    if (unix) {
      if (existsSync(socket) && (await accepts(socket))) return `unix://${socket}`;
    } else {
      const address = /listening on: (ws:\/\/\S+)/.exec(banner())?.[1];
      if (address) return address;
    }
    if (Date.now() > deadline) {
      throw new CodexHarnessError(
        "host_failed",
        `codex app-server --listen ${options.listen} did not listen within ${(options.readyTimeoutMs ?? 30_000) / 1000} s.`,
      );
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 50);
      onBanner(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

async function hasContent(file: string): Promise<boolean> {
  try {
    return (await readFile(file, "utf8")).trim() !== "";
  } catch {
    return false;
  }
}

function accepts(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(socket);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
}
