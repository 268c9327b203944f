// Chat users linked to people, on the real embedded store (SQLite on a temp file): links made,
// refused, removed and audited; and a chat backend's answers through the dispatcher, taken as the
// linked person's (their groups decide under routing) or as the bare platform user when unlinked,
// looked up on every answer.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, describe, it } from "node:test";
import type { AuditRecord } from "../../src/channels/audit-types.js";
import { type BackendContext, BackendDispatcher } from "../../src/channels/backends.js";
import { ChannelsError } from "../../src/channels/errors.js";
import type { InteractionInput } from "../../src/channels/interaction-types.js";
import { People } from "../../src/channels/people.js";
import { checkPlatformUser, platformOf } from "../../src/channels/people-links.js";
import { ChannelsRuntime } from "../../src/channels/runtime.js";
import { SqliteInteractionStore } from "../../src/channels/sqlite-store.js";
import { LINK_CASES } from "../support/people-links-cases.js";

const dirs: string[] = [];
const closing: (() => Promise<void>)[] = [];
after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function openStore(): Promise<SqliteInteractionStore> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "channels-links-test-"));
  dirs.push(dir);
  const store = await SqliteInteractionStore.open(path.join(dir, "interactions.db"));
  return store;
}

describe("platform users", () => {
  it("takes slack:U…/W…, telegram:<number>, discord:<snowflake>, and names the platform", () => {
    for (const good of [
      "slack:U024BE7LH",
      "slack:W0123ABC",
      "telegram:1111",
      "discord:80351110224678912",
    ]) {
      assert.equal(checkPlatformUser(good), good);
    }
    assert.equal(platformOf("slack:U024BE7LH"), "slack");
    assert.equal(platformOf("nothing"), "");
  });
});

describe("links on the SQLite store", () => {
  for (const [name, body] of LINK_CASES) {
    it(name, async () => {
      const store = await openStore();
      closing.push(() => store.close());
      await body({ people: new People(store.people), audit: store.audit });
    });
  }
});

const approval = (routing?: InteractionInput["routing"]): InteractionInput => ({
  kind: "approval_request",
  source: { name: "tests" },
  payload: { command: "npm publish" },
  ...(routing ? { routing } : {}),
});

/**
 * A runtime whose store knows alice (group release, linked to slack:U0ALICE) and bob, with a chat
 * backend whose context the test answers through.
 */
async function chatRuntime() {
  const store = await openStore();
  const runtime = new ChannelsRuntime({ store, sweepIntervalMs: 60_000 });
  let chat: BackendContext | undefined;
  const dispatcher = new BackendDispatcher(runtime, [
    {
      name: "chat",
      deliver: async () => undefined,
      start: async (context) => {
        chat = context;
      },
    },
  ]);
  closing.push(() => runtime.close());
  closing.push(() => dispatcher.close());
  await dispatcher.start();
  const people = new People(store.people);
  await people.add({ id: "alice", name: "Alice Liddell", groups: ["release"] });
  await people.add({ id: "bob", name: "Bob" });
  await people.link("alice", "slack:U0ALICE");
  return { runtime, store, people, chat: chat as BackendContext };
}

async function lastRecord(store: SqliteInteractionStore): Promise<AuditRecord> {
  const head = await store.audit.head();
  const [row] = await store.audit.rows({ afterSeq: head.seq - 1, limit: 1 });
  return JSON.parse(row?.body ?? "{}") as AuditRecord;
}

