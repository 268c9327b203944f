// Who may answer: the runtime enforces an interaction's routing on the real embedded store
// (SQLite on a temp file) — principals and groups, several accepts from different people, one
// decline declining, notSelf, unknown principals refused at creation, a request nobody may answer
// ending as such, and what each caller is told they may do.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, describe, it } from "node:test";
import type { AuditRecord } from "../../src/channels/audit-types.js";
import { ChannelsError } from "../../src/channels/errors.js";
import type { InteractionChange, InteractionInput } from "../../src/channels/interaction-types.js";
import { People } from "../../src/channels/people.js";
import { ADMIN, type Identity } from "../../src/channels/people-types.js";
import { maySee, viewerRights, whoMayAnswer } from "../../src/channels/routing.js";
import { ChannelsRuntime } from "../../src/channels/runtime.js";
import { createBody, parseBody } from "../../src/channels/schemas.js";
import { SqliteInteractionStore } from "../../src/channels/sqlite-store.js";

const dirs: string[] = [];
const runtimes: ChannelsRuntime[] = [];
after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.close();
});

const person = (id: string, groups: string[] = []): Identity => ({
  kind: "person",
  id,
  name: id[0]?.toUpperCase() + id.slice(1),
  groups,
  scopes: ["read", "answer"],
});
const alice = person("alice", ["release"]);
const bob = person("bob");
const carol = person("carol", ["release"]);

/** A runtime on a fresh store that knows alice and carol (group release) and bob. */
async function runtimeWithPeople(now?: () => Date) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "channels-routing-test-"));
  dirs.push(dir);
  const store = await SqliteInteractionStore.open(path.join(dir, "interactions.db"));
  const runtime = new ChannelsRuntime({ store, sweepIntervalMs: 60_000, ...(now ? { now } : {}) });
  runtimes.push(runtime);
  const people = new People(store.people);
  for (const who of [alice, bob, carol]) {
    await people.add({ id: who.id, name: who.name, groups: [...who.groups] });
  }
  return { runtime, store };
}

/** The audit log's records, in order. */
async function auditOf(store: SqliteInteractionStore): Promise<AuditRecord[]> {
  const rows = await store.audit.rows({ limit: 1_000 });
  return rows.map((row) => JSON.parse(row.body) as AuditRecord);
}

const publish = (routing: InteractionInput["routing"]): InteractionInput => ({
  kind: "approval_request",
  source: { name: "test" },
  payload: { kind: "command", command: "npm publish" },
  routing,
});

function refused(code: string, status: number, pattern: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof ChannelsError, String(error));
    assert.equal(error.code, code);
    assert.equal(error.status, status);
    assert.match(error.message, pattern);
    return true;
  };
}

