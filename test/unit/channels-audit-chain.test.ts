// The audit log's chain: canonical JSON, the entry hash (pinned by an independent computation), and
// the verifier on logs that were edited, deleted from, reordered, rehashed after an edit, and cut
// short (caught only against a recorded head); and the SQLite log appending with its change, or not
// at all.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import {
  canonicalJson,
  chainRow,
  entryHash,
  entryOf,
  recordBody,
} from "../../src/channels/audit-chain.js";
import { verifyLog } from "../../src/channels/audit-read.js";
import { type AuditRecord, type AuditRow, GENESIS } from "../../src/channels/audit-types.js";
import { verifyChain } from "../../src/channels/audit-verify.js";
import type { Interaction } from "../../src/channels/interaction-types.js";
import { SqliteInteractionStore } from "../../src/channels/sqlite-store.js";
import { CodexHarnessError } from "../../src/errors.js";
import { rawSqlite, SQLITE_DRIVERS } from "../support/sqlite-drivers.js";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function record(n: number, extra: Partial<AuditRecord> = {}): AuditRecord {
  return {
    at: new Date(Date.UTC(2025, 5, 1, 10, 0, n)).toISOString(),
    action: "interaction.answered",
    actor: { kind: "person", id: "alice", name: "Alice" },
    surface: "inbox",
    subject: `int_${n}`,
    decision: "accept",
    summary: { kind: "approval_request", command: `make ${n}` },
    ...extra,
  };
}

/** A chain of `count` entries, as a store writes them. */
function chain(count: number): AuditRow[] {
  const rows: AuditRow[] = [];
  let prev = GENESIS;
  for (let seq = 1; seq <= count; seq++) {
    const row = chainRow(seq, prev, record(seq));
    rows.push(row);
    prev = row.hash;
  }
  return rows;
}

/** `row` with a new body (and `at`), its own hash recomputed: an edit that covers its tracks. */
function rehashed(row: AuditRow, body: string): AuditRow {
  const at = (JSON.parse(body) as AuditRecord).at;
  return { ...row, at, body, hash: entryHash(row.seq, row.prev, body) };
}

describe("audit chain: canonical JSON and the entry hash", () => {
  it("sorts keys at every depth, drops undefined members, and keeps arrays in order", () => {
    const a = canonicalJson({ b: 1, a: { d: [3, 1, { z: true, y: null }], c: "x" }, e: undefined });
    const b = canonicalJson({ a: { c: "x", d: [3, 1, { y: null, z: true }] }, b: 1 });
    assert.equal(a, '{"a":{"c":"x","d":[3,1,{"y":null,"z":true}]},"b":1}');
    assert.equal(a, b);
    assert.equal(canonicalJson(["é", "\u2028", 'q"']), '["é","\u2028","q\\""]');
    assert.equal(canonicalJson([undefined]), "[null]");
  });

  it("refuses what JSON cannot hold as it is", () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 1n, () => 1]) {
      assert.throws(
        () => canonicalJson({ bad }),
        (error) => error instanceof CodexHarnessError && error.code === "invalid_input",
      );
    }
  });

  it("hashes <seq>\\n<prev>\\n<canonical record> with SHA-256; the record's key order does not matter", () => {
    const one = record(1);
    const body = recordBody(one);
    const expected = createHash("sha256")
      .update(Buffer.from(`1\n${GENESIS}\n${body}`, "utf8"))
      .digest("hex");
    assert.equal(entryHash(1, GENESIS, body), expected);
    const reordered = Object.fromEntries(Object.entries(one).reverse()) as AuditRecord;
    assert.equal(recordBody(reordered), body);
    // Every field counts: the number, the previous hash, and the record.
    assert.notEqual(entryHash(2, GENESIS, body), expected);
    assert.notEqual(entryHash(1, "1".repeat(64), body), expected);
    assert.notEqual(entryHash(1, GENESIS, recordBody({ ...one, decision: "decline" })), expected);
    const row = chainRow(1, GENESIS, one);
    assert.deepEqual(entryOf(row), { ...one, seq: 1, prev: GENESIS, hash: expected });
  });
});

