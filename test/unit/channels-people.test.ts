// People, programs and their tokens: the token format, its hash, scopes and ids, and the rules of
// `People` on the real embedded store (SQLite on a temp file).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, describe, it } from "node:test";
import { People } from "../../src/channels/people.js";
import {
  hashSecret,
  mintToken,
  parseToken,
  secretMatches,
  TOKEN_PREFIX,
} from "../../src/channels/people-tokens.js";
import { checkId, parseScopes, SCOPES } from "../../src/channels/people-types.js";
import type { SqliteDriver } from "../../src/channels/sqlite-connection.js";
import { SqliteInteractionStore } from "../../src/channels/sqlite-store.js";
import { CodexHarnessError } from "../../src/errors.js";
import { rawSqlite, SQLITE_DRIVERS } from "../support/sqlite-drivers.js";

const dirs: string[] = [];
const stores: SqliteInteractionStore[] = [];
after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function people(
  driver: SqliteDriver,
  clock?: () => Date,
): Promise<{ people: People; file: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "channels-people-test-"));
  dirs.push(dir);
  const file = path.join(dir, "interactions.db");
  const store = await SqliteInteractionStore.open(file, { driver });
  stores.push(store);
  return { people: new People(store.people, { now: clock }), file };
}

function refused(code: string, pattern: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof CodexHarnessError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    return true;
  };
}

