// Checking the audit log's chain: fed its rows in order of number, it recomputes each hash and
// names the first entry that was edited, deleted or moved, or the tail that went missing. Pure;
// rows come in pages, so a long log needs little memory.
import { entryHash } from "./audit-chain.js";
import { type AuditHead, type AuditRow, GENESIS } from "./audit-types.js";

/**
 * What is wrong, at the first entry where it shows: `deleted` (entries missing before the next
 * one: its number skips), `edited` (its content does not hash to its hash; or it was changed and
 * rehashed, so that the next entry's previous hash no longer matches it), `reordered` (a number
 * again, or going back), `truncated` (entries missing at the end, against the store's head or a
 * recorded one), `rewritten` (the entry a recorded head names has another hash).
 */
export interface AuditProblem {
  kind: "deleted" | "edited" | "reordered" | "truncated" | "rewritten";
  /** The first entry affected (for `deleted` and `truncated`, the first missing one). */
  seq: number;
  /** When it was made, for an entry still there. */
  at?: string;
  /** One line naming the entry, its time (or the times around it) and what does not match. */
  message: string;
}

/** The outcome of a check: intact (how many entries, the last one), or the first problem. */
export type AuditVerdict =
  | { ok: true; entries: number; head: AuditHead; at?: string }
  | { ok: false; entries: number; problem: AuditProblem };

/** Options of {@link ChainVerifier}. */
export interface VerifyOptions {
  /**
   * A head recorded earlier (`codex-harness audit --head`): the log must still hold that entry,
   * with that hash. Without it, a rewrite of the whole tail after some entry cannot be told.
   */
  expectHead?: AuditHead;
}

/** Checks rows one by one ({@link add}), then the end ({@link finish}); stops at the first problem. */
export class ChainVerifier {
  private last: { seq: number; hash: string; at?: string } = {
    seq: 0,
    hash: GENESIS,
  };
  private count = 0;
  private problem: AuditProblem | undefined;

  constructor(private readonly options: VerifyOptions = {}) {}

  /** Checks the next row (in order of number); returns the first problem, once there is one. */
  add(row: AuditRow): AuditProblem | undefined {
    if (this.problem) return this.problem;
    this.problem = this.check(row) ?? this.checkExpected(row);
    if (!this.problem) {
      this.count += 1;
      this.last = { seq: row.seq, hash: row.hash, at: row.at };
    }
    return this.problem;
  }

  /**
   * The verdict, once every row was given; `storeHead` is the store's own record of its last
   * append ({@link AuditLog.head}): entries deleted from the end show against it.
   */
  finish(storeHead?: AuditHead): AuditVerdict {
    this.problem ??= this.checkEnd(storeHead);
    if (this.problem) return { ok: false, entries: this.count, problem: this.problem };
    const head = { seq: this.last.seq, hash: this.last.hash };
    return { ok: true, entries: this.count, head, ...(this.last.at ? { at: this.last.at } : {}) };
  }

  private check(row: AuditRow): AuditProblem | undefined {
    const expected = this.last.seq + 1;
    const after = this.last.seq > 0 ? `entry ${this.last.seq} (${this.last.at})` : "the start";
    if (row.seq < expected) {
      return {
        kind: "reordered",
        seq: row.seq,
        at: row.at,
        message: `entry ${row.seq} (${row.at}) comes after ${after}: numbers must rise by one`,
      };
    }
    if (row.seq > expected) {
      const missing =
        row.seq === expected + 1
          ? `entry ${expected} is`
          : `entries ${expected}–${row.seq - 1} are`;
      return {
        kind: "deleted",
        seq: expected,
        message: `${missing} missing (deleted): the log goes from ${after} to entry ${row.seq} (${row.at})`,
      };
    }
    if (entryHash(row.seq, row.prev, row.body) !== row.hash || !sameTime(row)) {
      return {
        kind: "edited",
        seq: row.seq,
        at: row.at,
        message: `entry ${row.seq} (${row.at}) was edited: its content does not match its hash`,
      };
    }
    if (row.prev !== this.last.hash) {
      // The row hashes right but does not follow the one before: that one was changed and given a
      // new hash (or this one was, previous hash and all). The earlier is named.
      if (this.last.seq === 0) {
        return {
          kind: "edited",
          seq: row.seq,
          at: row.at,
          message: `entry ${row.seq} (${row.at}) was edited: the first entry's previous hash must be the genesis value`,
        };
      }
      return {
        kind: "edited",
        seq: this.last.seq,
        ...(this.last.at ? { at: this.last.at } : {}),
        message: `entry ${this.last.seq} (${this.last.at}) was edited and rehashed: entry ${row.seq} names another hash before it`,
      };
    }
    return undefined;
  }

  /** The entry a recorded head names must still have that hash. */
  private checkExpected(row: AuditRow): AuditProblem | undefined {
    const expect = this.options.expectHead;
    if (!expect || row.seq !== expect.seq || row.hash === expect.hash) return undefined;
    return {
      kind: "rewritten",
      seq: row.seq,
      at: row.at,
      message: `entry ${row.seq} (${row.at}) is not the recorded head: its hash differs, so the log was rewritten from it or an entry before it`,
    };
  }

  private checkEnd(storeHead: AuditHead | undefined): AuditProblem | undefined {
    const last = `entry ${this.last.seq}${this.last.at ? ` (${this.last.at})` : ""}`;
    const expect = this.options.expectHead;
    if (expect && expect.seq > this.last.seq) {
      return {
        kind: "truncated",
        seq: this.last.seq + 1,
        message: `entries ${this.last.seq + 1}–${expect.seq} are missing: the log ends at ${last}, the recorded head is entry ${expect.seq}`,
      };
    }
    if (storeHead && storeHead.seq > this.last.seq) {
      return {
        kind: "truncated",
        seq: this.last.seq + 1,
        message: `entries ${this.last.seq + 1}–${storeHead.seq} are missing: the log ends at ${last}, the store's head is entry ${storeHead.seq}`,
      };
    }
    if (storeHead && (storeHead.seq < this.last.seq || storeHead.hash !== this.last.hash)) {
      return {
        kind: "edited",
        seq: Math.min(storeHead.seq + 1, this.last.seq),
        message: `the store's head (entry ${storeHead.seq}) does not match the log, which ends at ${last}: entries were added or changed outside the runtime`,
      };
    }
    return undefined;
  }
}

/** Whether a row's `at` column says what its record does (an edit of one but not the other). */
function sameTime(row: AuditRow): boolean {
  try {
    return (JSON.parse(row.body) as { at?: unknown }).at === row.at;
  } catch {
    return false;
  }
}

/** Checks a whole log at once (tests, small logs): see {@link ChainVerifier}. */
export function verifyChain(
  rows: Iterable<AuditRow>,
  options: VerifyOptions = {},
  storeHead?: AuditHead,
): AuditVerdict {
  const verifier = new ChainVerifier(options);
  for (const row of rows) {
    if (verifier.add(row)) break;
  }
  return verifier.finish(storeHead);
}
