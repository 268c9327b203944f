// A PostgreSQL server of one's own on this machine, for trying the fleet (and for its tests): Debian's
// server binaries (`apt-get install postgresql`), initdb into a folder, started on a loopback port
// with trust authentication, stopped and removed afterwards. Not for production: no password, fsync
// off.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { CodexHarnessError } from "../errors.js";

/** Where Debian puts the server binaries (the newest version present). */
function binDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(path.join(root, name, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], "bin") : undefined;
}

/** Why a local server cannot be started here (what to install), or undefined when it can. */
export function localPostgresMissing(): string | undefined {
  if (!binDir()) return "needs Debian's postgresql (apt-get install postgresql)";
  if (process.getuid?.() === 0) {
    try {
      execFileSync("id", ["postgres"], { stdio: "ignore" });
    } catch {
      return "needs the postgres system user to run the server as (apt-get install postgresql)";
    }
  }
  return undefined;
}

/** A running local server: `url` connects as the superuser `postgres`. */
export interface LocalPostgres {
  url: string;
  /** The server's folder (its data, socket and log). */
  dir: string;
  /** Stops the server (`fast`), keeping its folder. */
  stop(): void;
  /** Stops the server as a crash would (`immediate`), keeping its data: an outage. */
  down(): void;
  /** Starts it again on the same port, after {@link down} or {@link stop}. */
  up(): void;
}

/** A free loopback port. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A folder the `postgres` user can pass through, for the server's folder. codex's sandbox
 * (bubblewrap, with /tmp a writable root) has been seen to leave /tmp 0700 mid-run; /var/tmp is
 * the system's other world-writable temporary folder.
 */
export function serverParent(): string {
  for (const candidate of [os.tmpdir(), "/var/tmp"]) {
    try {
      if ((statSync(candidate).mode & 0o001) !== 0) return candidate;
    } catch {
      // Not there: try the next.
    }
  }
  return os.tmpdir();
}

/**
 * Makes a server in `dir` (an empty folder; initdb, trust authentication) and starts it on `port`
 * (default: a free one), listening on 127.0.0.1 and a socket in `dir`. Run as root, the server
 * runs as the `postgres` user (PostgreSQL refuses root). Throws `postgres_failed`, saying why,
 * when it cannot (see {@link localPostgresMissing}).
 */
export async function startLocalPostgres(dir: string, port?: number): Promise<LocalPostgres> {
  const missing = localPostgresMissing();
  if (missing) throw new CodexHarnessError("postgres_failed", `A local PostgreSQL ${missing}.`);
  const data = path.join(dir, "data");
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(dir, uid, gid);
  }
  const run = (command: string, args: string[]) => runServerCommand(command, args, dir);
  if (!existsSync(data)) run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const listen = port ?? (await freePort());
  const start = () =>
    run("pg_ctl", [
      ...["-D", data, "-w", "-l", path.join(dir, "log"), "-o"],
      `-p ${listen} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      "start",
    ]);
  start();
  let running = true;
  const stopWith = (mode: "fast" | "immediate") => {
    if (running) run("pg_ctl", ["-D", data, "-m", mode, "stop"]);
    running = false;
  };
  return {
    url: `postgres://postgres@127.0.0.1:${listen}/postgres`,
    dir,
    stop: () => stopWith("fast"),
    down: () => stopWith("immediate"),
    up() {
      start();
      running = true;
    },
  };
}

/**
 * Runs one of the server's commands (initdb, pg_ctl) on the folder `dir`: as the `postgres` user
 * when this process is root. Throws `postgres_failed` with what it said.
 */
function runServerCommand(command: string, args: string[], dir: string): void {
  const bin = binDir();
  if (!bin)
    throw new CodexHarnessError("postgres_failed", `A local PostgreSQL ${localPostgresMissing()}.`);
  const [file, argv] =
    process.getuid?.() === 0
      ? ["runuser", ["-u", "postgres", "--", path.join(bin, command), ...args]]
      : [path.join(bin, command), args];
  try {
    execFileSync(file, argv, { stdio: "pipe", timeout: 60_000 });
  } catch (error) {
    const said = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new CodexHarnessError(
      "postgres_failed",
      `${command} failed: ${said || (error as Error).message} (the server's folder: ${dir}).`,
      { cause: error },
    );
  }
}

/** Whether the local server of `dir` runs (`pg_ctl status`). */
export function localPostgresRunning(dir: string): boolean {
  try {
    runServerCommand("pg_ctl", ["-D", path.join(dir, "data"), "status"], dir);
    return true;
  } catch {
    return false;
  }
}

/** Stops the local server of `dir` if it runs (`fast`). */
export function stopLocalPostgres(dir: string): void {
  if (localPostgresRunning(dir)) {
    runServerCommand("pg_ctl", ["-D", path.join(dir, "data"), "-m", "fast", "stop"], dir);
  }
}