describe("people tokens: format and hash", () => {
  it("is chp_<16 hex id>_<43 base64url secret>, and parses back into its id and secret", () => {
    const minted = mintToken();
    assert.match(minted.token, /^chp_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    assert.ok(minted.token.startsWith(TOKEN_PREFIX));
    const parsed = parseToken(minted.token);
    assert.equal(parsed?.id, minted.id);
    assert.equal(minted.token, `chp_${parsed?.id}_${parsed?.secret}`);
    // 43 base64url characters are 32 bytes: 256 random bits.
    assert.equal(Buffer.from(parsed?.secret ?? "", "base64url").length, 32);
    assert.notEqual(mintToken().token, minted.token);
  });

  it("stores the secret's SHA-256 only, which is not the token nor the secret", () => {
    const minted = mintToken();
    const secret = parseToken(minted.token)?.secret ?? "";
    assert.equal(minted.hash, createHash("sha256").update(secret).digest("hex"));
    assert.equal(minted.hash, hashSecret(secret));
    assert.doesNotMatch(minted.hash, new RegExp(secret.replace(/[-_]/g, ".")));
  });

  it("matches the right secret only; an unknown token (no stored hash) never matches", () => {
    const minted = mintToken();
    const secret = parseToken(minted.token)?.secret ?? "";
    assert.equal(secretMatches(secret, minted.hash), true);
    // Another last character (a secret may end in "A" itself: 1 in 64).
    const other = secret.endsWith("A") ? "B" : "A";
    assert.equal(secretMatches(`${secret.slice(0, -1)}${other}`, minted.hash), false);
    assert.equal(secretMatches(secret, undefined), false);
    // Even a secret whose hash happens to be compared with the placeholder.
    assert.equal(secretMatches("", undefined), false);
  });

  it("refuses strings that are not tokens of this form", () => {
    const { token } = mintToken();
    for (const bad of [
      "",
      "chp_",
      token.slice(0, -1),
      `${token}x`,
      token.replace("chp_", "chq_"),
      token.toUpperCase(),
      ` ${token}`,
      "k".repeat(43),
    ]) {
      assert.equal(parseToken(bad), undefined, bad);
    }
  });
});

describe("scopes and ids", () => {
  it("reads scopes from a comma list or a list, in a fixed order, each once", () => {
    assert.deepEqual(parseScopes("answer,read"), ["read", "answer"]);
    assert.deepEqual(parseScopes(["admin", "read, read", "operate"]), ["read", "operate", "admin"]);
    assert.deepEqual(parseScopes(SCOPES.join(",")), [...SCOPES]);
    assert.throws(
      () => parseScopes("read,write"),
      refused("invalid_input", /"write".*read, answer/),
    );
    assert.throws(() => parseScopes(" , "), refused("invalid_input", /at least one scope/));
  });

  it("takes lowercase ids, never admin, and no platform ids (with a colon)", () => {
    assert.equal(checkId("alice", "person"), "alice");
    assert.equal(checkId("release-bot.2", "person"), "release-bot.2");
    for (const bad of ["Alice", "", "-x", "slack:U1", "a b", "x".repeat(65)]) {
      assert.throws(() => checkId(bad, "person"), refused("invalid_input", /lowercase/), bad);
    }
    assert.throws(() => checkId("admin", "person"), refused("invalid_input", /data directory/));
    assert.equal(checkId("admin", "group"), "admin");
  });
});

for (const { driver, skip } of SQLITE_DRIVERS) {
  describe(`People on the SQLite store (${driver})`, { skip }, () => {
    it("adds people and programs with their groups; an id is taken once", async () => {
      const at = new Date("2025-03-01T10:00:00.000Z");
      const { people: all } = await people(driver, () => at);
      const alice = await all.add({
        id: "alice",
        name: " Alice Liddell ",
        groups: ["release", "ops", "release"],
      });
      assert.deepEqual(alice, {
        id: "alice",
        kind: "person",
        name: "Alice Liddell",
        groups: ["ops", "release"],
        createdAt: at.toISOString(),
      });
      await all.add({ id: "ci", kind: "program" });
      assert.deepEqual(await all.get("alice"), alice);
      assert.deepEqual(
        (await all.list()).map((p) => [p.id, p.kind, p.name, p.groups]),
        [
          ["alice", "person", "Alice Liddell", ["ops", "release"]],
          ["ci", "program", "ci", []],
        ],
      );
      await assert.rejects(all.add({ id: "alice" }), refused("conflict", /already.*"alice"/));
      await assert.rejects(
        all.add({ id: "bob", groups: ["Ops"] }),
        refused("invalid_input", /group id/),
      );
      assert.equal(await all.get("bob"), undefined);
    });

    it("issues a token that authenticates as its person, with its scopes; the store keeps only the hash", async () => {
      const { people: all, file } = await people(driver);
      await all.add({ id: "alice", name: "Alice", groups: ["release"] });
      const { token, record } = await all.issueToken("alice", "answer,read");
      assert.deepEqual(record.scopes, ["read", "answer"]);
      assert.equal(record.personId, "alice");
      assert.equal(record.revokedAt, undefined);
      assert.deepEqual(await all.authenticate(token), {
        kind: "person",
        id: "alice",
        name: "Alice",
        groups: ["release"],
        scopes: ["read", "answer"],
        tokenId: record.id,
      });
      // Neither the token nor its secret is in the database; its hash is.
      const secret = parseToken(token)?.secret ?? "";
      const db = await rawSqlite(file);
      try {
        const rows = JSON.stringify(db.prepare("SELECT * FROM tokens").all());
        assert.ok(!rows.includes(secret));
        assert.ok(rows.includes(hashSecret(secret)));
      } finally {
        db.close();
      }
      assert.ok(!readFileSync(file).includes(secret));
      // A wrong secret with the right id, and strangers' strings, are nobody.
      const wrong = `${token.slice(0, -2)}${token.endsWith("AA") ? "BB" : "AA"}`;
      assert.equal(await all.authenticate(wrong), undefined);
      assert.equal(await all.authenticate(mintToken().token), undefined);
      assert.equal(await all.authenticate("not-a-token"), undefined);
    });

    it("refuses a revoked token from then on, and keeps the record of it", async () => {
      const times = [new Date("2025-03-01T10:00:00.000Z"), new Date("2025-03-02T10:00:00.000Z")];
      let now = times[0] as Date;
      const { people: all } = await people(driver, () => now);
      await all.add({ id: "bot", kind: "program" });
      const first = await all.issueToken("bot", ["create", "read"]);
      const second = await all.issueToken("bot", ["read"]);
      assert.equal((await all.authenticate(first.token))?.kind, "program");
      now = times[1] as Date;
      const revoked = await all.revoke(first.record.id);
      assert.equal(revoked.revokedAt, times[1]?.toISOString());
      assert.equal(await all.authenticate(first.token), undefined);
      assert.equal((await all.authenticate(second.token))?.id, "bot");
      // Revoking again keeps the first time.
      now = new Date("2025-03-03T10:00:00.000Z");
      assert.equal((await all.revoke(first.record.id)).revokedAt, times[1]?.toISOString());
      assert.deepEqual(
        (await all.tokens("bot")).map((t) => [t.id, t.revokedAt ?? null]),
        [
          [first.record.id, times[1]?.toISOString()],
          [second.record.id, null],
        ],
      );
      await assert.rejects(all.revoke("0123456789abcdef"), refused("not_found", /no token/));
    });

    it("removes a person with their tokens; no token for nobody", async () => {
      const { people: all } = await people(driver);
      await all.add({ id: "carol", groups: ["ops"] });
      const { token } = await all.issueToken("carol", "read");
      await all.remove("carol");
      assert.equal(await all.authenticate(token), undefined);
      assert.deepEqual(await all.tokens(), []);
      assert.deepEqual(await all.list(), []);
      await assert.rejects(all.remove("carol"), refused("not_found", /people add carol/));
      await assert.rejects(all.issueToken("carol", "read"), refused("not_found", /"carol"/));
      await assert.rejects(all.issueToken("dave", "fly"), refused("invalid_input", /"fly"/));
      // Taken again, the id starts afresh: the old token stays dead.
      await all.add({ id: "carol" });
      assert.equal(await all.authenticate(token), undefined);
      assert.deepEqual((await all.get("carol"))?.groups, []);
    });
  });
}