describe("audit chain: the verifier", () => {
  it("passes an intact log and an empty one, naming the head", () => {
    const rows = chain(5);
    const verdict = verifyChain(rows, {}, { seq: 5, hash: rows[4]?.hash as string });
    assert.deepEqual(verdict, {
      ok: true,
      entries: 5,
      head: { seq: 5, hash: rows[4]?.hash },
      at: rows[4]?.at,
    });
    assert.deepEqual(verifyChain([], {}, { seq: 0, hash: GENESIS }), {
      ok: true,
      entries: 0,
      head: { seq: 0, hash: GENESIS },
    });
  });

  it("names an edited entry by number and time: its content no longer hashes to its hash", () => {
    const rows = chain(5);
    const row = rows[2] as AuditRow;
    rows[2] = { ...row, body: row.body.replace('"accept"', '"decline"') };
    const verdict = verifyChain(rows);
    assert.equal(verdict.ok, false);
    assert.ok(!verdict.ok);
    assert.deepEqual(
      { kind: verdict.problem.kind, seq: verdict.problem.seq, at: verdict.problem.at },
      { kind: "edited", seq: 3, at: row.at },
    );
    assert.match(verdict.problem.message, /^entry 3 \(2025-06-01T10:00:03\.000Z\) was edited/);
    // The time beside the record is covered too: moving an entry in time is an edit.
    const moved = chain(3);
    moved[1] = { ...(moved[1] as AuditRow), at: "2020-01-01T00:00:00.000Z" };
    assert.deepEqual(problemOf(verifyChain(moved)), { kind: "edited", seq: 2 });
  });

  it("names a deleted entry — the number skips — with the times around it", () => {
    const rows = chain(6);
    rows.splice(3, 1);
    const verdict = verifyChain(rows);
    assert.ok(!verdict.ok);
    assert.deepEqual(problemOf(verdict), { kind: "deleted", seq: 4 });
    assert.match(
      verdict.problem.message,
      /^entry 4 is missing \(deleted\): the log goes from entry 3 \(2025-06-01T10:00:03\.000Z\) to entry 5 \(2025-06-01T10:00:05\.000Z\)/,
    );
    // Several, and the first one.
    assert.match(
      (
        verifyChain(chain(6).filter((row) => row.seq < 2 || row.seq > 4)) as {
          problem: { message: string };
        }
      ).problem.message,
      /^entries 2–4 are missing/,
    );
    assert.deepEqual(problemOf(verifyChain(chain(3).slice(1))), { kind: "deleted", seq: 1 });
  });

  it("catches a deleted entry whose successors were renumbered: the next one's previous hash", () => {
    const rows = chain(5);
    rows.splice(2, 1);
    // Renumbered without rehashing: the hash covers the number.
    const renumbered = rows.map((row, index) => ({ ...row, seq: index + 1 }));
    assert.deepEqual(problemOf(verifyChain(renumbered)), { kind: "edited", seq: 3 });
  });

  it("catches reordered entries: numbers swapped, or one numbered again", () => {
    const rows = chain(5);
    const [third, fourth] = [rows[2] as AuditRow, rows[3] as AuditRow];
    rows[2] = { ...fourth, seq: 3 };
    rows[3] = { ...third, seq: 4 };
    assert.deepEqual(problemOf(verifyChain(rows)), { kind: "edited", seq: 3 });
    const again = chain(3);
    again.push({ ...(again[1] as AuditRow) });
    assert.deepEqual(problemOf(verifyChain(again)), { kind: "reordered", seq: 2 });
  });

  it("names an entry edited and rehashed on its own: the next one no longer follows it", () => {
    const rows = chain(5);
    const edited = JSON.parse((rows[1] as AuditRow).body) as AuditRecord;
    rows[1] = rehashed(rows[1] as AuditRow, recordBody({ ...edited, decision: "decline" }));
    const verdict = verifyChain(rows);
    assert.ok(!verdict.ok);
    assert.deepEqual(problemOf(verdict), { kind: "edited", seq: 2 });
    assert.match(verdict.problem.message, /entry 2 \(.*\) was edited and rehashed: entry 3 names/);
    // The first entry's previous hash must be the genesis value.
    const first = chain(2);
    const body = (first[0] as AuditRow).body;
    first[0] = {
      ...(first[0] as AuditRow),
      prev: "f".repeat(64),
      hash: entryHash(1, "f".repeat(64), body),
    };
    assert.deepEqual(problemOf(verifyChain(first)), { kind: "edited", seq: 1 });
  });

  it("catches the last entry edited and rehashed, or the tail cut off, against the store's head", () => {
    const rows = chain(4);
    const head = { seq: 4, hash: (rows[3] as AuditRow).hash };
    const last = JSON.parse((rows[3] as AuditRow).body) as AuditRecord;
    const edited = [
      ...rows.slice(0, 3),
      rehashed(rows[3] as AuditRow, recordBody({ ...last, subject: "x" })),
    ];
    assert.deepEqual(problemOf(verifyChain(edited, {}, head)), { kind: "edited", seq: 4 });
    assert.deepEqual(problemOf(verifyChain(rows.slice(0, 2), {}, head)), {
      kind: "truncated",
      seq: 3,
    });
    // Appended outside the runtime: the head row was not moved.
    assert.deepEqual(
      problemOf(verifyChain(rows, {}, { seq: 3, hash: (rows[2] as AuditRow).hash })),
      {
        kind: "edited",
        seq: 4,
      },
    );
  });

  it("with a recorded head, catches a tail cut off and its head row rewound, and a rewritten tail", () => {
    const rows = chain(6);
    const recorded = { seq: 5, hash: (rows[4] as AuditRow).hash };
    // The log grew since: fine.
    assert.equal(verifyChain(rows, { expectHead: recorded }).ok, true);
    // Cut after 3, the store's head set back to 3: consistent, unless a head was kept elsewhere.
    const cut = rows.slice(0, 3);
    const rewound = { seq: 3, hash: (rows[2] as AuditRow).hash };
    assert.equal(verifyChain(cut, {}, rewound).ok, true);
    const verdict = verifyChain(cut, { expectHead: recorded }, rewound);
    assert.ok(!verdict.ok);
    assert.deepEqual(problemOf(verdict), { kind: "truncated", seq: 4 });
    assert.match(
      verdict.problem.message,
      /entries 4–5 are missing: .* the recorded head is entry 5/,
    );
    // Rewritten from 4 on, every hash recomputed: only the recorded head tells.
    const rewritten = rows.slice(0, 3);
    for (let seq = 4; seq <= 6; seq++) {
      const prev = (rewritten.at(-1) as AuditRow).hash;
      rewritten.push(chainRow(seq, prev, record(seq, { decision: "decline" })));
    }
    const newHead = { seq: 6, hash: (rewritten[5] as AuditRow).hash };
    assert.equal(verifyChain(rewritten, {}, newHead).ok, true);
    assert.deepEqual(problemOf(verifyChain(rewritten, { expectHead: recorded }, newHead)), {
      kind: "rewritten",
      seq: 5,
    });
  });
});

