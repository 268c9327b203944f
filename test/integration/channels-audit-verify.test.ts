// Tampering with the audit log, caught: `codex-harness audit --verify` on both stores (SQLite in
// the data dir, a fresh database on a real PostgreSQL) passes an intact log and names the entry
// edited, edited and rehashed, or deleted with SQL; a tail cut off shows against a recorded head;
// and two runtimes appending at once on one PostgreSQL keep one unbroken chain.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { entryHash } from "../../src/channels/audit-chain.js";
import type { ChannelsServer } from "../../src/channels/http-server.js";
import { approval, audit, auditFixtures, call, entries } from "../support/audit-places.js";

const { missing, place, start } = auditFixtures("channels-audit-verify-test-");

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`audit --verify, on ${kind}`, { skip: kind === "postgres" && missing }, () => {
    it("passes an intact log and names a row edited, rehashed or deleted with SQL", async () => {
      const at = await place(kind);
      const server = await start(at);
      try {
        for (const command of ["a", "b", "c"]) {
          const asked = await server.runtime.create(approval(command));
          await server.runtime.respond(asked.id, { action: "accept" });
        }
        const log = await entries(at);
        assert.equal(log.length, 6);
        assert.equal((await audit(at, "--verify")).code, 0);
        const head = (await audit(at, "--head")).stdout.trim();

        // Edited: an accept turned into a decline.
        const [row] = await at.sql(`SELECT body FROM ${at.table} WHERE seq = 4`);
        const body = String(row?.body);
        await at.sql(
          `UPDATE ${at.table} SET body = ? WHERE seq = 4`,
          body.replace('"accept"', '"decline"'),
        );
        const edited = await audit(at, "--verify");
        assert.equal(edited.code, 1);
        assert.equal(
          edited.stdout,
          `audit log NOT intact: entry 4 (${log[3]?.at}) was edited: its content does not match its hash\n`,
        );
        const json = await audit(at, "--verify", "--json");
        assert.equal(json.code, 1);
        assert.deepEqual(JSON.parse(json.stdout).problem, {
          kind: "edited",
          seq: 4,
          at: log[3]?.at,
          message: `entry 4 (${log[3]?.at}) was edited: its content does not match its hash`,
        });
        // Edited and given a new hash of its own: the next entry no longer follows it.
        const forged = body.replace('"accept"', '"decline"');
        const forgedHash = entryHash(4, String(log[3]?.prev), forged);
        await at.sql(`UPDATE ${at.table} SET body = ?, hash = ? WHERE seq = 4`, forged, forgedHash);
        const rehashed = await audit(at, "--verify");
        assert.equal(rehashed.code, 1);
        assert.equal(
          rehashed.stdout,
          `audit log NOT intact: entry 4 (${log[3]?.at}) was edited and rehashed: entry 5 names another hash before it\n`,
        );
        await at.sql(`UPDATE ${at.table} SET body = ?, hash = ? WHERE seq = 4`, body, log[3]?.hash);
        assert.equal((await audit(at, "--verify")).code, 0);

        // Deleted: the number skips, and the next entry names another hash before it.
        const [gone] = await at.sql(`SELECT * FROM ${at.table} WHERE seq = 2`);
        await at.sql(`DELETE FROM ${at.table} WHERE seq = 2`);
        const deleted = await audit(at, "--verify");
        assert.equal(deleted.code, 1);
        assert.equal(
          deleted.stdout,
          `audit log NOT intact: entry 2 is missing (deleted): the log goes from entry 1 (${log[0]?.at}) to entry 3 (${log[2]?.at})\n`,
        );
        const g = gone as Record<string, unknown>;
        await at.sql(
          `INSERT INTO ${at.table} (seq, at, body, prev, hash) VALUES (?, ?, ?, ?, ?)`,
          g.seq,
          g.at,
          g.body,
          g.prev,
          g.hash,
        );
        assert.equal((await audit(at, "--verify")).code, 0);

        // The last two cut off, the head row set back: only the head recorded elsewhere tells.
        await at.sql(`DELETE FROM ${at.table} WHERE seq > 4`);
        await at.sql(`UPDATE ${at.table}_head SET seq = 4, hash = ? WHERE id = 1`, log[3]?.hash);
        assert.equal((await audit(at, "--verify")).code, 0);
        const cut = await audit(at, "--verify", "--expect-head", head);
        assert.equal(cut.code, 1);
        assert.match(
          cut.stdout,
          /entries 5–6 are missing: the log ends at entry 4 .* the recorded head is entry 6/,
        );
        // And the runtime appends on from there: still caught.
        await server.runtime.create(approval("d"));
        assert.equal((await audit(at, "--verify", "--expect-head", head)).code, 1);
      } finally {
        await at.close();
      }
    });
  });
}

describe("the audit log of two runtimes on one PostgreSQL", { skip: missing }, () => {
  it("appending at once from both keeps one unbroken chain", async () => {
    const at = await place("postgres");
    const [a, b] = [await start(at), await start(at)];
    try {
      const work = async (server: ChannelsServer, worker: number) => {
        for (let n = 0; n < 15; n++) {
          const asked = await call(
            server,
            server.token,
            "POST",
            "/v1/interactions",
            approval(`job ${worker}.${n}`),
          );
          assert.equal(asked.status, 201, JSON.stringify(asked.body));
          const route = `/v1/interactions/${asked.body.id}/respond`;
          const answered = await call(server, server.token, "POST", route, { action: "accept" });
          assert.equal(answered.status, 200, JSON.stringify(answered.body));
        }
      };
      // Eight clients, four on each runtime, and people changes on both meanwhile.
      await Promise.all([
        ...[0, 1, 2, 3].map((worker) => work(a, worker)),
        ...[4, 5, 6, 7].map((worker) => work(b, worker)),
        a.people.add({ id: "p-a" }).then(() => a.people.issueToken("p-a", "read")),
        b.people.add({ id: "p-b" }).then(() => b.people.issueToken("p-b", "read")),
      ]);
      const log = await entries(at);
      assert.equal(log.length, 8 * 15 * 2 + 4);
      assert.deepEqual(
        log.map((entry) => entry.seq),
        log.map((_, index) => index + 1),
      );
      const verified = await audit(at, "--verify");
      assert.equal(verified.code, 0, verified.stdout);
      assert.match(verified.stdout, /^audit log intact: 244 entries/);
    } finally {
      await at.close();
    }
  });
});
