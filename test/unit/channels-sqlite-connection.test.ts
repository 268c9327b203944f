// The embedded store's SQLite connection on each library: transactions as better-sqlite3 makes
// them (commit, rollback, savepoints, no async work), one file format for both, and node:sqlite
// loaded without Node 22's ExperimentalWarning.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { loadSqlite, type SqliteConnection } from "../../src/channels/sqlite-connection.js";
import { SqliteInteractionStore } from "../../src/channels/sqlite-store.js";
import { SQLITE_DRIVERS } from "../support/sqlite-drivers.js";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dbFile(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "channels-sqlite-test-"));
  dirs.push(dir);
  return path.join(dir, "test.db");
}

const values = (db: SqliteConnection) =>
  (db.prepare("SELECT v FROM t ORDER BY v").all() as { v: string }[]).map((row) => row.v);

for (const { driver, skip } of SQLITE_DRIVERS) {
  describe(`the SQLite connection on ${driver}`, { skip }, () => {
    async function connect(): Promise<SqliteConnection> {
      const db = (await loadSqlite({ driver }))(dbFile());
      db.exec("CREATE TABLE t (v TEXT PRIMARY KEY)");
      return db;
    }

    it("commits what the work wrote and returns its result", async () => {
      const db = await connect();
      const result = db.write(() => {
        db.prepare("INSERT INTO t (v) VALUES (?)").run("a");
        return db.prepare("INSERT INTO t (v) VALUES (?)").run("b").changes;
      });
      assert.equal(Number(result), 1);
      assert.deepEqual(values(db), ["a", "b"]);
      assert.equal(db.driver, driver);
      db.close();
      db.close(); // closing twice is harmless
    });

    it("rolls everything back when the work throws, and the next write works", async () => {
      const db = await connect();
      assert.throws(
        () =>
          db.write(() => {
            db.prepare("INSERT INTO t (v) VALUES (?)").run("a");
            db.prepare("INSERT INTO t (v) VALUES (?)").run("a"); // the primary key refuses it
          }),
        /UNIQUE constraint failed/,
      );
      assert.deepEqual(values(db), []);
      db.write(() => db.prepare("INSERT INTO t (v) VALUES (?)").run("c"));
      assert.deepEqual(values(db), ["c"]);
      db.close();
    });

    it("makes a write inside a write a savepoint: its failure undoes only itself", async () => {
      const db = await connect();
      db.write(() => {
        db.prepare("INSERT INTO t (v) VALUES (?)").run("outer");
        assert.throws(() =>
          db.write(() => {
            db.prepare("INSERT INTO t (v) VALUES (?)").run("inner");
            throw new Error("inner fails");
          }),
        );
        db.write(() => db.prepare("INSERT INTO t (v) VALUES (?)").run("second"));
      });
      assert.deepEqual(values(db), ["outer", "second"]);
      db.close();
    });

    it("refuses asynchronous work and keeps none of it", async () => {
      const db = await connect();
      assert.throws(
        () =>
          db.write(() => {
            db.prepare("INSERT INTO t (v) VALUES (?)").run("a");
            return Promise.resolve();
          }),
        TypeError,
      );
      assert.deepEqual(values(db), []);
      db.close();
    });

    it("prepares a statement once per SQL text", async () => {
      const db = await connect();
      assert.equal(db.prepare("SELECT 1"), db.prepare("SELECT 1"));
      db.close();
    });
  });
}

describe("one file for both libraries", () => {
  const better = SQLITE_DRIVERS.find((entry) => entry.driver === "better-sqlite3");
  it("a store written on one opens on the other with everything in it", async (t) => {
    if (better?.skip) return t.skip(better.skip);
    const file = dbFile();
    const at = "2025-01-01T00:00:00.000Z";
    const first = await SqliteInteractionStore.open(file, { driver: "better-sqlite3" });
    await first.create({
      id: "int_1",
      kind: "approval_request",
      source: { name: "test" },
      title: "Run ls",
      payload: { command: "ls" },
      actions: ["accept", "decline"],
      status: "pending",
      createdAt: at,
      updatedAt: at,
      expiresAt: "2025-01-01T01:00:00.000Z",
    });
    await first.close();
    const second = await SqliteInteractionStore.open(file, { driver: "node:sqlite" });
    assert.equal((await second.get("int_1"))?.title, "Run ls");
    assert.equal((await second.update("int_1", { status: "resolved", at }, ["pending"]))?.seq, 2);
    await second.close();
    const third = await SqliteInteractionStore.open(file, { driver: "better-sqlite3" });
    assert.equal((await third.get("int_1"))?.status, "resolved");
    await third.close();
  });
});

describe("node:sqlite without its ExperimentalWarning", () => {
  it("is loaded quietly; other warnings, and later ones, still reach stderr", () => {
    const moduleUrl = pathToFileURL(
      path.join(import.meta.dirname, "..", "..", "src", "channels", "sqlite-connection.js"),
    ).href;
    const child = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { loadSqlite } = await import(${JSON.stringify(moduleUrl)});
         const emitWarning = process.emitWarning;
         const db = (await loadSqlite())(":memory:");
         console.log(JSON.stringify({ driver: db.driver, restored: process.emitWarning === emitWarning }));
         db.close();
         process.emitWarning("another experiment", "ExperimentalWarning");`,
      ],
      { encoding: "utf8" },
    );
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout), { driver: "node:sqlite", restored: true });
    assert.doesNotMatch(child.stderr, /SQLite is an experimental feature/);
    assert.match(child.stderr, /ExperimentalWarning: another experiment/);
  });
});
