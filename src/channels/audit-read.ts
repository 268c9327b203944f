// Reading a store's audit log page by page: its entries from a number or a time, and the check of
// the whole chain against the store's head while runtimes may still be appending.
import type { AuditLog, AuditRow } from "./audit-types.js";
import { type AuditVerdict, ChainVerifier, type VerifyOptions } from "./audit-verify.js";

/** Entries read per query. */
const PAGE = 1_000;

/** The rows of `log` after entry `afterSeq` (and at or after `fromTime`), by number, a page at a time. */
export async function* auditRows(
  log: AuditLog,
  query: { afterSeq?: number; fromTime?: string } = {},
): AsyncGenerator<AuditRow> {
  let after = query.afterSeq ?? 0;
  for (;;) {
    const rows = await log.rows({ ...query, afterSeq: after, limit: PAGE });
    for (const row of rows) yield row;
    const last = rows.at(-1);
    if (!last || rows.length < PAGE) return;
    after = last.seq;
  }
}

/**
 * Checks the whole chain of `log` ({@link ChainVerifier}) and its end against the store's head.
 * Entries appended while it reads are checked too: the head is read after the entries, and when it
 * names more, those are read before the verdict.
 */
export async function verifyLog(log: AuditLog, options: VerifyOptions = {}): Promise<AuditVerdict> {
  const verifier = new ChainVerifier(options);
  let last = 0;
  for (;;) {
    for await (const row of auditRows(log, { afterSeq: last })) {
      // Past a problem nothing more is checked; a row numbered out of order ends the read too.
      if (verifier.add(row)) return verifier.finish();
      last = row.seq;
    }
    const head = await log.head();
    if (head.seq <= last) return verifier.finish(head);
    // Appended since the read (or missing): read on; nothing more means they are missing.
    const more = await log.rows({ afterSeq: last, limit: 1 });
    if (more.length === 0) return verifier.finish(head);
  }
}
