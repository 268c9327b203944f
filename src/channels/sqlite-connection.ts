// The embedded store's SQLite connection, over either library: node:sqlite's DatabaseSync where this
// Node has it (nothing to install or compile), else the optional package better-sqlite3 — one small
// interface, so the interactions, people and audit tables are written once for both.

import { createRequire } from "node:module";
import type { DatabaseSync } from "node:sqlite";
import type { Database as BetterDatabase } from "better-sqlite3";
import { CodexHarnessError } from "../errors.js";
import { loadDriver } from "./drivers.js";
import type { ModuleImporter } from "./store.js";

/**
 * The SQLite library under the embedded store: `"node:sqlite"` (built into Node 22.13 and newer;
 * the default where it exists) or `"better-sqlite3"` (the optional package; the default where
 * node:sqlite does not exist). Both read and write the same file format.
 */
export type SqliteDriver = "node:sqlite" | "better-sqlite3";

/** What the stores bind: text, numbers and NULL. */
export type SqliteValue = string | number | bigint | null;

/**
 * A prepared statement. A row is an object of its columns (node:sqlite's have no prototype: copy
 * what leaves the store).
 */
export interface SqliteStatement {
  get(...values: SqliteValue[]): unknown;
  all(...values: SqliteValue[]): unknown[];
  run(...values: SqliteValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
}

/** One connection to one database file, used by one store. */
export interface SqliteConnection {
  readonly driver: SqliteDriver;
  /**
   * The statement for `sql`, prepared on first use and kept: preparing costs more than running,
   * and the stores run the same few statements on every request. The stores only `get`, `all` and
   * `run` statements, never iterate one, so a statement is never in use twice at once.
   */
  prepare(sql: string): SqliteStatement;
  /** Runs one or more statements (DDL, pragmas). */
  exec(sql: string): void;
  /**
   * Runs `work` in a write transaction (`BEGIN IMMEDIATE`: it takes the database's write lock
   * first, waiting up to the busy timeout), commits when it returns and rolls back when it throws.
   * Inside another one it is a savepoint. `work` must be synchronous.
   */
  write<T>(work: () => T): T;
  /** Closes the connection; closing twice is harmless. */
  close(): void;
}

/** Opens one connection to a file (created when missing). */
export type SqliteOpener = (file: string) => SqliteConnection;

/** Options of {@link loadSqlite}. */
export interface LoadSqliteOptions {
  /** Which library; default node:sqlite where this Node has it, else better-sqlite3. */
  driver?: SqliteDriver;
  /**
   * How `node:sqlite` and `better-sqlite3` are imported (tests; default: node:sqlite from Node's
   * builtins without its ExperimentalWarning, better-sqlite3 with `import()`).
   */
  importer?: ModuleImporter;
}

/**
 * Loads the SQLite library the store runs on, and returns how to open a file with it. Rejects with
 * code `missing_dependency` when none is there (the message says what to install), and
 * `driver_failed` when one is there but does not load (better-sqlite3 built for another Node).
 */
export async function loadSqlite(options: LoadSqliteOptions = {}): Promise<SqliteOpener> {
  const { driver, importer } = options;
  if (driver !== "better-sqlite3") {
    const sqlite = importer ? await importBuiltin(importer) : quietNodeSqlite();
    if (sqlite) return (file) => new NodeSqliteConnection(new sqlite.DatabaseSync(file));
    if (driver === "node:sqlite") {
      throw new CodexHarnessError(
        "missing_dependency",
        `The SQLite interaction store was asked for node:sqlite, which Node ${process.version} does not have: it needs Node 22.13 or newer (or the driver better-sqlite3).`,
      );
    }
  }
  const neededBy =
    driver === "better-sqlite3"
      ? undefined
      : `On Node ${process.version}, which has no node:sqlite, the SQLite interaction store`;
  const { default: Database } = await loadDriver("better-sqlite3", importer, neededBy);
  checkNodeApi();
  try {
    // Its addon loads with the first database: one built for another Node fails here, not as a
    // store that cannot open its file.
    new Database(":memory:").close();
  } catch (error) {
    throw new CodexHarnessError(
      "driver_failed",
      `The SQLite interaction store cannot load the package better-sqlite3: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return (file) => new BetterSqliteConnection(new Database(file));
}

/**
 * better-sqlite3 13's prebuilt addon needs Node-API 10 (Node 22.14 and newer): on an older Node it
 * does not fail to load, it crashes the process. Refused here instead, with what to do.
 */
function checkNodeApi(): void {
  const napi = Number(process.versions.napi ?? 0);
  if (napi >= 10) return;
  let version: string | undefined;
  try {
    version = (createRequire(import.meta.url)("better-sqlite3/package.json") as { version: string })
      .version;
  } catch {
    return; // Not found from here (an injected importer): nothing to check.
  }
  if (Number(version.split(".")[0]) >= 13) {
    throw new CodexHarnessError(
      "driver_failed",
      `The SQLite interaction store cannot use better-sqlite3 ${version} on Node ${process.version}: it needs Node-API 10 (Node 22.14 or newer), this Node has ${napi}. Use a newer Node, or better-sqlite3 12 on this one.`,
    );
  }
}

type NodeSqlite = typeof import("node:sqlite");

/**
 * node:sqlite, from Node's builtins, or undefined where this Node has none (before 22.13 without
 * `--experimental-sqlite`, or built without it). Loading it makes Node 22 print "ExperimentalWarning:
 * SQLite is an experimental feature" on stderr (Node 24 does not): the store chose the library, not
 * the user, so that one warning is held back while it loads — synchronously, so no other warning
 * can pass meanwhile — and any other goes through.
 */
function quietNodeSqlite(): NodeSqlite | undefined {
  if (typeof process.getBuiltinModule !== "function") return undefined;
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (isSqliteWarning(warning, rest[0])) return;
    return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return process.getBuiltinModule("node:sqlite") as NodeSqlite | undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** Whether a warning is node:sqlite's ExperimentalWarning (`type` as a string or in options). */
function isSqliteWarning(warning: string | Error, typeOrOptions: unknown): boolean {
  const type =
    typeof typeOrOptions === "string"
      ? typeOrOptions
      : (typeOrOptions as { type?: unknown } | undefined)?.type;
  const message = typeof warning === "string" ? warning : warning.message;
  return type === "ExperimentalWarning" && /^SQLite is an experimental feature/.test(message);
}

async function importBuiltin(importer: ModuleImporter): Promise<NodeSqlite | undefined> {
  try {
    return (await importer("node:sqlite")) as NodeSqlite;
  } catch (error) {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (
      code === "ERR_UNKNOWN_BUILTIN_MODULE" ||
      code === "ERR_MODULE_NOT_FOUND" ||
      code === "MODULE_NOT_FOUND"
    ) {
      return undefined;
    }
    throw new CodexHarnessError(
      "driver_failed",
      `The SQLite interaction store cannot load node:sqlite: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** What both connections share: the database's statements, prepared once per SQL text. */
abstract class CachedConnection<
  D extends { prepare(sql: string): unknown; exec(sql: string): unknown },
> {
  private readonly cache = new Map<string, SqliteStatement>();

  constructor(protected readonly db: D) {}

  prepare(sql: string): SqliteStatement {
    let statement = this.cache.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql) as SqliteStatement;
      this.cache.set(sql, statement);
    }
    return statement;
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }
}

/** A connection through node:sqlite, with better-sqlite3's transaction semantics. */
class NodeSqliteConnection extends CachedConnection<DatabaseSync> implements SqliteConnection {
  readonly driver = "node:sqlite";
  private depth = 0;
  private open = true;

  write<T>(work: () => T): T {
    const outer = this.depth === 0;
    const savepoint = `codex_harness_${this.depth}`;
    this.db.exec(outer ? "BEGIN IMMEDIATE" : `SAVEPOINT ${savepoint}`);
    this.depth += 1;
    let result: T;
    try {
      result = work();
      if (isThenable(result)) {
        throw new TypeError(
          "A store transaction's work must be synchronous (it returned a promise)",
        );
      }
    } catch (error) {
      this.depth -= 1;
      this.undo(outer, savepoint);
      throw error;
    }
    this.depth -= 1;
    try {
      this.db.exec(outer ? "COMMIT" : `RELEASE ${savepoint}`);
    } catch (error) {
      this.undo(outer, savepoint);
      throw error;
    }
    return result;
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.db.close();
  }

  /** Rolls back; SQLite may have done so itself (after some errors), which is not a second error. */
  private undo(outer: boolean, savepoint: string): void {
    try {
      this.db.exec(outer ? "ROLLBACK" : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
    } catch {
      // No transaction left to roll back: the work's own error is the one to tell.
    }
  }
}

/** A connection through better-sqlite3. */
class BetterSqliteConnection extends CachedConnection<BetterDatabase> implements SqliteConnection {
  readonly driver = "better-sqlite3";

  write<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function isThenable(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
