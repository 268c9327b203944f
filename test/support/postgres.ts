// A real PostgreSQL server (Debian's package) for a test run: initdb into a temp folder, started on a
// free loopback port, stopped and removed afterwards. Says why when it cannot run.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";

/** Where Debian puts the server binaries (the newest version present). */
function binDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(path.join(root, name, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], "bin") : undefined;
}

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export function postgresMissing(): string | undefined {
  if (!binDir()) return "needs Debian's postgresql (apt-get install postgresql)";
  if (process.getuid?.() !== 0) return "needs root to start PostgreSQL as the postgres user";
  try {
    execFileSync("id", ["postgres"], { stdio: "ignore" });
  } catch {
    return "needs the postgres system user (apt-get install postgresql)";
  }
  return undefined;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A running server: `url` connects as the superuser `postgres` (trust auth on loopback). */
export interface TestPostgres {
  url: string;
  stop(): void;
  /** Stops the server as a crash would (`immediate`), keeping its data: an outage. */
  down(): void;
  /** Starts it again on the same port, after {@link down}. */
  up(): void;
}

/**
 * Where the server's folder goes: a folder the `postgres` user can pass through. codex's sandbox
 * (bubblewrap, with /tmp a writable root) has been seen to leave /tmp 0700 mid-run; /var/tmp is
 * the system's other world-writable temporary folder.
 */
function serverParent(): string {
  for (const candidate of [os.tmpdir(), "/var/tmp"]) {
    try {
      if ((statSync(candidate).mode & 0o001) !== 0) return candidate;
    } catch {
      // Not there: try the next.
    }
  }
  return os.tmpdir();
}

/** Starts a fresh server. Call only when {@link postgresMissing} is undefined. */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = binDir() as string;
  const dir = mkdtempSync(path.join(serverParent(), "codex-harness-pg-"));
  const data = path.join(dir, "data");
  const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
  chownSync(dir, uid, gid);
  const asPostgres = (command: string, args: string[]) =>
    execFileSync("runuser", ["-u", "postgres", "--", path.join(bin, command), ...args], {
      stdio: "pipe",
      timeout: 60_000,
    });
  asPostgres("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const port = await freePort();
  const start = () =>
    asPostgres("pg_ctl", [
      "-D",
      data,
      "-w",
      "-l",
      path.join(dir, "log"),
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      "start",
    ]);
  start();
  let running = true;
  const down = () => {
    if (running) asPostgres("pg_ctl", ["-D", data, "-m", "immediate", "stop"]);
    running = false;
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    down,
    up() {
      start();
      running = true;
    },
    stop() {
      try {
        down();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
