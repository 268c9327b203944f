// PostgreSQL helpers the stores share: a pool whose tables are created under an advisory lock,
// and work in one transaction.
import { createHash } from "node:crypto";
import type { Pool, PoolClient } from "pg";
import { CodexHarnessError } from "../errors.js";
import { redactUrl } from "./drivers.js";

/** Runs `work` in a transaction on one of `pool`'s connections (rolled back when it throws). */
export async function inTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  return withClient(pool, async (client) => {
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  });
}

/**
 * Runs `work` on one of `pool`'s connections. While checked out a connection has no error
 * listener of the pool's: one lost between two queries (the server went away) would be an
 * unhandled 'error' event that ends the process. Here it is noted, the next query fails, and the
 * connection is discarded rather than returned to the pool.
 */
export async function withClient<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on("error", onError);
  try {
    return await work(client);
  } finally {
    client.off("error", onError);
    client.release(lost);
  }
}

/**
 * How long an idle connection stays open. A new one costs 5–15 ms (connect and authenticate) and its
 * first call of graphile-worker's `add_job` or `get_job` 10–20 ms more (PostgreSQL plans a
 * function's statements once per connection): with pg's default of 10 s, a turn submitted after a
 * pause paid both on the submitter and on the worker (14–18 ms queued instead of 5–6 here).
 */
export const IDLE_CONNECTION_MS = 5 * 60_000;

/**
 * A pool on `url` of at most `max` connections, kept open while idle for
 * {@link IDLE_CONNECTION_MS}. Idle connections never keep the process alive (`allowExitOnIdle`).
 */
export function newPool(pg: typeof import("pg"), url: string, max: number): Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis: IDLE_CONNECTION_MS,
    allowExitOnIdle: true,
  });
  pool.on("error", () => undefined); // an idle client's error: the next query reconnects
  return pool;
}

/**
 * A pool on `url` whose `schema` (idempotent DDL) has run under the advisory lock `lock`, so
 * concurrent starters do not race — once per schema: its digest is recorded, and a database that
 * has it is used as it is. Throws `store_failed` naming the URL without its password.
 */
export async function openPool(
  pg: typeof import("pg"),
  url: string,
  schema: string,
  lock: number,
): Promise<Pool> {
  const pool = newPool(pg, url, 8);
  const digest = createHash("sha256").update(schema).digest("hex");
  try {
    // Made already by this release: no DDL, whose table locks would wait for (and deadlock with)
    // the transactions of those using the tables — a submit while workers run, say.
    if ((await madeDigest(pool, lock)) !== digest) {
      await inTransaction(pool, async (client) => {
        await client.query("SELECT pg_advisory_xact_lock($1)", [lock]);
        await client.query(schema);
        await client.query(
          `CREATE TABLE IF NOT EXISTS codex_harness_schemas (lock bigint PRIMARY KEY, digest text NOT NULL);
           INSERT INTO codex_harness_schemas (lock, digest) VALUES (${lock}, '${digest}')
           ON CONFLICT (lock) DO UPDATE SET digest = EXCLUDED.digest`,
        );
      });
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new CodexHarnessError(
      "store_failed",
      `Cannot use PostgreSQL at ${redactUrl(url)}: ${(error as Error).message}. Check the --store URL and that the server is up.`,
      { cause: error },
    );
  }
  return pool;
}

/** The digest of the schema last made under `lock`, if the record of it exists. */
async function madeDigest(pool: Pool, lock: number): Promise<string | undefined> {
  try {
    const { rows } = await pool.query("SELECT digest FROM codex_harness_schemas WHERE lock = $1", [
      lock,
    ]);
    return rows[0]?.digest;
  } catch (error) {
    // 42P01: no such table yet (a database no release has used).
    if ((error as { code?: unknown }).code === "42P01") return undefined;
    throw error;
  }
}
