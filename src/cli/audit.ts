// `codex-harness audit`: the channels runtime's audit log, read from its store (the data
// directory's SQLite, or PostgreSQL with --store) — printed a line per entry or as JSONL, checked
// entry by entry against its hash chain (`--verify`), or its head printed to be kept elsewhere.
import { type Command, InvalidArgumentError } from "commander";
import type { AuditEntry, AuditHead, AuditLog } from "../channels/audit-types.js";
import type { AuditVerdict } from "../channels/audit-verify.js";
import { CodexHarnessError } from "../errors.js";
import { formatEntry, formatVerdict } from "./audit-format.js";
import { addStoreFlags, type StoreFlags, useStore } from "./store-flags.js";

interface AuditFlags extends StoreFlags {
  since?: Since;
  json?: boolean;
  verify?: boolean;
  expectHead?: AuditHead;
  head?: boolean;
}

/** Where a listing starts: an entry's number, or a time. */
type Since = { seq: number } | { time: string };

/** Adds `audit` to the program. */
export function addAuditCommand(program: Command): void {
  addStoreFlags(
    program
      .command("audit")
      .description(
        "Show the channels runtime's audit log (who created, answered, was refused, changed people and tokens), or check it for edits and deletions",
      ),
    "it",
  )
    .option(
      "--since <time|seq>",
      "only entries from this ISO 8601 time, or this entry number, on",
      since,
    )
    .option("--json", "print one JSON object per line (stdout is data only)")
    .option("--verify", "recompute the hash chain; exit 1 naming the first edited or deleted entry")
    .option(
      "--expect-head <seq:hash>",
      "with --verify: the log must still hold this entry, as `audit --head` printed it earlier",
      headOf,
    )
    .option("--head", "print the last entry's number and hash (<seq>:<hash>), to keep elsewhere")
    .action(async (flags: AuditFlags) => {
      checkFlags(flags);
      process.exitCode = await useStore(
        flags,
        async (store) => {
          if (!store.audit)
            throw new CodexHarnessError("invalid_option", "This store keeps no audit log.");
          if (flags.head) return printHead(store.audit, flags.json === true);
          if (flags.verify) return verify(store.audit, flags);
          return list(store.audit, flags);
        },
        { existing: true },
      );
    });
}

function checkFlags(flags: AuditFlags): void {
  const modes = [flags.head && "--head", flags.verify && "--verify"].filter(Boolean);
  if (modes.length > 1 || (flags.head && flags.since)) {
    throw new CodexHarnessError(
      "invalid_option",
      "Give one of --head, --verify, or a listing (--since); --verify checks the whole log.",
    );
  }
  if (flags.verify && flags.since) {
    throw new CodexHarnessError(
      "invalid_option",
      "--verify checks the whole log from its first entry; leave out --since.",
    );
  }
  if (flags.expectHead && !flags.verify) {
    throw new CodexHarnessError("invalid_option", "--expect-head goes with --verify.");
  }
}

async function printHead(log: AuditLog, json: boolean): Promise<number> {
  const head = await log.head();
  console.log(json ? JSON.stringify(head) : `${head.seq}:${head.hash}`);
  return 0;
}

async function verify(log: AuditLog, flags: AuditFlags): Promise<number> {
  const { verifyLog } = await import("../channels/audit-read.js");
  const verdict: AuditVerdict = await verifyLog(
    log,
    flags.expectHead ? { expectHead: flags.expectHead } : {},
  );
  console.log(flags.json ? JSON.stringify(verdict) : formatVerdict(verdict));
  return verdict.ok ? 0 : 1;
}

async function list(log: AuditLog, flags: AuditFlags): Promise<number> {
  const [{ auditRows }, { entryOf }] = await Promise.all([
    import("../channels/audit-read.js"),
    import("../channels/audit-chain.js"),
  ]);
  const query =
    flags.since === undefined
      ? {}
      : "seq" in flags.since
        ? { afterSeq: flags.since.seq - 1 }
        : { fromTime: flags.since.time };
  let unreadable = 0;
  for await (const row of auditRows(log, query)) {
    let entry: AuditEntry;
    try {
      entry = entryOf(row);
    } catch (error) {
      unreadable += 1;
      console.error(`error: ${(error as Error).message}`);
      continue;
    }
    console.log(flags.json ? JSON.stringify(entry) : formatEntry(entry));
  }
  return unreadable > 0 ? 1 : 0;
}

function since(value: string): Since {
  if (/^\d+$/.test(value)) return { seq: Math.max(1, Number(value)) };
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time)) {
    throw new InvalidArgumentError(
      "give an ISO 8601 time (2025-06-01, 2025-06-01T12:00:00Z) or an entry number (42).",
    );
  }
  return { time: new Date(time).toISOString() };
}

function headOf(value: string): AuditHead {
  const match = /^(\d+):([0-9a-f]{64})$/.exec(value.trim());
  if (!match) {
    throw new InvalidArgumentError(
      "give <seq>:<hash> as `codex-harness audit --head` prints it (e.g. 42:3f9a…, 64 hex digits).",
    );
  }
  return { seq: Number(match[1]), hash: match[2] as string };
}
