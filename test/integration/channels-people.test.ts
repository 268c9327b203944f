// Who may answer, on the real runtime over HTTP, on both stores (SQLite in the data dir, and a real
// PostgreSQL): people's and programs' tokens with scopes, the authenticated `answeredBy`, revocation
// on the next request, the admin token as before, bad tokens slowed down, and a real codex whose
// approval names who answered it.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { channelsApprovals } from "../../src/channels/bridge.js";
import { ChannelsClient } from "../../src/channels/client.js";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import type { InteractionChange, InteractionInput } from "../../src/channels/interaction-types.js";
import type { People } from "../../src/channels/people.js";
import type { ApprovalResolvedEvent } from "../../src/events/types.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { call } from "../support/channels-call.js";
import { channelsTestDirs } from "../support/channels-dirs.js";
import { type CodexApiFixture, startCodexApi } from "../support/codex-api-fixture.js";
import { eventually } from "../support/eventually.js";
import { postgresForFile } from "../support/postgres-file.js";

const { dataDir, servers } = channelsTestDirs("channels-people-test-");
const { missing, url: postgresUrl } = postgresForFile();
let fixture: CodexApiFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

type Options = Parameters<typeof startChannelsServer>[0];

const approval = (command: string): InteractionInput => ({
  kind: "approval_request",
  source: { name: "tests" },
  payload: { command },
});

