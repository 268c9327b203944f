// The audit log in the PostgreSQL store: a table of chained entries and a one-row head. An entry is
// appended in the transaction of the change it records, by one statement that locks the head row
// (`FOR UPDATE`), so runtimes sharing the database append one after the other and never fork the
// chain. The hash is computed in that statement, as `audit-chain.ts`'s `entryHash` computes it.
import type { Pool, PoolClient } from "pg";
import { CodexHarnessError } from "../errors.js";
import { recordBody } from "./audit-chain.js";
import {
  type AuditEntry,
  type AuditHead,
  type AuditLog,
  type AuditQuery,
  type AuditRecord,
  type AuditRow,
  GENESIS,
} from "./audit-types.js";
import { inTransaction } from "./pg-pool.js";

/**
 * The tables (idempotent DDL), part of the store's schema. The head row is made only for an empty
 * log: one deleted later stays missing, and appends are refused, rather than start again at 1.
 */
export const POSTGRES_AUDIT_SCHEMA = `
CREATE TABLE IF NOT EXISTS codex_harness_audit (
  seq BIGINT PRIMARY KEY,
  at TEXT NOT NULL,
  body TEXT NOT NULL,
  prev TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS codex_harness_audit_head (
  id INT PRIMARY KEY CHECK (id = 1),
  seq BIGINT NOT NULL,
  hash TEXT NOT NULL
);
INSERT INTO codex_harness_audit_head (id, seq, hash)
  SELECT 1, 0, '${GENESIS}' WHERE NOT EXISTS (SELECT 1 FROM codex_harness_audit)
  ON CONFLICT (id) DO NOTHING;
`;

/**
 * Appends after the head in one round trip. The head row is locked until the transaction ends;
 * a runtime that waited for it reads the head as the other left it (PostgreSQL re-reads a row it
 * waited to lock), so the next number and previous hash are always the latest.
 */
const APPEND = `
WITH head AS (
  SELECT seq + 1 AS seq, hash AS prev FROM codex_harness_audit_head WHERE id = 1 FOR UPDATE
), entry AS (
  INSERT INTO codex_harness_audit (seq, at, body, prev, hash)
  SELECT seq, $1, $2::text, prev,
    encode(sha256(convert_to(seq::text || E'\\n' || prev || E'\\n' || $2::text, 'UTF8')), 'hex')
  FROM head
  RETURNING seq, prev, hash
)
UPDATE codex_harness_audit_head AS h SET seq = entry.seq, hash = entry.hash FROM entry
WHERE h.id = 1
RETURNING entry.seq, entry.prev, entry.hash`;

/** The {@link AuditLog} of a PostgreSQL database (the interaction store's pool). */
export class PostgresAuditLog implements AuditLog {
  constructor(private readonly pool: Pool) {}

  /** Appends `record` inside the transaction `client` is in (the change's own, or {@link append}'s). */
  async appendIn(client: PoolClient, record: AuditRecord): Promise<AuditEntry> {
    const { rows } = await client.query<{ seq: string; prev: string; hash: string }>(APPEND, [
      record.at,
      recordBody(record),
    ]);
    const row = rows[0];
    if (!row) {
      throw new CodexHarnessError(
        "store_failed",
        "The audit log's head row is missing (someone deleted it), so no change can be recorded, and none is made until it is back. `codex-harness audit --verify` checks the entries.",
      );
    }
    return { ...record, seq: Number(row.seq), prev: row.prev, hash: row.hash };
  }

  append(record: AuditRecord): Promise<AuditEntry> {
    return inTransaction(this.pool, (client) => this.appendIn(client, record));
  }

  async rows(query: AuditQuery): Promise<AuditRow[]> {
    const args: (number | string)[] = [query.afterSeq ?? 0, query.limit];
    if (query.fromTime !== undefined) args.push(query.fromTime);
    const { rows } = await this.pool.query<AuditRow & { seq: string }>(
      `SELECT seq, at, body, prev, hash FROM codex_harness_audit
       WHERE seq > $1${query.fromTime === undefined ? "" : " AND at >= $3"} ORDER BY seq LIMIT $2`,
      args,
    );
    return rows.map((row) => ({ ...row, seq: Number(row.seq) }));
  }

  async head(): Promise<AuditHead> {
    const { rows } = await this.pool.query<{ seq: string; hash: string }>(
      "SELECT seq, hash FROM codex_harness_audit_head WHERE id = 1",
    );
    const row = rows[0];
    return row ? { seq: Number(row.seq), hash: row.hash } : { seq: 0, hash: GENESIS };
  }
}
