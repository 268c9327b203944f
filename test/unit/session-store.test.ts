// Unit tests of the runTurn session records: paths, round-trips, damage, concurrent writes.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { CodexHarnessError } from "../../src/errors.js";
import {
  readSessionRecord,
  type SessionRecord,
  sessionRecordPath,
  writeSessionRecord,
} from "../../src/session/session-store.js";

const made: string[] = [];
after(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function aspHome(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "session-store-test-"));
  made.push(dir);
  return dir;
}

const record = (over: Partial<SessionRecord> = {}): SessionRecord => ({
  externalSessionId: "ext/../session 1",
  harness: "codex",
  harnessSessionId: "thread-1",
  model: "gpt-test",
  createdAt: "2024-01-01T00:00:00.000Z",
  updatedAt: "2024-01-01T00:00:01.000Z",
  ...over,
});

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

function damagedRecord(file: string) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof CodexHarnessError, `a CodexHarnessError, got ${String(error)}`);
    assert.equal(error.code, "invalid_session_record");
    assert.ok(error.message.includes(file), error.message);
    return true;
  };
}

describe("session records", () => {
  it("stores a record under <aspHome>/sessions/<sha256 of the id>.json", () => {
    const home = aspHome();
    const id = "ext/../session 1";
    const file = sessionRecordPath(home, id);
    assert.equal(file, path.join(home, "sessions", `${sha256(id)}.json`));
    assert.match(path.basename(file), /^[0-9a-f]{64}\.json$/);
    // Relative homes are resolved; distinct ids get distinct files.
    assert.equal(
      sessionRecordPath("rel/home", id),
      path.join(path.resolve("rel/home"), "sessions", `${sha256(id)}.json`),
    );
    assert.notEqual(sessionRecordPath(home, "a"), sessionRecordPath(home, "b"));
  });

  it("reads back what it wrote, as mode 0600 JSON", async () => {
    const home = aspHome();
    const written = record();
    await writeSessionRecord(home, written);
    assert.deepEqual(await readSessionRecord(home, written.externalSessionId), written);
    const file = sessionRecordPath(home, written.externalSessionId);
    assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), written);
    if (process.platform !== "win32") assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(path.join(home, "sessions")), [path.basename(file)]);
  });

  it("replaces a record, keeping mode 0600", async () => {
    const home = aspHome();
    await writeSessionRecord(home, record({ harnessSessionId: undefined, model: undefined }));
    const first = await readSessionRecord(home, record().externalSessionId);
    assert.equal(first?.harnessSessionId, undefined);
    const updated = record({ harnessSessionId: "thread-2", updatedAt: "2024-01-02T00:00:00.000Z" });
    await writeSessionRecord(home, updated);
    assert.deepEqual(await readSessionRecord(home, updated.externalSessionId), updated);
    const file = sessionRecordPath(home, updated.externalSessionId);
    if (process.platform !== "win32") assert.equal(statSync(file).mode & 0o777, 0o600);
  });

  it("returns null for a session without a record", async () => {
    const home = aspHome();
    assert.equal(await readSessionRecord(home, "never-seen"), null);
    await writeSessionRecord(home, record({ externalSessionId: "other" }));
    assert.equal(await readSessionRecord(home, "never-seen"), null);
  });

  it("refuses a record file that is not JSON", async () => {
    const home = aspHome();
    const file = sessionRecordPath(home, "s1");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '{"externalSessionId": "s1", "harn');
    await assert.rejects(readSessionRecord(home, "s1"), damagedRecord(file));
  });

  it("refuses JSON that is not a record of this id", async () => {
    const home = aspHome();
    const file = sessionRecordPath(home, "s1");
    mkdirSync(path.dirname(file), { recursive: true });
    const cases: unknown[] = [
      record({ externalSessionId: "s2" }),
      { externalSessionId: "s1" },
      { ...record({ externalSessionId: "s1" }), harnessSessionId: 7 },
      null,
      [],
      "s1",
    ];
    for (const value of cases) {
      writeFileSync(file, JSON.stringify(value));
      await assert.rejects(
        readSessionRecord(home, "s1"),
        damagedRecord(file),
        JSON.stringify(value),
      );
    }
  });

  it("leaves one valid record and no temp files after many concurrent writes", async () => {
    const home = aspHome();
    const records = Array.from({ length: 40 }, (_, index) =>
      record({
        externalSessionId: "busy",
        updatedAt: `2024-01-01T00:00:${String(index % 60).padStart(2, "0")}.000Z`,
      }),
    );
    await Promise.all(records.map((r) => writeSessionRecord(home, r)));
    const read = await readSessionRecord(home, "busy");
    assert.ok(read !== null);
    assert.ok(
      records.some((r) => JSON.stringify(r) === JSON.stringify(read)),
      "the record is one of those written",
    );
    assert.deepEqual(readdirSync(path.join(home, "sessions")), [`${sha256("busy")}.json`]);
  });

  it("reads consistently while writes race", async () => {
    const home = aspHome();
    await writeSessionRecord(home, record({ externalSessionId: "race" }));
    const writes = Array.from({ length: 20 }, (_, index) =>
      writeSessionRecord(home, record({ externalSessionId: "race", model: `m${index}` })),
    );
    const reads = Array.from({ length: 20 }, () => readSessionRecord(home, "race"));
    const results = await Promise.all([...reads, ...writes]);
    for (const result of results.slice(0, 20)) {
      assert.ok(result !== null && result !== undefined);
      assert.equal(result.externalSessionId, "race");
    }
    assert.deepEqual(readdirSync(path.join(home, "sessions")), [`${sha256("race")}.json`]);
  });
});