/** Alice answers and reads, Bob only reads, the ci program creates, reads and operates. */
async function cast(people: People) {
  await people.add({ id: "alice", name: "Alice Liddell", groups: ["release"] });
  await people.add({ id: "bob", name: "Bob" });
  await people.add({ id: "ci", kind: "program", name: "CI" });
  return {
    alice: await people.issueToken("alice", "read,answer"),
    bob: await people.issueToken("bob", "read"),
    ci: await people.issueToken("ci", "create,read,operate"),
  };
}

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`who may answer, on ${kind}`, { skip: kind === "postgres" && missing }, () => {
    async function start(
      extra: Partial<Options> = {},
    ): Promise<ChannelsServer & { people: People }> {
      const server = await startChannelsServer({
        dataDir: dataDir(),
        port: 0,
        ...(kind === "postgres" ? { storeUrl: postgresUrl() } : {}),
        ...extra,
      });
      servers.push(server);
      assert.ok(server.people, "both built-in stores keep people");
      return server as ChannelsServer & { people: People };
    }

    /** A fresh runtime; on PostgreSQL the people table is shared by the file: clear it first. */
    async function startWithCast(extra: Partial<Options> = {}) {
      const server = await start(extra);
      for (const person of await server.people.list()) await server.people.remove(person.id);
      return { server, tokens: await cast(server.people) };
    }

    it("a person's token answers, and answeredBy is the person, whatever the client wrote", async () => {
      const { server, tokens } = await startWithCast();
      const created = await call(
        server,
        tokens.ci.token,
        "POST",
        "/v1/interactions",
        approval("make deploy"),
      );
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = String(created.body.id);
      const answered = await call(
        server,
        tokens.alice.token,
        "POST",
        `/v1/interactions/${id}/respond`,
        {
          action: "accept",
          metadata: { answeredBy: "mallory", via: "api", ticket: "OPS-1" },
        },
      );
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      const response = answered.body.response;
      assert.equal(response?.answeredBy, "alice");
      assert.equal(response?.answeredByName, "Alice Liddell");
      // The forged name is kept apart, as a claim; the rest of the metadata as given.
      assert.deepEqual(response?.metadata, { via: "api", ticket: "OPS-1", claimedBy: "mallory" });
      // Stored so: read back by someone else, and in the change stream.
      const read = await call(server, tokens.bob.token, "GET", `/v1/interactions/${id}`);
      assert.equal(read.body.response?.answeredBy, "alice");
      const changes: InteractionChange[] = await server.runtime.changesSince(0);
      const resolved = changes.find((c) => c.type === "resolved" && c.interaction.id === id);
      assert.equal(resolved?.interaction.response?.answeredBy, "alice");
      // Who each token is.
      const me = await new ChannelsClient({ url: server.url, token: tokens.alice.token }).me();
      assert.deepEqual(me, {
        kind: "person",
        id: "alice",
        name: "Alice Liddell",
        groups: ["release"],
        scopes: ["read", "answer"],
      });
      assert.equal((await call(server, tokens.ci.token, "GET", "/v1/me")).body.kind, "program");
    });

    it("a token without the answer scope gets 403 naming it, and the interaction stays pending", async () => {
      const { server, tokens } = await startWithCast();
      const created = await call(
        server,
        server.token,
        "POST",
        "/v1/interactions",
        approval("rm -rf build"),
      );
      const id = String(created.body.id);
      const refused = await call(
        server,
        tokens.bob.token,
        "POST",
        `/v1/interactions/${id}/respond`,
        {
          action: "accept",
        },
      );
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error?.code, "missing_scope");
      assert.match(refused.body.error?.message ?? "", /lacks the "answer" scope/);
      assert.equal(
        (await call(server, server.token, "GET", `/v1/interactions/${id}`)).body.status,
        "pending",
      );
      // Each route its scope: Alice may not create or cancel; a token that only answers may not
      // read (nor say it was shown one); the program may not answer.
      const answerOnly = await server.people.issueToken("alice", "answer");
      const scoped: [string, string, string, unknown][] = [
        [tokens.alice.token, "POST", "/v1/interactions", approval("x")],
        [tokens.alice.token, "POST", `/v1/interactions/${id}/cancel`, {}],
        [answerOnly.token, "GET", `/v1/interactions/${id}`, undefined],
        [answerOnly.token, "GET", "/v1/events", undefined],
        [answerOnly.token, "POST", `/v1/interactions/${id}/delivered`, {}],
        [tokens.ci.token, "POST", `/v1/interactions/${id}/respond`, { action: "accept" }],
      ];
      const needed = ["create", "operate", "read", "read", "read", "answer"];
      for (const [index, [token, method, route, body]] of scoped.entries()) {
        const reply = await call(server, token, method, route, body);
        assert.equal(reply.status, 403, `${method} ${route}`);
        assert.match(reply.body.error?.message ?? "", new RegExp(`"${needed[index]}" scope`));
      }
      assert.equal((await call(server, tokens.bob.token, "GET", "/v1/interactions")).status, 200);
      const pending = await call(server, server.token, "GET", `/v1/interactions/${id}`);
      assert.equal(pending.body.status, "pending", "nothing refused changed it");
      // A reader (the inbox of someone who may only look) says it was shown.
      const shown = await call(
        server,
        tokens.bob.token,
        "POST",
        `/v1/interactions/${id}/delivered`,
        {},
      );
      assert.equal(shown.body.status, "delivered");
      // The program cancels (operate) what nobody should run.
      const cancelled = await call(
        server,
        tokens.ci.token,
        "POST",
        `/v1/interactions/${id}/cancel`,
        {},
      );
      assert.equal(cancelled.body.status, "cancelled");
    });

    it("a revoked token is refused on its next request, and its open event stream ends", async () => {
      const { server, tokens } = await startWithCast({ sseHeartbeatMs: 200 });
      assert.equal((await call(server, tokens.alice.token, "GET", "/v1/interactions")).status, 200);
      const stream = await fetch(`${server.url}/v1/events`, {
        headers: { authorization: `Bearer ${tokens.alice.token}` },
      });
      assert.equal(stream.status, 200);
      const reading = stream.text();
      await server.people.revoke(tokens.alice.record.id);
      const refused = await call(server, tokens.alice.token, "GET", "/v1/interactions");
      assert.equal(refused.status, 401);
      assert.equal(refused.body.error?.code, "unauthorized");
      assert.match(refused.body.error?.message ?? "", /unknown or revoked/);
      // The stream that was open ends at its next ping (200 ms here).
      const ended = await Promise.race([
        reading.then(() => "ended"),
        new Promise((resolve) => setTimeout(() => resolve("still open"), 5_000)),
      ]);
      assert.equal(ended, "ended");
      // Removing a person ends their other tokens too.
      assert.equal((await call(server, tokens.bob.token, "GET", "/v1/me")).status, 200);
      await server.people.remove("bob");
      assert.equal((await call(server, tokens.bob.token, "GET", "/v1/me")).status, 401);
    });

    it("the admin token still does everything, and answers are by admin", async () => {
      const { server } = await startWithCast();
      const admin = new ChannelsClient({ url: server.url, token: server.token });
      assert.deepEqual(await admin.me(), {
        kind: "admin",
        id: "admin",
        name: "admin",
        groups: [],
        scopes: ["read", "answer", "create", "operate", "admin"],
      });
      const first = await admin.create(approval("ls"));
      await admin.markDelivered(first.id);
      const answered = await admin.respond(first.id, {
        action: "decline",
        metadata: { answeredBy: "alice" },
      });
      assert.equal(answered.response?.answeredBy, "admin");
      assert.equal(answered.response?.metadata?.claimedBy, "alice");
      const second = await admin.create(approval("pwd"));
      assert.equal((await admin.cancel(second.id)).status, "cancelled");
      assert.equal((await admin.list()).length >= 2, true);
    });

    it("slows down an address that keeps sending bad tokens: 429 with Retry-After, good token or not", async () => {
      const { server, tokens } = await startWithCast({
        badTokens: { freeFailures: 2, baseDelayMs: 30_000 },
      });
      for (const bad of [
        "wrong",
        `${tokens.alice.token.slice(0, -1)}x`,
        "chp_0123456789abcdef_x",
      ]) {
        assert.equal((await call(server, bad, "GET", "/v1/interactions")).status, 401, bad);
      }
      const slowed = await call(server, tokens.alice.token, "GET", "/v1/interactions");
      assert.equal(slowed.status, 429);
      assert.equal(slowed.body.error?.code, "too_many_attempts");
      assert.equal(slowed.headers.get("retry-after"), "30");
      assert.match(slowed.body.error?.message ?? "", /Too many bad tokens from your address/);
      assert.equal((await call(server, server.token, "GET", "/v1/interactions")).status, 429);
      // Health probes are not the API.
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    });

    it("a real codex approval, bridged with a program's token, names the person who answered", async () => {
      const { server, tokens } = await startWithCast();
      const events: ApprovalResolvedEvent[] = [];
      fixture = await startCodexApi(
        "app-server",
        [execCommand("echo ok > people.txt", { escalated: true }), reply("Done.")],
        {
          config: {},
          codex: { approvals: channelsApprovals({ url: server.url, token: tokens.ci.token }) },
        },
      );
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      const turn = (async () => {
        const { events: stream } = await thread.runStreamed("go");
        for await (const event of stream) {
          if (event.type === "approval.resolved") events.push(event);
        }
      })();
      const alice = new ChannelsClient({ url: server.url, token: tokens.alice.token });
      const asked = await eventually("the approval in the runtime", async () =>
        (await alice.list({ status: ["pending", "delivered"] })).find((i) =>
          i.title.includes("people.txt"),
        ),
      );
      await alice.respond(asked.id, { action: "accept", metadata: { answeredBy: "bob" } });
      await turn;
      assert.ok(existsSync(path.join(fixture.workdir, "people.txt")));
      assert.equal(events.length, 1);
      assert.equal(events[0]?.decision, "accept");
      assert.equal(events[0]?.reason, "approved by Alice Liddell in the channels runtime");
    });
  });
}

describe("who may answer across two runtimes on one PostgreSQL", { skip: missing }, () => {
  it("a token issued through one runtime works on the other, and its revocation holds there at once", async () => {
    const url = postgresUrl();
    const a = await startChannelsServer({ dataDir: dataDir(), port: 0, storeUrl: url });
    servers.push(a);
    const b = await startChannelsServer({ dataDir: dataDir(), port: 0, storeUrl: url });
    servers.push(b);
    const people = a.people as People;
    await people.remove("dave").catch(() => undefined);
    await people.add({ id: "dave", name: "Dave" });
    const { token, record } = await people.issueToken("dave", "read,answer");
    const created = await call(a, a.token, "POST", "/v1/interactions", approval("migrate"));
    const answered = await call(b, token, "POST", `/v1/interactions/${created.body.id}/respond`, {
      action: "accept",
    });
    assert.equal(answered.body.response?.answeredBy, "dave");
    await people.revoke(record.id);
    assert.equal((await call(b, token, "GET", "/v1/interactions")).status, 401);
  });
});
