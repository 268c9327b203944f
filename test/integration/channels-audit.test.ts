// The audit log on the real runtime over HTTP, on both stores (SQLite in the data dir, and a real
// PostgreSQL, a fresh database per test): creates, answers, refusals (who tried, why), cancels,
// deadlines, people and tokens, each with its identity and surface, and no prompt text;
// `codex-harness audit` lists it, a line or a JSON object an entry, from a number or a time.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AuditEntry } from "../../src/channels/audit-types.js";
import type { BackendContext } from "../../src/channels/backends.js";
import { approval, audit, auditFixtures, call, entries } from "../support/audit-places.js";
import { runCli } from "../support/cli.js";

const { missing, place, start } = auditFixtures("channels-audit-test-");

/** An entry as the assertions compare it: what, by whom (kind, id), where, the outcome, why. */
const brief = (entry: AuditEntry) =>
  [
    entry.action,
    `${entry.actor.kind}:${entry.actor.id}`,
    entry.surface,
    entry.decision,
    entry.reason ?? "",
  ].join(" ");

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`the audit log, on ${kind}`, { skip: kind === "postgres" && missing }, () => {
    it("records creates, answers, refused answers, cancels, deadlines, people and tokens: who, where, why", async () => {
      const at = await place(kind);
      let chat: BackendContext | undefined;
      const server = await start(at, {
        backends: [
          {
            name: "chat",
            deliver: async () => undefined,
            start: async (context) => {
              chat = context;
            },
          },
        ],
      });
      try {
        await server.people.add({ id: "alice", name: "Alice Liddell" });
        await server.people.add({ id: "bob" });
        await server.people.add({ id: "ci", kind: "program" });
        const alice = await server.people.issueToken("alice", "read,answer");
        const bob = await server.people.issueToken("bob", "read");
        const ci = await server.people.issueToken("ci", "create,read,operate");
        // From the CLI: the admin's, from `cli`.
        const issued = await runCli(["people", "token", "bob", "--scope", "read", ...at.where]);
        assert.equal(issued.code, 0, issued.stderr);

        const created = await call(
          server,
          ci.token,
          "POST",
          "/v1/interactions",
          approval("npm publish"),
        );
        assert.equal(created.status, 201);
        const id = String(created.body.id);
        const respond = `/v1/interactions/${id}/respond`;
        const inbox = { via: "web-inbox" };
        assert.equal(
          (await call(server, bob.token, "POST", respond, { action: "accept", metadata: inbox }))
            .status,
          403,
        );
        const forged = `chp_0123456789abcdef_${"x".repeat(43)}`;
        assert.equal(
          (await call(server, forged, "POST", respond, { action: "accept" })).status,
          401,
        );
        const answered = await call(server, alice.token, "POST", respond, {
          action: "accept",
          values: { scope: "session" },
          metadata: { ...inbox, answeredBy: "mallory" },
        });
        assert.equal(answered.status, 200);
        assert.equal(
          (
            await call(server, alice.token, "POST", respond, {
              action: "decline",
              metadata: { via: "cli" },
            })
          ).status,
          409,
        );
        // A question: its text stays out of the log.
        const question = await call(server, ci.token, "POST", "/v1/interactions", {
          kind: "user_input_request",
          source: { name: "tests" },
          payload: { questions: [{ id: "q", question: "What is the launch code?" }] },
        });
        // A chat backend's user, verified by the backend.
        await (chat as BackendContext).respond(
          String(question.body.id),
          { action: "decline" },
          { id: "chat:U1", name: "Uma" },
        );
        const cancelled = await call(
          server,
          ci.token,
          "POST",
          "/v1/interactions",
          approval("make clean"),
        );
        assert.equal(
          (
            await call(server, ci.token, "POST", `/v1/interactions/${cancelled.body.id}/cancel`, {
              reason: "superseded",
            })
          ).status,
          200,
        );
        const late = await server.runtime.create(approval("sleep 1", { timeoutMs: 1 }));
        await new Promise((resolve) => setTimeout(resolve, 20));
        await server.runtime.sweep();
        // The inbox cannot show a file name that is a number: from there, only a refusal is taken.
        const unshowable = await call(server, ci.token, "POST", "/v1/interactions", {
          ...approval("git apply"),
          payload: { changes: [{ path: 5 }] },
        });
        const fromInbox = await call(
          server,
          alice.token,
          "POST",
          `/v1/interactions/${unshowable.body.id}/respond`,
          { action: "accept", metadata: inbox },
        );
        assert.equal(fromInbox.status, 422);
        await server.people.revoke(alice.record.id);
        await server.people.remove("bob");

        const log = await entries(at);
        assert.deepEqual(log.map(brief), [
          "person.added admin:admin in-process added ",
          "person.added admin:admin in-process added ",
          "person.added admin:admin in-process added ",
          "token.issued admin:admin in-process issued ",
          "token.issued admin:admin in-process issued ",
          "token.issued admin:admin in-process issued ",
          "token.issued admin:admin cli issued ",
          "interaction.created program:ci api created ",
          "answer.refused person:bob inbox refused missing_scope",
          "answer.refused unknown:unknown api refused unauthorized",
          "interaction.answered person:alice inbox accept ",
          "answer.refused person:alice cli refused conflict",
          "interaction.created program:ci api created ",
          "interaction.answered person:chat:U1 chat decline ",
          "interaction.created program:ci api created ",
          "interaction.cancelled program:ci api cancelled superseded",
          "interaction.created admin:admin in-process created ",
          "interaction.expired runtime:runtime runtime expired timeout",
          "interaction.created program:ci api created ",
          "answer.refused person:alice inbox refused invalid_response",
          "token.revoked admin:admin in-process revoked ",
          "person.removed admin:admin in-process removed ",
        ]);
        assert.deepEqual(
          log.map((entry) => entry.seq),
          log.map((_, index) => index + 1),
        );
        const byId = (action: string, subject: string) =>
          log.find((entry) => entry.action === action && entry.subject === subject) as AuditEntry;
        // The request summarized: kind, source, title, command; never the reason or the question.
        const made = byId("interaction.created", id);
        assert.deepEqual(made.actor, { kind: "program", id: "ci", tokenId: ci.record.id });
        assert.deepEqual(made.summary, {
          kind: "approval_request",
          source: "tests",
          title: "Run npm publish",
          command: "npm publish",
        });
        const answer = byId("interaction.answered", id);
        assert.deepEqual(answer.actor, {
          kind: "person",
          id: "alice",
          name: "Alice Liddell",
          tokenId: alice.record.id,
        });
        assert.equal(answer.summary?.scope, "session");
        assert.equal(answer.summary?.claimedBy, "mallory");
        const refusals = log.filter((entry) => entry.action === "answer.refused");
        assert.match(refusals[0]?.message ?? "", /lacks the "answer" scope/);
        assert.equal(refusals[1]?.actor.tokenId, "0123456789abcdef");
        assert.match(refusals[2]?.message ?? "", /already resolved/);
        assert.equal(refusals[2]?.summary?.command, "npm publish");
        const asked = byId("interaction.created", String(question.body.id));
        assert.deepEqual(asked.summary, { kind: "user_input_request", source: "tests" });
        assert.ok(!JSON.stringify(log).includes("launch code"));
        assert.ok(!JSON.stringify(log).includes("the model's reason"));
        assert.deepEqual(byId("interaction.answered", String(question.body.id)).actor, {
          kind: "person",
          id: "chat:U1",
          name: "Uma",
        });
        assert.equal(byId("interaction.expired", late.id).message, "Nobody answered in time.");
        assert.match(
          byId("answer.refused", String(unshowable.body.id)).message ?? "",
          /the web inbox cannot show this approval_request in full \(payload\.changes\[0\]\.path is a number/,
        );
        assert.deepEqual(byId("token.revoked", alice.record.id).summary, {
          person: "alice",
          scopes: ["read", "answer"],
        });
        // No secret anywhere: neither a token nor its hash.
        for (const token of [alice, bob, ci])
          assert.ok(!JSON.stringify(log).includes(token.token.slice(21)));

        // The plain listing: a line an entry; --since a number or a time.
        const plain = await audit(at);
        assert.equal(plain.code, 0, plain.stderr);
        const lines = plain.stdout.trim().split("\n");
        assert.equal(lines.length, log.length);
        assert.match(
          lines[10] as string,
          new RegExp(
            `^11  \\S+Z  interaction\\.answered  accept  by alice \\(Alice Liddell, token ${alice.record.id}\\) via inbox  ${id}  kind=approval_request source=tests title="Run npm publish" command="npm publish" claimedBy=mallory scope=session$`,
          ),
        );
        assert.match(
          lines[9] as string,
          /answer\.refused {2}refused {2}by unknown \(token 0123456789abcdef\) via api/,
        );
        assert.deepEqual(
          (await entries(at, "--since", "20")).map((entry) => entry.seq),
          [20, 21, 22],
        );
        const since = (log[16] as AuditEntry).at;
        assert.ok((await entries(at, "--since", since)).every((entry) => entry.at >= since));

        const verified = await audit(at, "--verify");
        assert.equal(verified.code, 0, verified.stdout);
        const last = log.at(-1) as AuditEntry;
        assert.equal(
          verified.stdout,
          `audit log intact: 22 entries, the last 22 (${last.at}), head 22:${last.hash}\n`,
        );
        const head = await audit(at, "--head");
        assert.equal(head.stdout, `22:${last.hash}\n`);
        const expected = await audit(at, "--verify", "--expect-head", head.stdout.trim());
        assert.equal(expected.code, 0, expected.stdout);
      } finally {
        await at.close();
      }
    });
  });
}
