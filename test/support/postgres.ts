// A real PostgreSQL server (Debian's package) for a test run: codex-harness's local server
// (src/fleet/local-postgres.ts) in a temp folder, stopped and removed afterwards. Says why when it
// cannot run.
import { mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import {
  type LocalPostgres,
  localPostgresMissing,
  serverParent,
  startLocalPostgres,
} from "../../src/fleet/local-postgres.js";

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export function postgresMissing(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root to start PostgreSQL as the postgres user";
  return localPostgresMissing();
}

/** A running server: `url` connects as the superuser `postgres` (trust auth on loopback). */
export type TestPostgres = Omit<LocalPostgres, "dir">;

/** Starts a fresh server. Call only when {@link postgresMissing} is undefined. */
export async function startPostgres(): Promise<TestPostgres> {
  const dir = mkdtempSync(path.join(serverParent(), "codex-harness-pg-"));
  const server = await startLocalPostgres(dir);
  return {
    ...server,
    stop() {
      try {
        server.down();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