describe("routing: who may answer", () => {
  it("lets anyone answer an interaction without routing, as today", async () => {
    const { runtime } = await runtimeWithPeople();
    const created = await runtime.create(publish(undefined));
    const answered = await runtime.respond(created.id, { action: "accept" }, bob, "api");
    assert.equal(answered.status, "resolved");
    assert.equal(answered.response?.answeredBy, "bob");
  });

  it("refuses a non-member (403, recorded, still pending) and takes a member's answer", async () => {
    const { runtime, store } = await runtimeWithPeople();
    const created = await runtime.create(publish({ answer: ["group:release"], rule: "publish" }));
    assert.equal(created.createdBy, "admin");
    await assert.rejects(
      runtime.respond(created.id, { action: "accept" }, bob, "inbox"),
      refused("not_allowed", 403, /Only group:release may answer this request, and bob is not/),
    );
    await assert.rejects(
      runtime.respond(created.id, { action: "accept" }),
      refused("not_allowed", 403, /the runtime's own token is nobody in particular/),
    );
    assert.equal((await runtime.get(created.id)).status, "pending");
    const answered = await runtime.respond(created.id, { action: "accept" }, alice, "inbox");
    assert.equal(answered.status, "resolved");
    assert.equal(answered.response?.answeredBy, "alice");
    const entries = await auditOf(store);
    const refusals = entries.filter((entry) => entry.action === "answer.refused");
    assert.deepEqual(
      refusals.map((entry) => [entry.actor.id, entry.reason, entry.surface]),
      [
        ["bob", "not_allowed", "inbox"],
        ["admin", "not_allowed", "in-process"],
      ],
    );
    const made = entries.find((entry) => entry.action === "interaction.created");
    assert.equal(made?.summary?.rule, "publish");
    assert.deepEqual(made?.summary?.answerers, ["group:release"]);
  });

  it("needs two different people to accept; the same person twice is refused", async () => {
    const { runtime, store } = await runtimeWithPeople();
    const changes: InteractionChange[] = [];
    runtime.subscribe((change) => changes.push(change));
    const created = await runtime.create(publish({ answer: ["group:release"], approvals: 2 }));
    const first = await runtime.respond(created.id, { action: "accept" }, alice, "inbox");
    assert.equal(first.status, "pending");
    assert.deepEqual(
      first.approvals?.map((approval) => approval.by),
      ["alice"],
    );
    assert.equal(changes.at(-1)?.type, "approval");
    await assert.rejects(
      runtime.respond(created.id, { action: "accept" }, alice, "api"),
      refused("already_approved", 409, /alice has approved this request already.*1 of 2/),
    );
    assert.deepEqual(viewerRights(first, alice), {
      mayAnswer: false,
      reason: "You approved it; it waits for someone else (1 of 2 approvals (Alice)).",
    });
    assert.deepEqual(viewerRights(first, carol), { mayAnswer: true });
    const done = await runtime.respond(created.id, { action: "accept" }, carol, "inbox");
    assert.equal(done.status, "resolved");
    assert.equal(done.response?.action, "accept");
    assert.equal(done.response?.answeredByName, "Alice, Carol");
    assert.deepEqual(
      done.approvals?.map((approval) => approval.by),
      ["alice", "carol"],
    );
    const actions = (await auditOf(store)).map((entry) => [entry.action, entry.actor.id]);
    assert.deepEqual(actions.slice(4), [
      ["interaction.approved", "alice"],
      ["answer.refused", "alice"],
      ["interaction.answered", "carol"],
    ]);
  });

  it("declines on one decline, whatever was accepted before", async () => {
    const { runtime } = await runtimeWithPeople();
    const created = await runtime.create(publish({ answer: ["group:release"], approvals: 2 }));
    await runtime.respond(created.id, { action: "accept" }, alice);
    const declined = await runtime.respond(created.id, { action: "decline" }, carol);
    assert.equal(declined.status, "resolved");
    assert.equal(declined.response?.action, "decline");
    assert.equal(declined.response?.answeredBy, "carol");
  });

  it("refuses the turn's starter under notSelf; notSelf needs startedBy", async () => {
    const { runtime } = await runtimeWithPeople();
    const created = await runtime.create(
      publish({ answer: ["group:release"], notSelf: true, startedBy: "alice" }),
    );
    await assert.rejects(
      runtime.respond(created.id, { action: "accept" }, alice),
      refused("not_allowed", 403, /alice started this turn.*someone else \(notSelf\)/),
    );
    assert.equal(
      (await runtime.respond(created.id, { action: "accept" }, carol)).status,
      "resolved",
    );
    // In process as over the API: a notSelf that names nobody would exclude nobody.
    await assert.rejects(
      runtime.create(publish({ answer: ["group:release"], notSelf: true })),
      refused("invalid_routing", 422, /routing\.notSelf needs routing\.startedBy/),
    );
  });

  it("refuses routing that names unknown people or groups when it is created", async () => {
    const { runtime } = await runtimeWithPeople();
    await assert.rejects(
      runtime.create(publish({ answer: ["group:relase", "alice", "dave"] })),
      refused(
        "unknown_principal",
        422,
        /"group:relase", "dave", whom this runtime does not know.*Known groups: release/,
      ),
    );
    await runtime.checkRouting({ answer: ["group:release", "bob"], see: ["alice"] });
    assert.deepEqual(await runtime.list({}), []);
    assert.throws(
      () => parseBody(createBody, publish({ answer: ["Group:Release"] })),
      /routing\.answer\.0: give a person's or program's id/,
    );
  });

  it("ends a request nobody allowed may answer as such at its timeout", async () => {
    let now = new Date("2026-11-27T10:00:00Z");
    const { runtime } = await runtimeWithPeople(() => now);
    // Only alice is in release, and she started the turn; two accepts are needed of one person.
    const lonely = await runtime.create({
      ...publish({ answer: ["alice"], approvals: 2 }),
      timeoutMs: 1_000,
    });
    const plain = await runtime.create({ ...publish({ answer: ["bob"] }), timeoutMs: 1_000 });
    now = new Date(now.getTime() + 5_000);
    await runtime.sweep();
    const ended = await runtime.get(lonely.id);
    assert.equal(ended.status, "errored");
    assert.equal(ended.end?.reason, "no_one_allowed");
    assert.equal(ended.end?.message, "No one allowed to answer: alice, 2 approvals.");
    assert.equal((await runtime.get(plain.id)).end?.reason, "timeout");
    assert.equal(whoMayAnswer(plain), "bob");
  });

  it("shows an interaction whose routing says who sees it only to them, its answerers and creator", async () => {
    const { runtime } = await runtimeWithPeople();
    const program: Identity = { ...person("ci-bot"), kind: "program", scopes: ["create"] };
    const made = await runtime.create(publish({ answer: ["carol"], see: ["bob"] }), program, "api");
    assert.equal(made.createdBy, "ci-bot");
    assert.equal(maySee(made, bob), true);
    assert.equal(maySee(made, carol), true);
    assert.equal(maySee(made, alice), false);
    assert.equal(maySee(made, program), true);
    assert.equal(maySee(made, ADMIN), true);
    assert.deepEqual(viewerRights(made, bob), {
      mayAnswer: false,
      reason: "Only carol may answer this request, and bob is not among them.",
    });
    assert.equal(viewerRights(made, { ...carol, scopes: ["read"] }).mayAnswer, false);
  });

  it("asks the store only about principals it has not found in the last 5 s; the unknown always", async () => {
    let now = new Date("2026-11-27T10:00:00Z");
    const { runtime, store } = await runtimeWithPeople(() => now);
    const people = new People(store.people);
    await assert.rejects(runtime.checkRouting({ answer: ["dave"] }), /"dave", whom this runtime/);
    await people.add({ id: "dave", name: "Dave" });
    await runtime.checkRouting({ answer: ["dave"] }); // added: known at once
    await people.remove("dave");
    await runtime.checkRouting({ answer: ["dave"] }); // found 0 s ago: not asked again
    now = new Date(now.getTime() + 5_001);
    await assert.rejects(runtime.checkRouting({ answer: ["dave"] }), /"dave", whom this runtime/);
  });
});
