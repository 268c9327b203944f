// What an AppServerClient talks through: a codex app-server it spawned (stdio), or one running
// elsewhere that it connects to (WebSocket, unix socket). Each link owns what only it knows: the
// process's exit and stderr, or the remote endpoint, and the explanation of a failed start.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { CodexHarnessError } from "../errors.js";
import { RpcLocalError } from "../rpc/errors.js";
import type { Transport } from "../rpc/transport.js";
import type { AppServerClientOptions } from "./client.js";
import { type CodexBinary, findCodexBinary } from "./codex-binary.js";
import { toConfigOverrides } from "./codex-config.js";
import { CodexProcess } from "./codex-process.js";
import { endProcessesCarrying } from "./process-environ.js";
import { AppServerExitedError, type ProcessExit } from "./process-errors.js";
import { ownerEntries } from "./process-sweep.js";
import { ProcessTransport } from "./process-transport.js";
import { LOCAL_CODEX_OPTIONS, refuseLocalOptions, resolveRemote } from "./remote.js";

/** A way to reach one codex app-server. */
export interface AppServerLink {
  readonly transport: Transport;
  /** Where codex runs, for messages: its process, or the remote URL. */
  readonly endpoint: string;
  /** The codex binary, when this program started it. */
  readonly binary: CodexBinary | undefined;
  readonly pid: number | undefined;
  /** Resolves when the process exited or the connection ended (a connection has no exit code). */
  readonly ended: Promise<ProcessExit>;
  /** Whether the link keeps the program running (see `AppServerClient.hold`). */
  keepAlive(on: boolean): void;
  /** Ends it at once, as a crash would (for a codex that stopped answering). */
  kill(): void;
  /**
   * Kills the processes codex started for `threadId` since `sinceMs` and waits until they are gone
   * (see `endThreadProcesses`); absent where this program cannot see codex's processes (remote).
   */
  endThreadProcesses?(threadId: string, sinceMs: number): Promise<number[]>;
  /** The error to report for a failed start: what went wrong, said as well as this link can. */
  explainStartFailure(error: unknown): Promise<Error>;
}

/** Options that set up a codex this program starts, meaningless for one running elsewhere. */
const LOCAL_ONLY = [...LOCAL_CODEX_OPTIONS, "cwd", "stderrTailLines", "closeGraceMs"] as const;

/** Connects to the codex app-server of `options.remote` (the transport connects on start). */
export async function remoteLink(options: AppServerClientOptions): Promise<AppServerLink> {
  refuseLocalOptions(options, LOCAL_ONLY);
  const remote = resolveRemote(options.remote as NonNullable<AppServerClientOptions["remote"]>);
  // Loaded for the first remote connection: `ws` is not part of a local program.
  const { WebSocketTransport } = await import("./websocket-transport.js");
  const transport = new WebSocketTransport(remote, { maxMessageBytes: options.maxLineBytes });
  return {
    ...transportLink(transport, remote.endpoint),
    keepAlive: (on) => transport.keepAlive(on),
    kill: () => transport.kill(),
  };
}

/** A transport the caller made: the client only talks over it (and closes it). */
export function transportLink(
  transport: Transport,
  endpoint = "a caller's transport",
): AppServerLink {
  let markEnded: (exit: ProcessExit) => void = () => undefined;
  const ended = new Promise<ProcessExit>((resolve) => {
    markEnded = resolve;
  });
  // The peer sets onclose before start(): note the end, then pass it on.
  const wrapped: Transport = {
    start: () => transport.start(),
    send: (message) => transport.send(message),
    close: () => transport.close(),
  };
  transport.onmessage = (message) => wrapped.onmessage?.(message);
  transport.onerror = (error) => wrapped.onerror?.(error);
  transport.onclose = (reason) => {
    markEnded({ exitCode: null, signal: null });
    wrapped.onclose?.(reason);
  };
  return {
    transport: wrapped,
    endpoint,
    binary: undefined,
    pid: undefined,
    ended,
    keepAlive: () => undefined,
    kill: () => void transport.close(),
    explainStartFailure: async (error) =>
      error instanceof Error ? error : new Error(String(error)),
  };
}

