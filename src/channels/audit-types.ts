// The audit log's shapes: what one entry records (who did what, where, with what outcome), and the
// entry as stored, chained to the one before it by hash. Plain data, shared by the stores, the
// runtime and the CLI.
import type { IdentityKind } from "./people-types.js";

/**
 * What an entry records: an interaction created, answered (or accepted by one of the several
 * people it needs: `interaction.approved`), refused an answer, cancelled or ended at its
 * deadline; a person or program added or removed; a token issued or revoked; a chat platform's
 * user linked to a person or unlinked; a person signed in to the inbox through an OpenID provider
 * (`session.started`), refused sign-in (`sign-in.refused`, with why) or signed out
 * (`session.ended`).
 */
export type AuditAction =
  | "interaction.created"
  | "interaction.answered"
  | "interaction.approved"
  | "answer.refused"
  | "interaction.cancelled"
  | "interaction.expired"
  | "person.added"
  | "person.removed"
  | "token.issued"
  | "token.revoked"
  | "person.linked"
  | "person.unlinked"
  | "session.started"
  | "sign-in.refused"
  | "session.ended";

/**
 * Who did it: an authenticated identity (`admin`, a `person` — a chat platform's user too, as
 * `slack:U024BE7LH` — or a `program`), the `runtime` itself (a deadline), or `unknown` (a token
 * that was missing, unknown or revoked; `tokenId` is then the id the token claimed, if any).
 */
export interface AuditActor {
  kind: IdentityKind | "runtime" | "unknown";
  id: string;
  /** The name shown for them, when it is not the id. */
  name?: string;
  /** The person's or program's token the request carried (its id, never the secret). */
  tokenId?: string;
  /**
   * The chat platform's user a person acted as, when they answered from a chat they are linked to
   * (`slack:U024BE7LH`); `id` is then the person's.
   */
  platformUser?: string;
}

/**
 * Where it came from: `api` (an HTTP client), `inbox` and `cli` (HTTP clients that say so in the
 * answer's `metadata.via`), a backend's name (`slack`, `telegram`, `discord`, `webhook`, …),
 * `in-process` (a program calling the runtime or `People` itself), `runtime` (its own deadline).
 * The people commands record `cli`.
 */
export type AuditSurface = string;

/** A short, text-free description of what an entry is about (see `audit-records.ts`). */
export type AuditSummary = Readonly<Record<string, string | number | boolean | readonly string[]>>;

/** What one entry records; the store adds its sequence number and the hashes. */
export interface AuditRecord {
  /** ISO 8601: when the change was made (the runtime's clock). */
  at: string;
  action: AuditAction;
  actor: AuditActor;
  surface: AuditSurface;
  /**
   * What it is about: an interaction's id, a person's or program's id, a token's id, a linked
   * platform user (`slack:U024BE7LH`).
   */
  subject: string;
  /**
   * The outcome: `created`; the answer's action (`accept`, `decline`, `cancel`, `text`);
   * `refused`; `cancelled`; `expired`; `added`; `removed`; `issued`; `revoked`; `linked`;
   * `unlinked`; `signed-in`; `signed-out`.
   */
  decision: string;
  /** Why: a refusal's error code (`missing_scope`, `conflict`, …) or an end's reason. */
  reason?: string;
  /** A refusal's message, as the refused client got it. */
  message?: string;
  summary?: AuditSummary;
}

/**
 * An entry as stored: the record, its number (1, 2, 3, … with no gaps), the hash of the entry
 * before it (`prev`; {@link GENESIS} for the first), and its own hash over both
 * (`audit-chain.ts`).
 */
export interface AuditEntry extends AuditRecord {
  seq: number;
  prev: string;
  hash: string;
}

/**
 * An entry as the store holds it, unparsed: what the verifier checks. `body` is the record's
 * canonical JSON, exactly as hashed; `at` is kept beside it to find entries by time (without an
 * index: an append writes as little as it can, and reading from a time scans).
 */
export interface AuditRow {
  seq: number;
  at: string;
  body: string;
  prev: string;
  hash: string;
}

/** The last entry's number and hash (0 and {@link GENESIS} while the log is empty). */
export interface AuditHead {
  seq: number;
  hash: string;
}

/** The previous hash of the first entry: 64 zeros. */
export const GENESIS = "0".repeat(64);

/** Where a read of the log starts: after an entry's number, and at or after a time. */
export interface AuditQuery {
  /** Only entries numbered above this (default 0: from the first). */
  afterSeq?: number;
  /** Only entries made at or after this ISO 8601 time. */
  fromTime?: string;
  /** Most entries to return. */
  limit: number;
}

/**
 * The audit log of a store: appended to by the store itself in the same transaction as the change
 * an entry records, and by {@link AuditLog.append} for what changes nothing (a refused answer).
 * Appends are serialized across processes: the numbers never fork.
 */
export interface AuditLog {
  /** Appends `record` in a transaction of its own. */
  append(record: AuditRecord): Promise<AuditEntry>;
  /** Entries matching `query`, by number. */
  rows(query: AuditQuery): Promise<AuditRow[]>;
  /** The store's record of the last append. */
  head(): Promise<AuditHead>;
}
