// The audit log's tests: a store to run on (the data dir's SQLite, or a fresh database on a real
// PostgreSQL), the runtime on it, `codex-harness audit` against it, and direct SQL on its tables.
import assert from "node:assert/strict";
import path from "node:path";
import pg from "pg";
import type { AuditEntry } from "../../src/channels/audit-types.js";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import type { InteractionInput } from "../../src/channels/interaction-types.js";
import type { People } from "../../src/channels/people.js";
import type { SqliteConnection, SqliteValue } from "../../src/channels/sqlite-connection.js";
import { channelsTestDirs } from "./channels-dirs.js";
import { runCli } from "./cli.js";
import { postgresForFile } from "./postgres-file.js";
import { rawSqlite } from "./sqlite-drivers.js";

export { call, type Reply } from "./channels-call.js";

type Options = Parameters<typeof startChannelsServer>[0];

/** A store to run on: where the runtime and the CLI find it, and direct SQL on its tables. */
export interface Place {
  options: Partial<Options>;
  /** The CLI's flags for it: `--data-dir DIR` or `--store URL`. */
  where: string[];
  /** Runs `sql` (`?` placeholders, on either store); returns the rows. */
  sql(sql: string, ...args: unknown[]): Promise<Record<string, unknown>[]>;
  /** The audit log's table (its head is `<table>_head`). */
  table: string;
  close(): Promise<void>;
}

/** An approval of `command` (with a reason, which the log must not keep). */
export const approval = (
  command: string,
  extra: Partial<InteractionInput> = {},
): InteractionInput => ({
  kind: "approval_request",
  source: { name: "tests" },
  payload: { command, reason: "the model's reason" },
  ...extra,
});

/**
 * Registers the file's hooks (a PostgreSQL server when one can run; temp dirs; servers closed
 * after each test) and returns what the tests use.
 */
export function auditFixtures(prefix: string) {
  const { dataDir, servers } = channelsTestDirs(prefix);
  const { missing, url: postgresUrl } = postgresForFile();
  let databases = 0;

  async function place(kind: "sqlite" | "postgres"): Promise<Place> {
    if (kind === "sqlite") return sqlitePlace(dataDir());
    const base = postgresUrl();
    const name = `audit_${process.pid}_${++databases}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    return postgresPlace(base.replace(/\/postgres$/, `/${name}`), dataDir());
  }

  async function start(at: Place, extra: Partial<Options> = {}) {
    const server = await startChannelsServer({
      dataDir: dataDir(),
      port: 0,
      ...at.options,
      ...extra,
    });
    servers.push(server);
    return server as ChannelsServer & { people: People };
  }

  return { missing, place, start };
}

function sqlitePlace(dir: string): Place {
  let db: SqliteConnection | undefined;
  return {
    options: { dataDir: dir },
    where: ["--data-dir", dir],
    table: "audit",
    async sql(text, ...args) {
      db ??= await rawSqlite(path.join(dir, "interactions.db"));
      // node:sqlite's all() runs any statement: a change gives no rows.
      const rows = db.prepare(text).all(...(args as SqliteValue[])) as Record<string, unknown>[];
      return rows.map((row) => ({ ...row }));
    },
    async close() {
      db?.close();
    },
  };
}

async function postgresPlace(url: string, dir: string): Promise<Place> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    options: { dataDir: dir, storeUrl: url },
    where: ["--store", url],
    table: "codex_harness_audit",
    async sql(text, ...args) {
      let n = 0;
      const numbered = text.replace(/\?/g, () => `$${++n}`);
      return (await client.query(numbered, args)).rows;
    },
    close: () => client.end(),
  };
}

/** `codex-harness audit <args>` on `at`: its exit code and output. */
export function audit(at: Place, ...args: string[]) {
  return runCli(["audit", ...args, ...at.where]);
}

/** The entries `codex-harness audit --json <args>` prints (it must exit 0). */
export async function entries(at: Place, ...args: string[]): Promise<AuditEntry[]> {
  const run = await audit(at, "--json", ...args);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditEntry);
}
