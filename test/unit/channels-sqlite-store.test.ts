// Unit tests of the embedded interaction store (SQLite on a temp file), on each SQLite library.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import type { Interaction, InteractionStatus } from "../../src/channels/interaction-types.js";
import type { SqliteDriver } from "../../src/channels/sqlite-connection.js";
import { SqliteInteractionStore } from "../../src/channels/sqlite-store.js";
import { SQLITE_DRIVERS } from "../support/sqlite-drivers.js";

const made: string[] = [];
const open: SqliteInteractionStore[] = [];
after(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
});

function dbFile(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "channels-store-test-"));
  made.push(dir);
  return path.join(dir, "nested", "interactions.db");
}

async function openStore(file: string, driver: SqliteDriver): Promise<SqliteInteractionStore> {
  const store = await SqliteInteractionStore.open(file, { driver });
  open.push(store);
  return store;
}

let counter = 0;
function interaction(over: Partial<Interaction> = {}): Interaction {
  counter += 1;
  const at = new Date(Date.UTC(2024, 0, 1, 0, 0, counter)).toISOString();
  return {
    id: `int_${counter}`,
    kind: "approval_request",
    source: { name: "test" },
    codex: { threadId: "thr_a", requestId: String(counter) },
    title: `Run job ${counter}`,
    payload: { command: `job ${counter}` },
    actions: ["accept", "decline", "cancel"],
    status: "pending",
    createdAt: at,
    updatedAt: at,
    expiresAt: "2024-01-01T01:00:00.000Z",
    ...over,
  };
}

const resolveUpdate = (at = "2024-01-01T00:30:00.000Z") => ({
  status: "resolved" as InteractionStatus,
  response: { action: "accept" as const, respondedAt: at },
  at,
});