/** How long a codex whose input was found closed while it started is given to report its exit. */
const EXITING_WITHIN_MS = 3_000;

/** Spawns `codex app-server` on stdio. */
export async function spawnLink(options: AppServerClientOptions): Promise<AppServerLink> {
  const binary = findCodexBinary({
    codexPathOverride: options.codexPathOverride,
    env: options.env,
  });
  const args = ["app-server"];
  for (const override of [
    ...toConfigOverrides(options.config ?? {}),
    ...(options.configOverrides ?? []),
  ]) {
    args.push("-c", override);
  }
  const child = await CodexProcess.spawn({
    executablePath: binary.executablePath,
    args,
    env: buildEnv(options, binary),
    cwd: options.cwd,
    stderrTailLines: options.stderrTailLines,
    onStderr: options.onStderr,
  });
  return {
    transport: new ProcessTransport(child, {
      maxLineBytes: options.maxLineBytes,
      closeGraceMs: options.closeGraceMs,
    }),
    endpoint: `${binary.executablePath} app-server (pid ${child.pid})`,
    binary,
    pid: child.pid,
    ended: child.exited,
    keepAlive: (on) => child.keepAlive(on),
    kill: () => child.kill(),
    endThreadProcesses: (threadId, sinceMs) =>
      endProcessesCarrying(ownerEntries(child.mark, threadId), sinceMs),
    explainStartFailure: async (error) => {
      // A process that died by itself explains the failure better than the write that hit it. A
      // write that found codex's input closed (EPIPE) means it is exiting, and a loaded machine
      // took over 200 ms to report `/bin/true`'s exit: that one is waited for longer.
      const exiting = error instanceof RpcLocalError && error.code === "write_failed";
      await Promise.race([child.exited, delay(exiting ? EXITING_WITHIN_MS : 200)]);
      return explainSpawnFailure(error, binary.executablePath, child, child.exitInfo);
    },
  };
}

function buildEnv(options: AppServerClientOptions, binary: CodexBinary): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env ?? process.env)) {
    if (value !== undefined) env[key] = value;
  }
  if (binary.pathDirs.length > 0) {
    const pathKey = Object.keys(env).find((key) => key.toUpperCase() === "PATH") ?? "PATH";
    env[pathKey] = [...binary.pathDirs, env[pathKey]].filter(Boolean).join(path.delimiter);
  }
  if (options.codexHome !== undefined) {
    const home = path.resolve(options.codexHome);
    try {
      mkdirSync(home, { recursive: true });
    } catch (cause) {
      throw new CodexHarnessError(
        "codex_home_unavailable",
        `Cannot create CODEX_HOME ${JSON.stringify(home)}: ${(cause as Error).message}. Pick a folder you can write to (codexHome option).`,
        { cause },
      );
    }
    env.CODEX_HOME = home;
  }
  return env;
}

function explainSpawnFailure(
  error: unknown,
  executablePath: string,
  child: CodexProcess,
  exit: ProcessExit | undefined,
): Error {
  if (exit) {
    return new AppServerExitedError(
      exit,
      child.stderr.snapshot(),
      `${executablePath} app-server exited before answering initialize`,
      "Is it a codex binary? Run `codex-harness doctor`.",
    );
  }
  if (error instanceof RpcLocalError && error.code === "timeout") {
    const tail = child.stderr.snapshot();
    return new RpcLocalError(
      "timeout",
      `${executablePath} did not answer initialize in time. Is it a codex binary? Run \`codex-harness doctor\`, or raise initializeTimeoutMs.${tail.length > 0 ? `\nLast stderr lines:\n${tail.join("\n")}` : ""}`,
      { cause: error },
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
