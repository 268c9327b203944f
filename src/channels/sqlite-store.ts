// The embedded store: one SQLite file (WAL) under the runtime's data directory, through node:sqlite
// where Node has it, else better-sqlite3 (sqlite-connection.ts).
import { mkdirSync } from "node:fs";
import path from "node:path";
import { CodexHarnessError } from "../errors.js";
import type { AuditRecord } from "./audit-types.js";
import type {
  ChangeType,
  Interaction,
  InteractionChange,
  InteractionFilter,
  InteractionStatus,
} from "./interaction-types.js";
import { ensurePrivateFile, restrictFiles } from "./private-files.js";
import { SQLITE_AUDIT_SCHEMA, SqliteAuditLog } from "./sqlite-audit.js";
import { loadSqlite, type SqliteConnection, type SqliteDriver } from "./sqlite-connection.js";
import { SQLITE_PEOPLE_SCHEMA, SqlitePeopleStore } from "./sqlite-people.js";
import {
  applyUpdate,
  type InteractionStore,
  type ModuleImporter,
  type StatusUpdate,
} from "./store.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS interactions (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  status TEXT NOT NULL,
  thread_id TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS interactions_status ON interactions (status, expires_at);
CREATE TABLE IF NOT EXISTS changes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT NOT NULL,
  interaction_id TEXT NOT NULL,
  body TEXT NOT NULL
);
`;

interface Row {
  body: string;
}

/** Options of {@link SqliteInteractionStore.open}. */
export interface SqliteStoreOptions {
  /**
   * The SQLite library: by default node:sqlite where this Node has it (22.13 and newer), else the
   * optional package better-sqlite3.
   */
  driver?: SqliteDriver;
  /** How the libraries are imported (tests; default: Node's builtin, `import("better-sqlite3")`). */
  importer?: ModuleImporter;
}

/**
 * The SQLite store: one file, WAL. Open it with {@link SqliteInteractionStore.open}. It runs on
 * node:sqlite where Node has it, else on the optional package `better-sqlite3`, loaded on open.
 */
export class SqliteInteractionStore implements InteractionStore {
  /** The people, programs and tokens of this database. */
  readonly people: SqlitePeopleStore;
  /** The audit log of this database. */
  readonly audit: SqliteAuditLog;

  private constructor(
    readonly file: string,
    private readonly db: SqliteConnection,
  ) {
    this.audit = new SqliteAuditLog(db);
    this.people = new SqlitePeopleStore(db, this.audit);
  }

  /**
   * Opens (or creates, with its folder) the store at `file`, and makes the file and its -wal and
   * -shm files 0600 (a new folder 0700). Rejects with code `missing_dependency` when this Node
   * has no node:sqlite and better-sqlite3 is not installed (or `options.driver`'s library is
   * missing), `store_failed` when the file cannot be opened.
   */
  static async open(
    file: string,
    options: SqliteStoreOptions = {},
  ): Promise<SqliteInteractionStore> {
    const openFile = await loadSqlite(options);
    try {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      // Created 0600 before SQLite opens it: its -wal and -shm files take the database's mode.
      ensurePrivateFile(file);
      const db = openFile(file);
      try {
        db.exec("PRAGMA journal_mode = WAL");
        restrictFiles([`${file}-wal`, `${file}-shm`]);
        db.exec("PRAGMA busy_timeout = 5000");
        // Said, not left to the library: better-sqlite3 is built to sync a WAL database less
        // (NORMAL) than node:sqlite (FULL). A committed answer survives a power cut on both.
        db.exec("PRAGMA synchronous = FULL");
        db.exec(SCHEMA);
        db.exec(SQLITE_PEOPLE_SCHEMA);
        db.exec(SQLITE_AUDIT_SCHEMA);
        return new SqliteInteractionStore(file, db);
      } catch (error) {
        db.close();
        throw error;
      }
    } catch (error) {
      throw new CodexHarnessError(
        "store_failed",
        `Cannot open the interaction store ${file}: ${(error as Error).message}. Check the data directory (--data-dir) is writable.`,
        { cause: error },
      );
    }
  }

  /** The SQLite library this store runs on. */
  get driver(): SqliteDriver {
    return this.db.driver;
  }

  async create(interaction: Interaction, audit?: AuditRecord): Promise<InteractionChange> {
    const body = JSON.stringify(interaction);
    return this.db.write(() => {
      this.db
        .prepare(
          "INSERT INTO interactions (id, kind, status, thread_id, created_at, expires_at, body) VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .run(
          interaction.id,
          interaction.kind,
          interaction.status,
          interaction.codex?.threadId ?? null,
          interaction.createdAt,
          interaction.expiresAt,
          body,
        );
      if (audit) this.audit.appendIn(audit);
      return this.addChange(interaction.kind, interaction);
    });
  }

  async get(id: string): Promise<Interaction | undefined> {
    const row = this.db.prepare("SELECT body FROM interactions WHERE id = ?").get(id) as
      | Row
      | undefined;
    return row ? (JSON.parse(row.body) as Interaction) : undefined;
  }

  async list(filter: InteractionFilter): Promise<Interaction[]> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (filter.status?.length) {
      where.push(`status IN (${filter.status.map(() => "?").join(", ")})`);
      args.push(...filter.status);
    }
    if (filter.kind?.length) {
      where.push(`kind IN (${filter.kind.map(() => "?").join(", ")})`);
      args.push(...filter.kind);
    }
    if (filter.threadId !== undefined) {
      where.push("thread_id = ?");
      args.push(filter.threadId);
    }
    if (filter.cursor !== undefined) {
      where.push("(created_at, rowid) < (SELECT created_at, rowid FROM interactions WHERE id = ?)");
      args.push(filter.cursor);
    }
    const sql =
      `SELECT body FROM interactions${where.length ? ` WHERE ${where.join(" AND ")}` : ""}` +
      " ORDER BY created_at DESC, rowid DESC LIMIT ?";
    const rows = this.db.prepare(sql).all(...args, filter.limit ?? 100) as Row[];
    return rows.map((row) => JSON.parse(row.body) as Interaction);
  }

  async update(
    id: string,
    update: StatusUpdate | ((current: Interaction) => StatusUpdate),
    from: InteractionStatus[],
    audit?: (next: Interaction) => AuditRecord,
  ): Promise<InteractionChange | undefined> {
    return this.db.write(() => {
      const row = this.db.prepare("SELECT body FROM interactions WHERE id = ?").get(id) as
        | Row
        | undefined;
      if (!row) return undefined;
      const current = JSON.parse(row.body) as Interaction;
      if (!from.includes(current.status)) return undefined;
      const { next, type } = applyUpdate(current, update);
      this.db
        .prepare("UPDATE interactions SET status = ?, body = ? WHERE id = ?")
        .run(next.status, JSON.stringify(next), id);
      if (audit) this.audit.appendIn(audit(next));
      return this.addChange(type, next);
    });
  }

  async changesSince(seq: number, limit: number): Promise<InteractionChange[]> {
    const rows = this.db
      .prepare("SELECT seq, type, body FROM changes WHERE seq > ? ORDER BY seq LIMIT ?")
      .all(seq, limit) as { seq: number; type: ChangeType; body: string }[];
    return rows.map((row) => ({
      seq: row.seq,
      type: row.type,
      interaction: JSON.parse(row.body) as Interaction,
    }));
  }

  async expired(now: string): Promise<Interaction[]> {
    const rows = this.db
      .prepare(
        "SELECT body FROM interactions WHERE status IN ('pending', 'delivered') AND expires_at < ?",
      )
      .all(now) as Row[];
    return rows.map((row) => JSON.parse(row.body) as Interaction);
  }

  async countOpen(): Promise<Record<string, number>> {
    const rows = this.db
      .prepare(
        "SELECT kind, count(*) AS n FROM interactions WHERE status IN ('pending', 'delivered') GROUP BY kind",
      )
      .all() as { kind: string; n: number }[];
    return Object.fromEntries(rows.map((row) => [row.kind, Number(row.n)]));
  }

  async close(): Promise<void> {
    this.db.close();
  }

  private addChange(type: ChangeType, interaction: Interaction): InteractionChange {
    const result = this.db
      .prepare("INSERT INTO changes (type, interaction_id, body) VALUES (?, ?, ?)")
      .run(type, interaction.id, JSON.stringify(interaction));
    return { seq: Number(result.lastInsertRowid), type, interaction };
  }
}