for (const { driver, skip } of SQLITE_DRIVERS) {
  describe(`SqliteInteractionStore on ${driver}`, { skip }, () => {
    it("runs on the library it was given", async () => {
      assert.equal((await openStore(dbFile(), driver)).driver, driver);
    });

    it("creates the file's folder, stores an interaction and returns its creation change", async () => {
      const store = await openStore(dbFile(), driver);
      const item = interaction({ kind: "user_input_request", routing: { channel: "#ops" } });
      const change = await store.create(item);
      assert.equal(change.type, "user_input_request");
      assert.ok(Number.isInteger(change.seq) && change.seq > 0, `seq ${change.seq}`);
      assert.deepEqual(change.interaction, item);
      assert.deepEqual(await store.get(item.id), item);
      assert.equal(await store.get("int_missing"), undefined);
    });

    it("refuses a second interaction with the same id", async () => {
      const store = await openStore(dbFile(), driver);
      const item = interaction();
      await store.create(item);
      await assert.rejects(store.create({ ...item, title: "again" }));
      assert.equal((await store.get(item.id))?.title, item.title);
      assert.equal((await store.changesSince(0, 100)).length, 1);
    });

    it("lists newest first, with status, kind and thread filters and a limit", async () => {
      const store = await openStore(dbFile(), driver);
      const a = interaction({ codex: { threadId: "thr_a" } });
      const b = interaction({ kind: "permissions_request", codex: { threadId: "thr_b" } });
      const c = interaction({ codex: { threadId: "thr_b" } });
      const d = interaction({ kind: "elicitation_request" });
      delete d.codex;
      for (const item of [a, b, c, d]) await store.create(item);
      await store.update(c.id, resolveUpdate(), ["pending"]);

      const ids = (list: Interaction[]) => list.map((item) => item.id);
      assert.deepEqual(ids(await store.list({})), [d.id, c.id, b.id, a.id]);
      assert.deepEqual(ids(await store.list({ limit: 2 })), [d.id, c.id]);
      assert.deepEqual(ids(await store.list({ status: ["pending"] })), [d.id, b.id, a.id]);
      assert.deepEqual(ids(await store.list({ status: ["resolved"] })), [c.id]);
      assert.deepEqual(ids(await store.list({ status: ["resolved", "cancelled"] })), [c.id]);
      assert.deepEqual(ids(await store.list({ kind: ["approval_request"] })), [c.id, a.id]);
      assert.deepEqual(
        ids(await store.list({ kind: ["permissions_request", "elicitation_request"] })),
        [d.id, b.id],
      );
      assert.deepEqual(ids(await store.list({ threadId: "thr_b" })), [c.id, b.id]);
      assert.deepEqual(
        ids(
          await store.list({
            threadId: "thr_b",
            status: ["pending"],
            kind: ["permissions_request"],
          }),
        ),
        [b.id],
      );
      assert.deepEqual(ids(await store.list({ threadId: "thr_none" })), []);
      assert.equal((await store.list({ status: ["resolved"] }))[0]?.status, "resolved");
    });

    it("orders interactions created in the same instant by insertion, newest first", async () => {
      const store = await openStore(dbFile(), driver);
      const at = "2024-02-01T00:00:00.000Z";
      const first = interaction({ createdAt: at, updatedAt: at });
      const second = interaction({ createdAt: at, updatedAt: at });
      await store.create(first);
      await store.create(second);
      assert.deepEqual(
        (await store.list({})).map((item) => item.id),
        [second.id, first.id],
      );
    });

    it("updates only from the listed statuses", async () => {
      const store = await openStore(dbFile(), driver);
      const item = interaction();
      await store.create(item);

      const delivered = await store.update(
        item.id,
        { status: "delivered", at: "2024-01-01T00:10:00.000Z" },
        ["pending"],
      );
      assert.equal(delivered?.type, "delivered");
      assert.equal(delivered?.interaction.status, "delivered");
      assert.equal(delivered?.interaction.updatedAt, "2024-01-01T00:10:00.000Z");
      assert.equal(delivered?.interaction.createdAt, item.createdAt);

      // Not pending any more: a second "delivered" does not apply.
      assert.equal(
        await store.update(item.id, { status: "delivered", at: "2024-01-01T00:11:00.000Z" }, [
          "pending",
        ]),
        undefined,
      );
      assert.equal((await store.get(item.id))?.updatedAt, "2024-01-01T00:10:00.000Z");

      const resolved = await store.update(item.id, resolveUpdate(), ["pending", "delivered"]);
      assert.equal(resolved?.type, "resolved");
      assert.deepEqual(resolved?.interaction.response, {
        action: "accept",
        respondedAt: "2024-01-01T00:30:00.000Z",
      });
      assert.deepEqual(await store.get(item.id), resolved?.interaction);

      const cancel = {
        status: "cancelled" as const,
        end: { reason: "cancelled", at: "2024-01-01T00:40:00.000Z" },
        at: "2024-01-01T00:40:00.000Z",
      };
      assert.equal(await store.update(item.id, cancel, ["pending", "delivered"]), undefined);
      const stored = await store.get(item.id);
      assert.equal(stored?.status, "resolved");
      assert.equal(stored?.end, undefined);
      assert.equal(await store.update("int_missing", cancel, ["pending"]), undefined);
      // The status column follows the body: the list filter sees the new status.
      assert.deepEqual(
        (await store.list({ status: ["resolved"] })).map((x) => x.id),
        [item.id],
      );
      assert.deepEqual(await store.list({ status: ["pending", "delivered"] }), []);
    });

    it("records every change, numbered in order, and pages through them", async () => {
      const store = await openStore(dbFile(), driver);
      const a = interaction();
      const b = interaction({ kind: "elicitation_request" });
      const created = await store.create(a);
      await store.create(b);
      await store.update(a.id, { status: "delivered", at: "2024-01-01T00:10:00.000Z" }, [
        "pending",
      ]);
      await store.update(b.id, resolveUpdate(), ["pending"]);
      await store.update(
        a.id,
        {
          status: "errored",
          end: { reason: "timeout", at: "2024-01-01T00:50:00.000Z" },
          at: "2024-01-01T00:50:00.000Z",
        },
        ["pending", "delivered"],
      );
      // A refused update records nothing.
      await store.update(b.id, resolveUpdate(), ["pending"]);

      const all = await store.changesSince(0, 100);
      assert.deepEqual(
        all.map((change) => [change.type, change.interaction.id]),
        [
          ["approval_request", a.id],
          ["elicitation_request", b.id],
          ["delivered", a.id],
          ["resolved", b.id],
          ["errored", a.id],
        ],
      );
      assert.equal(all[0]?.seq, created.seq);
      for (let i = 1; i < all.length; i += 1) {
        assert.ok((all[i]?.seq ?? 0) > (all[i - 1]?.seq ?? 0), "seq increases");
      }
      // Each change carries the interaction as it was then.
      assert.equal(all[2]?.interaction.status, "delivered");
      assert.equal(all[4]?.interaction.status, "errored");
      assert.equal(all[4]?.interaction.end?.reason, "timeout");

      const second = all[1]?.seq ?? -1;
      assert.deepEqual(
        (await store.changesSince(second, 100)).map((change) => change.seq),
        all.slice(2).map((change) => change.seq),
      );
      assert.deepEqual(
        (await store.changesSince(second, 2)).map((change) => change.seq),
        all.slice(2, 4).map((change) => change.seq),
      );
      assert.deepEqual(await store.changesSince(all.at(-1)?.seq ?? 0, 100), []);
    });

    it("lists open interactions past their deadline as expired", async () => {
      const store = await openStore(dbFile(), driver);
      const early = interaction({ expiresAt: "2024-01-01T00:05:00.000Z" });
      const late = interaction({ expiresAt: "2024-01-01T02:00:00.000Z" });
      const deliveredEarly = interaction({ expiresAt: "2024-01-01T00:06:00.000Z" });
      const resolvedEarly = interaction({ expiresAt: "2024-01-01T00:07:00.000Z" });
      for (const item of [early, late, deliveredEarly, resolvedEarly]) await store.create(item);
      await store.update(
        deliveredEarly.id,
        { status: "delivered", at: "2024-01-01T00:01:00.000Z" },
        ["pending"],
      );
      await store.update(resolvedEarly.id, resolveUpdate("2024-01-01T00:02:00.000Z"), ["pending"]);

      const ids = async (now: string) => (await store.expired(now)).map((item) => item.id).sort();
      assert.deepEqual(await ids("2024-01-01T00:00:00.000Z"), []);
      // Strictly before `now`: an interaction expiring at this instant is not yet expired.
      assert.deepEqual(await ids("2024-01-01T00:05:00.000Z"), []);
      assert.deepEqual(await ids("2024-01-01T00:30:00.000Z"), [early.id, deliveredEarly.id].sort());
      assert.deepEqual(
        await ids("2024-01-01T03:00:00.000Z"),
        [early.id, late.id, deliveredEarly.id].sort(),
      );
    });

    it("keeps interactions and changes across closing and reopening the file", async () => {
      const file = dbFile();
      const first = await SqliteInteractionStore.open(file, { driver });
      const item = interaction();
      await first.create(item);
      const resolved = await first.update(item.id, resolveUpdate(), ["pending"]);
      const pending = interaction({ kind: "permissions_request" });
      await first.create(pending);
      await first.close();
      await first.close(); // closing twice is harmless

      const second = await openStore(file, driver);
      assert.deepEqual(await second.get(item.id), resolved?.interaction);
      assert.deepEqual(await second.get(pending.id), pending);
      assert.deepEqual(
        (await second.list({})).map((x) => x.id),
        [pending.id, item.id],
      );
      const changes = await second.changesSince(0, 100);
      assert.deepEqual(
        changes.map((change) => change.type),
        ["approval_request", "resolved", "permissions_request"],
      );
      // Numbering goes on after the reopen.
      const next = await second.update(pending.id, resolveUpdate(), ["pending"]);
      assert.ok((next?.seq ?? 0) > (changes.at(-1)?.seq ?? Number.POSITIVE_INFINITY));
    });

    it("lets exactly one of two connections on one file win a racing update", async () => {
      const file = dbFile();
      const one = await openStore(file, driver);
      const two = await openStore(file, driver);
      for (let round = 0; round < 20; round += 1) {
        const item = interaction();
        await one.create(item);
        assert.deepEqual(await two.get(item.id), item, "the second connection sees it");
        const results = await Promise.all([
          one.update(
            item.id,
            {
              status: "resolved",
              response: { action: "accept", respondedAt: "2024-01-01T00:20:00.000Z" },
              at: "2024-01-01T00:20:00.000Z",
            },
            ["pending"],
          ),
          two.update(
            item.id,
            {
              status: "cancelled",
              end: { reason: "cancelled", at: "2024-01-01T00:20:00.000Z" },
              at: "2024-01-01T00:20:00.000Z",
            },
            ["pending"],
          ),
        ]);
        const winners = results.filter((result) => result !== undefined);
        assert.equal(winners.length, 1, `round ${round}: exactly one update applies`);
        const stored = await two.get(item.id);
        assert.equal(stored?.status, winners[0]?.interaction.status);
        assert.deepEqual(await one.get(item.id), stored);
      }
      const types = (await one.changesSince(0, 1_000)).map((change) => change.type);
      assert.equal(types.filter((type) => type === "approval_request").length, 20);
      assert.equal(types.filter((type) => type === "resolved" || type === "cancelled").length, 20);
    });

    it("lets exactly one of two processes' connections win, under real contention", async () => {
      const file = dbFile();
      const store = await openStore(file, driver);
      const ids: string[] = [];
      for (let i = 0; i < 200; i += 1) {
        const item = interaction();
        await store.create(item);
        ids.push(item.id);
      }
      const moduleUrl = new URL("../../src/channels/sqlite-store.js", import.meta.url).href;
      // Each worker opens its own connection, waits for the start signal, then tries every id.
      const code = `
      const { workerData, parentPort } = require("node:worker_threads");
      (async () => {
        const { SqliteInteractionStore } = await import(workerData.moduleUrl);
        const store = await SqliteInteractionStore.open(workerData.file, {
          driver: workerData.driver,
        });
        const gate = new Int32Array(workerData.gate);
        Atomics.add(gate, 1, 1);
        Atomics.wait(gate, 0, 0);
        const won = [];
        for (const id of workerData.ids) {
          const at = new Date().toISOString();
          const change = await store.update(
            id,
            { status: workerData.status, end: { reason: workerData.status, at }, at },
            ["pending"],
          );
          if (change) won.push(id);
        }
        await store.close();
        parentPort.postMessage(won);
      })();
    `;
      const gate = new SharedArrayBuffer(8);
      const view = new Int32Array(gate);
      const run = (status: InteractionStatus) =>
        new Promise<string[]>((resolve, reject) => {
          const worker = new Worker(code, {
            eval: true,
            workerData: { moduleUrl, file, gate, ids, status, driver },
          });
          worker.once("message", resolve);
          worker.once("error", reject);
          worker.once("exit", (exitCode) => {
            if (exitCode !== 0) reject(new Error(`worker exited with ${exitCode}`));
          });
        });
      const results = Promise.all([run("cancelled"), run("errored")]);
      while (Atomics.load(view, 1) < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      Atomics.store(view, 0, 1);
      Atomics.notify(view, 0);
      const [first, second] = await results;
      assert.ok(first && second);
      assert.equal(first.length + second.length, ids.length, "every id won exactly once in all");
      const overlap = first.filter((id) => second.includes(id));
      assert.deepEqual(overlap, [], "no id won twice");
      for (const id of ids) {
        const stored = await store.get(id);
        const expected = first.includes(id) ? "cancelled" : "errored";
        assert.equal(stored?.status, expected, id);
      }
      const endings = (await store.changesSince(0, 10_000)).filter(
        (change) => change.type === "cancelled" || change.type === "errored",
      );
      assert.equal(endings.length, ids.length, "one ending change per interaction");
    });
  });
}
