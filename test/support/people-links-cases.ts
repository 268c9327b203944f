// The cases of chat users linked to people, run on each store: the SQLite store in a unit test,
// PostgreSQL in an integration test. Each case gets a fresh `People` on the store and its audit log.
import assert from "node:assert/strict";
import { verifyLog } from "../../src/channels/audit-read.js";
import type { AuditLog, AuditRecord } from "../../src/channels/audit-types.js";
import type { People } from "../../src/channels/people.js";
import { CodexHarnessError } from "../../src/errors.js";

/** What a case works on: the people of a store with nobody in it yet, and the store's audit log. */
export interface LinkPlace {
  people: People;
  audit: AuditLog;
}

function refused(code: string, pattern: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof CodexHarnessError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    return true;
  };
}

/** The records appended after entry `after`, in order. */
async function recordsAfter(audit: AuditLog, after: number): Promise<AuditRecord[]> {
  const rows = await audit.rows({ afterSeq: after, limit: 1_000 });
  return rows.map((row) => JSON.parse(row.body) as AuditRecord);
}

/** The cases: a name and a body each. */
export const LINK_CASES: [string, (place: LinkPlace) => Promise<void>][] = [
  [
    "links chat users to a person, each once; the link names the person with their groups",
    async ({ people, audit }) => {
      await people.add({ id: "alice", name: "Alice", groups: ["release"] });
      await people.add({ id: "bob" });
      const start = (await audit.head()).seq;
      const slack = await people.link("alice", "slack:U024BE7LH");
      assert.deepEqual(
        { ...slack, createdAt: typeof slack.createdAt },
        { platformUser: "slack:U024BE7LH", personId: "alice", createdAt: "string" },
      );
      await people.link("alice", "telegram:123456789");
      await people.link("bob", "discord:80351110224678912");
      // Again to the same person: nothing changes, nothing is recorded.
      assert.deepEqual(await people.link("alice", "slack:U024BE7LH"), slack);
      const found = await people.linkedPerson("slack:U024BE7LH");
      assert.equal(found?.id, "alice");
      assert.deepEqual(found?.groups, ["release"]);
      assert.equal(await people.linkedPerson("slack:U0NOBODY"), undefined);
      assert.deepEqual(
        (await people.links()).map((link) => [link.platformUser, link.personId]),
        [
          ["discord:80351110224678912", "bob"],
          ["slack:U024BE7LH", "alice"],
          ["telegram:123456789", "alice"],
        ],
      );
      assert.deepEqual(
        (await people.links("alice")).map((link) => link.platformUser),
        ["slack:U024BE7LH", "telegram:123456789"],
      );
      // One platform user, one person.
      await assert.rejects(
        people.link("bob", "slack:U024BE7LH"),
        refused("conflict", /slack:U024BE7LH is linked to alice already; unlink it first/),
      );
      assert.equal((await people.linkedPerson("slack:U024BE7LH"))?.id, "alice");
      const records = await recordsAfter(audit, start);
      assert.deepEqual(
        records.map((record) => [record.action, record.subject, record.decision, record.summary]),
        [
          ["person.linked", "slack:U024BE7LH", "linked", { person: "alice" }],
          ["person.linked", "telegram:123456789", "linked", { person: "alice" }],
          ["person.linked", "discord:80351110224678912", "linked", { person: "bob" }],
        ],
      );
      assert.equal((await verifyLog(audit)).ok, true);
    },
  ],
  [
    "refuses a malformed platform user, nobody, and a program",
    async ({ people }) => {
      await people.add({ id: "alice" });
      await people.add({ id: "ci", kind: "program" });
      const cases: [string, RegExp][] = [
        ["U024BE7LH", /not a chat user: give <platform>:<user id>/],
        ["matrix:@a:b", /the platform one of slack, telegram, discord/],
        ["slack:alice", /"alice" is not a Slack user id \(U… or W…\); e\.g\. slack:U024BE7LH/],
        ["slack:", /is not a Slack user id/],
        ["telegram:-12", /not a Telegram user id/],
        ["telegram:12a", /not a Telegram user id/],
        ["discord:42", /not a Discord user id/],
        ["Slack:U024BE7LH", /not a chat user/],
      ];
      for (const [given, says] of cases) {
        await assert.rejects(people.link("alice", given), refused("invalid_input", says), given);
      }
      await assert.rejects(
        people.link("carol", "slack:U024BE7LH"),
        refused("not_found", /no person or program "carol"/),
      );
      await assert.rejects(
        people.link("ci", "slack:U024BE7LH"),
        refused("invalid_input", /ci is a program; only people are linked/),
      );
      assert.deepEqual(await people.links(), []);
    },
  ],
  [
    "unlinks, recorded; removing a person removes their links",
    async ({ people, audit }) => {
      await people.add({ id: "alice" });
      await people.add({ id: "bob" });
      await people.link("alice", "slack:U024BE7LH");
      await people.link("bob", "slack:W0BOB1");
      const start = (await audit.head()).seq;
      const removed = await people.unlink("slack:U024BE7LH");
      assert.equal(removed.personId, "alice");
      assert.equal(await people.linkedPerson("slack:U024BE7LH"), undefined);
      await assert.rejects(
        people.unlink("slack:U024BE7LH"),
        refused("not_found", /"slack:U024BE7LH" is not linked to anyone/),
      );
      // Free again: another person may have it.
      await people.link("bob", "slack:U024BE7LH");
      await people.remove("bob");
      assert.deepEqual(await people.links(), []);
      assert.equal(await people.linkedPerson("slack:W0BOB1"), undefined);
      // Taken again, the id starts afresh: no link comes back.
      await people.add({ id: "bob" });
      assert.equal(await people.linkedPerson("slack:W0BOB1"), undefined);
      const records = await recordsAfter(audit, start);
      assert.deepEqual(
        records.map((record) => [record.action, record.subject]),
        [
          ["person.unlinked", "slack:U024BE7LH"],
          ["person.linked", "slack:U024BE7LH"],
          ["person.removed", "bob"],
          ["person.added", "bob"],
        ],
      );
      assert.equal((await verifyLog(audit)).ok, true);
    },
  ],
];