const interactionOf = (id: string): Interaction => ({
  id,
  kind: "approval_request",
  source: { name: "test" },
  title: "Run ls",
  payload: { command: "ls" },
  actions: ["accept", "decline"],
  status: "pending",
  createdAt: "2025-06-01T10:00:00.000Z",
  updatedAt: "2025-06-01T10:00:00.000Z",
  expiresAt: "2025-06-01T10:10:00.000Z",
});

for (const { driver, skip } of SQLITE_DRIVERS) {
  describe(`audit log on SQLite (${driver})`, { skip }, () => {
    async function store(): Promise<SqliteInteractionStore> {
      const dir = mkdtempSync(path.join(os.tmpdir(), "channels-audit-test-"));
      dirs.push(dir);
      return SqliteInteractionStore.open(path.join(dir, "interactions.db"), { driver });
    }

    it("appends with the change, in its transaction: a change that fails records nothing", async () => {
      const db = await store();
      try {
        await db.create(interactionOf("int_1"), record(1, { subject: "int_1" }));
        // The same id again fails on the primary key: neither the change nor its entry stays.
        await assert.rejects(db.create(interactionOf("int_1"), record(2, { subject: "int_1" })));
        // An update that does not apply records nothing either.
        const update = { status: "resolved" as const, at: "2025-06-01T10:00:05.000Z" };
        assert.equal(await db.update("int_1", update, ["delivered"], () => record(3)), undefined);
        assert.ok(await db.update("int_1", update, ["pending"], () => record(4)));
        await db.audit.append(record(5));
        const rows = await db.audit.rows({ limit: 10 });
        assert.deepEqual(
          rows.map((row) => [row.seq, entryOf(row).at]),
          [
            [1, record(1).at],
            [2, record(4).at],
            [3, record(5).at],
          ],
        );
        assert.deepEqual(await verifyLog(db.audit), {
          ok: true,
          entries: 3,
          head: { seq: 3, hash: rows[2]?.hash },
          at: rows[2]?.at,
        });
        assert.deepEqual(
          (await db.audit.rows({ afterSeq: 1, fromTime: record(5).at, limit: 10 })).map(
            (r) => r.seq,
          ),
          [3],
        );
      } finally {
        await db.close();
      }
    });
  });

  describe(`audit log on SQLite (${driver}): its head row`, { skip }, () => {
    it("deleted, stays deleted: appends are refused (store_failed) and the verifier names the mismatch", async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), "channels-audit-test-"));
      dirs.push(dir);
      const file = path.join(dir, "interactions.db");
      let db = await SqliteInteractionStore.open(file, { driver });
      await db.audit.append(record(1));
      await db.audit.append(record(2));
      await db.close();
      const raw = await rawSqlite(file);
      raw.prepare("DELETE FROM audit_head").run();
      raw.close();
      // Opened again, the head row is not made anew (the log is not empty): nothing starts at 1.
      db = await SqliteInteractionStore.open(file, { driver });
      try {
        await assert.rejects(
          db.audit.append(record(3)),
          (error) =>
            error instanceof CodexHarnessError &&
            error.code === "store_failed" &&
            /head row is missing/.test(error.message),
        );
        await assert.rejects(db.create(interactionOf("int_9"), record(3)), /head row is missing/);
        assert.equal(await db.get("int_9"), undefined, "no change without its entry");
        const verdict = await verifyLog(db.audit);
        assert.ok(!verdict.ok);
        assert.match(
          verdict.problem.message,
          /the store's head \(entry 0\) does not match the log/,
        );
      } finally {
        await db.close();
      }
    });
  });
}

function problemOf(
  verdict: ReturnType<typeof verifyChain>,
): { kind: string; seq: number } | undefined {
  return verdict.ok ? undefined : { kind: verdict.problem.kind, seq: verdict.problem.seq };
}
