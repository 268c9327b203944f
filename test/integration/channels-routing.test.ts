// Routing enforced over HTTP, on both stores (SQLite in the data dir, and a real PostgreSQL shared
// by two runtimes): a non-member's answer refused and the request still pending, two people's
// accepts racing through two runtimes both counted, the same person twice refused, what routing
// hides left out of reads, lists and the event stream, policies checked before their first
// request, and a request nobody may answer ending as such at its deadline.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AuditRecord } from "../../src/channels/audit-types.js";
import { ChannelsClient } from "../../src/channels/client.js";
import {
  type ChannelsServer,
  openStore,
  startChannelsServer,
} from "../../src/channels/http-server.js";
import type { InteractionChange, InteractionInput } from "../../src/channels/interaction-types.js";
import type { People } from "../../src/channels/people.js";
import { call } from "../support/channels-call.js";
import { channelsTestDirs } from "../support/channels-dirs.js";
import { eventually } from "../support/eventually.js";
import { postgresForFile } from "../support/postgres-file.js";

const { dataDir, servers } = channelsTestDirs("channels-routing-test-");
const { missing, url: postgresUrl } = postgresForFile();

const publish = (routing: InteractionInput["routing"], timeoutMs?: number): InteractionInput => ({
  kind: "approval_request",
  source: { name: "tests" },
  payload: { kind: "command", command: "npm publish" },
  routing,
  ...(timeoutMs ? { timeoutMs } : {}),
});

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`routing enforced, on ${kind}`, { skip: kind === "postgres" && missing }, () => {
    /** Two runtimes on one store (PostgreSQL), or one (SQLite), with a fresh cast of people. */
    async function start(runtimes = 1) {
      const dir = dataDir();
      const started: (ChannelsServer & { people: People })[] = [];
      for (let n = 0; n < runtimes; n++) {
        const server = await startChannelsServer({
          dataDir: kind === "postgres" ? dataDir() : dir,
          port: 0,
          ...(kind === "postgres" ? { storeUrl: postgresUrl() } : {}),
        });
        servers.push(server);
        started.push(server as ChannelsServer & { people: People });
      }
      const people = (started[0] as { people: People }).people;
      for (const person of await people.list()) await people.remove(person.id);
      await people.add({ id: "alice", name: "Alice", groups: ["release"] });
      await people.add({ id: "carol", name: "Carol", groups: ["release"] });
      await people.add({ id: "bob", name: "Bob" });
      await people.add({ id: "ci", kind: "program", name: "CI" });
      const tokens = {
        alice: (await people.issueToken("alice", "read,answer")).token,
        carol: (await people.issueToken("carol", "read,answer")).token,
        bob: (await people.issueToken("bob", "read,answer")).token,
        ci: (await people.issueToken("ci", "create,read,operate")).token,
      };
      const audit = async (): Promise<AuditRecord[]> => {
        const store = await openStore(kind === "postgres" ? postgresUrl() : undefined, dir);
        try {
          const rows = (await store.audit?.rows({ afterSeq: 0, limit: 10_000 })) ?? [];
          return rows.map((row) => JSON.parse(row.body) as AuditRecord);
        } finally {
          await store.close();
        }
      };
      return { servers: started, tokens, audit };
    }

    it("refuses a non-member with 403 and the reason; the request stays pending for a member", async () => {
      const {
        servers: [server],
        tokens,
      } = await start();
      assert.ok(server);
      const created = await call(server, tokens.ci, "POST", "/v1/interactions", {
        ...publish({ answer: ["group:release"], rule: "publish" }),
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = created.body.id as string;
      const refused = await call(server, tokens.bob, "POST", `/v1/interactions/${id}/respond`, {
        action: "accept",
        metadata: { answeredBy: "alice" },
      });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error?.code, "not_allowed");
      assert.match(refused.body.error?.message ?? "", /Only group:release may answer/);
      const seen = await call(server, tokens.bob, "GET", `/v1/interactions/${id}`);
      assert.equal(seen.body.status, "pending");
      assert.equal(seen.body.viewer?.mayAnswer, false);
      const answered = await call(server, tokens.alice, "POST", `/v1/interactions/${id}/respond`, {
        action: "accept",
      });
      assert.equal(answered.status, 200);
      assert.equal(answered.body.response?.answeredBy, "alice");
    });

    it("counts two people's racing accepts, through two runtimes on PostgreSQL; one person twice is refused", async () => {
      const { servers: started, tokens } = await start(kind === "postgres" ? 2 : 1);
      const [a, b = a] = started;
      assert.ok(a && b);
      const id = (
        await call(a, tokens.ci, "POST", "/v1/interactions", {
          ...publish({ answer: ["group:release"], approvals: 2 }),
        })
      ).body.id as string;
      const [byAlice, byCarol] = await Promise.all([
        call(a, tokens.alice, "POST", `/v1/interactions/${id}/respond`, { action: "accept" }),
        call(b, tokens.carol, "POST", `/v1/interactions/${id}/respond`, { action: "accept" }),
      ]);
      assert.deepEqual([byAlice.status, byCarol.status], [200, 200]);
      const done = await call(a, tokens.alice, "GET", `/v1/interactions/${id}`);
      assert.equal(done.body.status, "resolved");
      assert.deepEqual(done.body.approvals?.map((approval) => approval.by).sort(), [
        "alice",
        "carol",
      ]);
      const again = await call(a, tokens.ci, "POST", "/v1/interactions", {
        ...publish({ answer: ["group:release"], approvals: 2 }),
      });
      const second = again.body.id as string;
      const first = await call(a, tokens.alice, "POST", `/v1/interactions/${second}/respond`, {
        action: "accept",
      });
      assert.equal(first.body.status, "pending");
      assert.equal(first.body.viewer?.mayAnswer, false);
      const twice = await call(b, tokens.alice, "POST", `/v1/interactions/${second}/respond`, {
        action: "accept",
      });
      assert.equal(twice.status, 409);
      assert.equal(twice.body.error?.code, "already_approved");
      const still = await call(b, tokens.carol, "GET", `/v1/interactions/${second}`);
      assert.equal(still.body.status, "pending");
      assert.equal(still.body.approvals?.length, 1);
      assert.equal(still.body.viewer?.mayAnswer, true);
    });

    it("leaves what routing hides out of reads, lists and the event stream", async () => {
      const {
        servers: [server],
        tokens,
      } = await start();
      assert.ok(server);
      const bob = new ChannelsClient({ url: server.url, token: tokens.bob });
      const seen: InteractionChange[] = [];
      const following = new AbortController();
      const stream = (async () => {
        for await (const change of bob.events({ since: 0, signal: following.signal })) {
          seen.push(change);
        }
      })().catch(() => undefined);
      const marker = await call(server, tokens.ci, "POST", "/v1/interactions", publish(undefined));
      await eventually("bob sees the first change", () => seen.length > 0);
      const hidden = await call(server, tokens.ci, "POST", "/v1/interactions", {
        ...publish({ answer: ["carol"], see: ["alice"] }),
      });
      const hiddenId = hidden.body.id as string;
      const last = await call(server, tokens.ci, "POST", "/v1/interactions", publish(undefined));
      await eventually(
        "bob sees the last change",
        () => seen.some((change) => change.interaction.id === last.body.id) || undefined,
      );
      following.abort();
      await stream;
      assert.ok(seen.some((change) => change.interaction.id === marker.body.id));
      assert.ok(!seen.some((change) => change.interaction.id === hiddenId));
      assert.equal(
        (await call(server, tokens.bob, "GET", `/v1/interactions/${hiddenId}`)).status,
        404,
      );
      const listed = await call(server, tokens.bob, "GET", "/v1/interactions");
      const ids = (listed.body.interactions as { id: string }[]).map((one) => one.id);
      assert.ok(ids.includes(last.body.id as string) && !ids.includes(hiddenId));
      const byAlice = await call(server, tokens.alice, "GET", `/v1/interactions/${hiddenId}`);
      assert.equal(byAlice.body.viewer?.mayAnswer, false);
      assert.equal(
        (await call(server, tokens.ci, "GET", `/v1/interactions/${hiddenId}`)).status,
        200,
      );
    });

    it("checks a policy's people and groups before its first request, and ends a request nobody may answer as such", async () => {
      const {
        servers: [server],
        tokens,
        audit,
      } = await start();
      assert.ok(server);
      const check = (routing: unknown) =>
        call(server, tokens.ci, "POST", "/v1/routing/check", { routing });
      assert.equal((await check({ answer: ["group:release", "bob"] })).status, 200);
      const unknown = await check({ answer: ["group:relase"] });
      assert.equal(unknown.status, 422);
      assert.equal(unknown.body.error?.code, "unknown_principal");
      assert.match(unknown.body.error?.message ?? "", /"group:relase".*Known groups: release/);
      const created = await call(server, tokens.ci, "POST", "/v1/interactions", {
        ...publish({ answer: ["bob"], notSelf: true, startedBy: "bob" }, 300),
      });
      const id = created.body.id as string;
      const ended = await eventually("the request ends", async () => {
        const got = await call(server, tokens.ci, "GET", `/v1/interactions/${id}`);
        return got.body.status === "errored" ? got.body : undefined;
      });
      assert.equal(ended.end?.reason, "no_one_allowed");
      assert.equal(ended.end?.message, "No one allowed to answer: bob, not bob.");
      const entries = await audit();
      const expired = entries.find(
        (entry) => entry.subject === id && entry.action === "interaction.expired",
      );
      assert.equal(expired?.reason, "no_one_allowed");
    });
  });
}
