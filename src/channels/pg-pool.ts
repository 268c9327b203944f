// PostgreSQL helpers the stores share: a pool whose tables are created under an advisory lock,
// and work in one transaction.
import type { Pool, PoolClient } from "pg";
import { CodexHarnessError } from "../errors.js";
import { redactUrl } from "./drivers.js";

/** Runs `work` in a transaction on one of `pool`'s connections (rolled back when it throws). */
export async function inTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * A pool on `url` whose `schema` (idempotent DDL) has run under the advisory lock `lock`, so
 * concurrent starters do not race. Throws `store_failed` naming the URL without its password.
 */
export async function openPool(
  pg: typeof import("pg"),
  url: string,
  schema: string,
  lock: number,
): Promise<Pool> {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  pool.on("error", () => undefined); // an idle client's error: the next query reconnects
  try {
    await inTransaction(pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1)", [lock]);
      await client.query(schema);
    });
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