describe("answers from a chat, as the linked person", () => {
  it("gives the backend the linked person with their groups, and nobody for an unlinked user", async () => {
    const { chat } = await chatRuntime();
    const alice = await chat.linkedPerson("slack:U0ALICE");
    assert.equal(alice?.id, "alice");
    assert.equal(alice?.name, "Alice Liddell");
    assert.deepEqual(alice?.groups, ["release"]);
    assert.equal(await chat.linkedPerson("slack:U0MALLORY"), undefined);
    assert.equal(await chat.linkedPerson("not a platform user"), undefined);
  });

  it("routing answer group:release takes the linked Slack user's answer as Alice's, and refuses an unlinked one (403, recorded)", async () => {
    const { runtime, store, chat } = await chatRuntime();
    const asked = await runtime.create(approval({ answer: ["group:release"] }));
    await assert.rejects(
      chat.respond(asked.id, { action: "accept" }, { id: "slack:U0MALLORY", name: "mallory" }),
      (error: unknown) => {
        assert.ok(error instanceof ChannelsError);
        assert.equal(error.status, 403);
        assert.equal(error.code, "not_allowed");
        assert.match(error.message, /Only group:release may answer.*slack:U0MALLORY is not/);
        return true;
      },
    );
    const refusal = await lastRecord(store);
    assert.equal(refusal.action, "answer.refused");
    assert.equal(refusal.reason, "not_allowed");
    assert.equal(refusal.surface, "chat");
    assert.deepEqual(refusal.actor, { kind: "person", id: "slack:U0MALLORY", name: "mallory" });
    // Still waiting (pending, or delivered to the chat backend by now).
    const waiting = (await runtime.get(asked.id)).status;
    assert.ok(waiting === "pending" || waiting === "delivered", waiting);

    const answered = await chat.respond(
      asked.id,
      { action: "accept" },
      { id: "slack:U0ALICE", name: "the allow-list's name" },
    );
    assert.equal(answered.status, "resolved");
    assert.equal(answered.response?.answeredBy, "alice");
    assert.equal(answered.response?.answeredByName, "Alice Liddell");
    const record = await lastRecord(store);
    assert.equal(record.action, "interaction.answered");
    assert.equal(record.surface, "chat");
    assert.deepEqual(record.actor, {
      kind: "person",
      id: "alice",
      name: "Alice Liddell",
      platformUser: "slack:U0ALICE",
    });
  });

  it("looks the link up on every answer: unlinked, the user is refused; linked again, taken", async () => {
    const { runtime, store, people, chat } = await chatRuntime();
    const routed = approval({ answer: ["alice"] });
    await people.unlink("slack:U0ALICE");
    const first = await runtime.create(routed);
    await assert.rejects(
      chat.respond(first.id, { action: "accept" }, { id: "slack:U0ALICE", name: "alice" }),
      { code: "not_allowed" },
    );
    await people.link("alice", "slack:U0ALICE");
    const taken = await chat.respond(
      first.id,
      { action: "decline" },
      { id: "slack:U0ALICE", name: "alice" },
    );
    assert.equal(taken.response?.answeredBy, "alice");
    // Let in by the backend for their link alone, gone by the time the answer is taken: refused.
    await people.unlink("slack:U0ALICE");
    const late = await runtime.create(approval());
    await assert.rejects(
      chat.respond(
        late.id,
        { action: "accept" },
        { id: "slack:U0ALICE", name: "Alice", linked: true },
      ),
      { code: "not_allowed", status: 403, message: /slack:U0ALICE is no longer linked to anyone/ },
    );
    const refusal = await lastRecord(store);
    assert.equal(refusal.action, "answer.refused");
    assert.equal(refusal.subject, late.id);
    assert.deepEqual(refusal.actor, { kind: "person", id: "slack:U0ALICE", name: "Alice" });
    // Without routing, an unlinked user answers as before: as the platform user, in no group.
    const open = await runtime.create(approval());
    const plain = await chat.respond(
      open.id,
      { action: "accept" },
      { id: "telegram:1111", name: "tg" },
    );
    assert.equal(plain.response?.answeredBy, "telegram:1111");
    assert.equal(plain.response?.answeredByName, "tg");
  });

  it("counts a linked user's accept as the person's in a two-person rule: the same person from the inbox and the chat is one", async () => {
    const { runtime, chat } = await chatRuntime();
    const asked = await runtime.create(approval({ answer: ["group:release"], approvals: 2 }));
    const once = await chat.respond(
      asked.id,
      { action: "accept" },
      { id: "slack:U0ALICE", name: "alice" },
    );
    assert.ok(once.status === "pending" || once.status === "delivered", once.status);
    assert.deepEqual(
      once.approvals?.map((approval) => approval.by),
      ["alice"],
    );
    const aliceByToken = {
      kind: "person" as const,
      id: "alice",
      name: "Alice Liddell",
      groups: ["release"],
      scopes: ["answer" as const],
    };
    await assert.rejects(runtime.respond(asked.id, { action: "accept" }, aliceByToken), {
      code: "already_approved",
    });
  });
});
