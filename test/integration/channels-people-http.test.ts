// People, tokens and linked chat users over the runtime's HTTP API, behind the `admin` scope, on
// both stores (SQLite in the data dir, and a real PostgreSQL): refusals without the scope, a token
// shown once and working at once, its revocation holding on the next request, links made and
// removed, and every change in the audit log as by the caller from `api`.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import type { AuditLog, AuditRecord } from "../../src/channels/audit-types.js";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import type { People } from "../../src/channels/people.js";
import { PostgresInteractionStore } from "../../src/channels/postgres-store.js";
import { SqliteInteractionStore } from "../../src/channels/sqlite-store.js";
import type { InteractionStore } from "../../src/channels/store.js";
import { call } from "../support/channels-call.js";
import { channelsTestDirs } from "../support/channels-dirs.js";
import { postgresForFile } from "../support/postgres-file.js";

const { dataDir, servers } = channelsTestDirs("channels-people-http-test-");
const { missing, url: postgresUrl } = postgresForFile();

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`people over HTTP, on ${kind}`, { skip: kind === "postgres" && missing }, () => {
    /** A fresh runtime (on PostgreSQL, its people cleared) with an admin and a reader. */
    async function start() {
      const server = await startChannelsServer({
        dataDir: dataDir(),
        port: 0,
        ...(kind === "postgres" ? { storeUrl: postgresUrl() } : {}),
      });
      servers.push(server);
      const people = server.people as People;
      for (const person of await people.list()) await people.remove(person.id);
      await people.add({ id: "root", name: "Root" });
      await people.add({ id: "rita", name: "Rita" });
      const root = await people.issueToken("root", "admin");
      const rita = await people.issueToken("rita", "read,answer");
      return { server, people, root, rita };
    }

    /** A second connection to the server's store, to read its audit log. */
    async function openStore(server: ChannelsServer): Promise<InteractionStore> {
      return kind === "postgres"
        ? PostgresInteractionStore.open(postgresUrl())
        : SqliteInteractionStore.open(path.join(path.dirname(server.tokenFile), "interactions.db"));
    }

    async function recordsAfter(log: AuditLog, after: number): Promise<AuditRecord[]> {
      const rows = await log.rows({ afterSeq: after, limit: 1_000 });
      return rows.map((row) => JSON.parse(row.body) as AuditRecord);
    }

    it("refuses every route without the admin scope (403 missing_scope), and changes nothing", async () => {
      const { server, people, rita } = await start();
      const refused: [string, string, unknown?][] = [
        ["GET", "/v1/people"],
        ["POST", "/v1/people", { id: "mallory" }],
        ["DELETE", "/v1/people/root"],
        ["POST", "/v1/people/rita/tokens", { scopes: "admin" }],
        ["POST", "/v1/tokens/0123456789abcdef/revoke"],
        ["POST", "/v1/people/rita/links", { platformUser: "slack:U0RITA" }],
        ["DELETE", "/v1/links/slack:U0RITA"],
      ];
      for (const [method, route, body] of refused) {
        const reply = await call(server, rita.token, method, route, body);
        assert.equal(reply.status, 403, `${method} ${route}`);
        assert.equal(reply.body.error?.code, "missing_scope");
        assert.match(reply.body.error?.message ?? "", /lacks the "admin" scope.*managing people/);
      }
      const stranger = await call(server, "not-a-token", "GET", "/v1/people");
      assert.equal(stranger.status, 401);
      assert.deepEqual(
        (await people.list()).map((person) => person.id),
        ["rita", "root"],
      );
      assert.equal((await people.tokens("rita")).length, 1);
      assert.deepEqual(await people.links(), []);
    });

    it("adds, lists and removes people; issues a token shown once that works at once; revokes it for the next request; all audited as the caller's from api", async () => {
      const { server, root } = await start();
      const store = await openStore(server);
      try {
        const log = store.audit as AuditLog;
        const start = (await log.head()).seq;
        const added = await call(server, root.token, "POST", "/v1/people", {
          id: "bob",
          name: "Bob",
          groups: ["release", "ops"],
        });
        assert.equal(added.status, 201);
        assert.deepEqual(
          { ...added.body, createdAt: typeof added.body.createdAt },
          {
            id: "bob",
            kind: "person",
            name: "Bob",
            groups: ["ops", "release"],
            createdAt: "string",
          },
        );
        const program = await call(server, root.token, "POST", "/v1/people", {
          id: "ci",
          kind: "program",
        });
        assert.equal(program.status, 201);

        const issued = await call(server, root.token, "POST", "/v1/people/bob/tokens", {
          scopes: ["answer", "read"],
        });
        assert.equal(issued.status, 201);
        const token = String(issued.body.token);
        const record = issued.body.record as { id: string; scopes: string[]; personId: string };
        assert.match(token, /^chp_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
        assert.deepEqual(record.scopes, ["read", "answer"]);
        assert.equal(record.personId, "bob");
        assert.equal(issued.headers.get("cache-control"), "no-store");
        const me = await call(server, token, "GET", "/v1/me");
        assert.equal(me.status, 200);
        assert.equal(me.body.id, "bob");

        const listed = await call(server, root.token, "GET", "/v1/people");
        assert.equal(listed.status, 200);
        const everyone = listed.body.people as {
          id: string;
          tokens: { id: string }[];
          links: unknown[];
        }[];
        assert.deepEqual(
          everyone.map((person) => [person.id, person.tokens.length, person.links.length]),
          [
            ["bob", 1, 0],
            ["ci", 0, 0],
            ["rita", 1, 0],
            ["root", 1, 0],
          ],
        );
        const secret = token.slice(21);
        assert.ok(!JSON.stringify(listed.body).includes(secret), "shown once: never listed");

        const revoked = await call(server, root.token, "POST", `/v1/tokens/${record.id}/revoke`);
        assert.equal(revoked.status, 200);
        assert.match(String(revoked.body.revokedAt), /^\d{4}-/);
        assert.equal((await call(server, token, "GET", "/v1/me")).status, 401);

        const removed = await call(server, root.token, "DELETE", "/v1/people/ci");
        assert.equal(removed.status, 200);
        assert.equal((removed.body.removed as { id: string }).id, "ci");
        const again = await call(server, root.token, "DELETE", "/v1/people/ci");
        assert.equal(again.status, 404);
        assert.equal(again.body.error?.code, "not_found");

        const records = await recordsAfter(log, start);
        assert.deepEqual(
          records.map((entry) => [entry.action, entry.subject, entry.surface]),
          [
            ["person.added", "bob", "api"],
            ["person.added", "ci", "api"],
            ["token.issued", record.id, "api"],
            ["token.revoked", record.id, "api"],
            ["person.removed", "ci", "api"],
          ],
        );
        for (const entry of records) {
          assert.deepEqual(entry.actor, {
            kind: "person",
            id: "root",
            name: "Root",
            tokenId: root.record.id,
          });
        }
      } finally {
        await store.close();
      }
    });

    it("links and unlinks chat users; says what is wrong with 400, 404 and 409", async () => {
      const { server, root, people } = await start();
      const linked = await call(server, root.token, "POST", "/v1/people/rita/links", {
        platformUser: "slack:U0RITA",
      });
      assert.equal(linked.status, 201);
      assert.equal(linked.body.platformUser, "slack:U0RITA");
      assert.equal(linked.body.personId, "rita");
      assert.equal((await people.linkedPerson("slack:U0RITA"))?.id, "rita");
      const listed = await call(server, root.token, "GET", "/v1/people");
      const rita = (listed.body.people as { id: string; links: { platformUser: string }[] }[]).find(
        (person) => person.id === "rita",
      );
      assert.deepEqual(
        rita?.links.map((link) => link.platformUser),
        ["slack:U0RITA"],
      );

      const wrong: [string, string, unknown, number, string, RegExp][] = [
        [
          "POST",
          "/v1/people/root/links",
          { platformUser: "slack:U0RITA" },
          409,
          "conflict",
          /linked to rita already/,
        ],
        [
          "POST",
          "/v1/people/rita/links",
          { platformUser: "slack:rita" },
          400,
          "invalid_input",
          /not a Slack user id/,
        ],
        [
          "POST",
          "/v1/people/nobody/links",
          { platformUser: "telegram:42" },
          404,
          "not_found",
          /no person or program "nobody"/,
        ],
        ["POST", "/v1/people", { id: "Bad" }, 400, "invalid_input", /not a person id/],
        ["POST", "/v1/people", { id: "rita" }, 409, "conflict", /already someone/],
        ["POST", "/v1/people", { who: "x" }, 400, "invalid_request", /Invalid request body/],
        [
          "POST",
          "/v1/people/rita/tokens",
          { scopes: "fly" },
          400,
          "invalid_input",
          /Unknown scope "fly"/,
        ],
        ["POST", "/v1/tokens/0123456789abcdef/revoke", undefined, 404, "not_found", /no token/],
        ["PUT", "/v1/people", {}, 404, "not_found", /No route PUT \/v1\/people/],
      ];
      for (const [method, route, body, status, code, says] of wrong) {
        const reply = await call(server, root.token, method, route, body);
        assert.equal(reply.status, status, `${method} ${route} ${JSON.stringify(body)}`);
        assert.equal(reply.body.error?.code, code, `${method} ${route}`);
        assert.match(reply.body.error?.message ?? "", says, `${method} ${route}`);
      }

      const unlinked = await call(server, root.token, "DELETE", "/v1/links/slack%3AU0RITA");
      assert.equal(unlinked.status, 200);
      assert.equal(unlinked.body.personId, "rita");
      assert.equal(await people.linkedPerson("slack:U0RITA"), undefined);
      const gone = await call(server, root.token, "DELETE", "/v1/links/slack:U0RITA");
      assert.equal(gone.status, 404);
      // The data directory's token is an admin too.
      const byAdmin = await call(server, server.token, "POST", "/v1/people/rita/links", {
        platformUser: "discord:80351110224678912",
      });
      assert.equal(byAdmin.status, 201);
    });
  });
}
