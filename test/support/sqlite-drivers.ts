// The SQLite libraries the embedded store's tests run on: node:sqlite (every supported Node has it),
// and better-sqlite3 where its addon loads: 13's prebuilt Node-API binary loads on every supported
// Node; a 12 built from source loads only on the Node that built it, elsewhere its cases say so
// and are skipped.
import {
  loadSqlite,
  type SqliteConnection,
  type SqliteDriver,
} from "../../src/channels/sqlite-connection.js";
import { CodexHarnessError } from "../../src/errors.js";

/** A library to run the store's tests on, and why they are skipped on it here, if they are. */
export interface SqliteDriverCase {
  driver: SqliteDriver;
  skip: string | false;
}

/** Why better-sqlite3 cannot run here (built for another Node's ABI), or false when it can. */
async function betterSqliteSkip(): Promise<string | false> {
  try {
    await loadSqlite({ driver: "better-sqlite3" });
    return false;
  } catch (error) {
    const message = (error as Error).message;
    if (error instanceof CodexHarnessError && /NODE_MODULE_VERSION/.test(message)) {
      return `better-sqlite3 is built for another Node than ${process.version}: ${message.split("\n")[0]}`;
    }
    throw error;
  }
}

export const SQLITE_DRIVERS: SqliteDriverCase[] = [
  { driver: "node:sqlite", skip: false },
  { driver: "better-sqlite3", skip: await betterSqliteSkip() },
];

/** A plain connection to `file` (node:sqlite), for a test that reads or breaks the tables itself. */
export async function rawSqlite(file: string): Promise<SqliteConnection> {
  return (await loadSqlite({ driver: "node:sqlite" }))(file);
}
