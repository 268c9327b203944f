// The audit log in the embedded SQLite store: a table of chained entries and a one-row head, on
// the interaction store's connection. An entry is appended inside the transaction of the change it
// records; SQLite's write lock serializes appends across processes.
import { CodexHarnessError } from "../errors.js";
import { chainRow } from "./audit-chain.js";
import {
  type AuditEntry,
  type AuditHead,
  type AuditLog,
  type AuditQuery,
  type AuditRecord,
  type AuditRow,
  GENESIS,
} from "./audit-types.js";
import type { SqliteConnection, SqliteStatement } from "./sqlite-connection.js";

/**
 * The tables (idempotent DDL), run by the store on open. The head row is made only for an empty
 * log: one deleted later stays missing, and appends are refused, rather than start again at 1.
 */
export const SQLITE_AUDIT_SCHEMA = `
CREATE TABLE IF NOT EXISTS audit (
  seq INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  body TEXT NOT NULL,
  prev TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit_head (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  seq INTEGER NOT NULL,
  hash TEXT NOT NULL
);
INSERT OR IGNORE INTO audit_head (id, seq, hash)
  SELECT 1, 0, '${GENESIS}' WHERE NOT EXISTS (SELECT 1 FROM audit);
`;

/** The {@link AuditLog} of a SQLite database (the interaction store's connection). */
export class SqliteAuditLog implements AuditLog {
  private readonly readHead: SqliteStatement;
  private readonly insert: SqliteStatement;
  private readonly moveHead: SqliteStatement;

  /** Call once the tables exist ({@link SQLITE_AUDIT_SCHEMA}). */
  constructor(private readonly db: SqliteConnection) {
    this.readHead = db.prepare("SELECT seq, hash FROM audit_head WHERE id = 1");
    this.insert = db.prepare(
      "INSERT INTO audit (seq, at, body, prev, hash) VALUES (?, ?, ?, ?, ?)",
    );
    this.moveHead = db.prepare("UPDATE audit_head SET seq = ?, hash = ? WHERE id = 1");
  }

  /**
   * Appends `record` after the head; call it inside a write transaction (the change's own, or
   * {@link append}'s), which holds the database's write lock until it commits.
   */
  appendIn(record: AuditRecord): AuditEntry {
    const head = this.readHead.get() as AuditHead | undefined;
    if (!head) throw headMissing();
    const row = chainRow(head.seq + 1, head.hash, record);
    this.insert.run(row.seq, row.at, row.body, row.prev, row.hash);
    this.moveHead.run(row.seq, row.hash);
    return { ...record, seq: row.seq, prev: row.prev, hash: row.hash };
  }

  async append(record: AuditRecord): Promise<AuditEntry> {
    return this.db.write(() => this.appendIn(record));
  }

  async rows(query: AuditQuery): Promise<AuditRow[]> {
    const time = query.fromTime === undefined ? "" : " AND at >= ?";
    const args: (number | string)[] = [query.afterSeq ?? 0];
    if (query.fromTime !== undefined) args.push(query.fromTime);
    const rows = this.db
      .prepare(
        `SELECT seq, at, body, prev, hash FROM audit WHERE seq > ?${time} ORDER BY seq LIMIT ?`,
      )
      .all(...args, query.limit) as AuditRow[];
    return rows.map(({ seq, at, body, prev, hash }) => ({ seq, at, body, prev, hash }));
  }

  async head(): Promise<AuditHead> {
    const head = this.readHead.get() as AuditHead | undefined;
    // Without its row the head is the genesis: the verifier then says it does not match the log.
    return head ? { seq: head.seq, hash: head.hash } : { seq: 0, hash: GENESIS };
  }
}

function headMissing(): CodexHarnessError {
  return new CodexHarnessError(
    "store_failed",
    "The audit log's head row is missing (someone deleted it), so no change can be recorded, and none is made until it is back. `codex-harness audit --verify` checks the entries.",
  );
}
