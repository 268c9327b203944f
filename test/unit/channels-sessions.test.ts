// The inbox's sign-in sessions on the SQLite store: started with the person upserted, taken by
// `Access` as the cookie's credential (read from the store each time: a removed person or an ended,
// expired session is refused), a program's id refused, and each step in the audit log.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Access, requireScope } from "../../src/channels/access.js";
import { ChannelsError } from "../../src/channels/errors.js";
import { People } from "../../src/channels/people.js";
import { SESSION_COOKIE, Sessions } from "../../src/channels/sessions.js";
import { SqliteInteractionStore } from "../../src/channels/sqlite-store.js";

const cleanup: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const step of cleanup.splice(0)) await step();
});

const HOUR = 60 * 60 * 1000;

async function setup() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sessions-"));
  const store = await SqliteInteractionStore.open(path.join(dir, "interactions.db"));
  cleanup.push(
    () => store.close(),
    () => rmSync(dir, { recursive: true, force: true }),
  );
  let now = new Date("2026-01-05T10:00:00.000Z");
  const sessions = new Sessions(store.people, {
    scopes: ["read", "answer"],
    ttlMs: HOUR,
    secure: false,
    issuer: "https://idp.example.com/",
    now: () => now,
  });
  return {
    store,
    sessions,
    people: new People(store.people),
    access: new Access("a".repeat(43), new People(store.people), {}, sessions),
    pass: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

/** A request carrying `cookie` (the value of a `Set-Cookie`, attributes dropped). */
function withCookie(setCookie: string | undefined, authorization?: string): IncomingMessage {
  const cookie = setCookie?.split(";")[0];
  return {
    headers: {
      ...(cookie ? { cookie: `other=1; ${cookie}` } : {}),
      ...(authorization ? { authorization } : {}),
    },
    socket: { remoteAddress: "192.0.2.1" },
  } as unknown as IncomingMessage;
}

const unauthorized = (error: unknown) =>
  error instanceof ChannelsError && error.status === 401 && error.code === "unauthorized";

describe("sign-in sessions", () => {
  it("a sign-in adds the person and starts a session the cookie stands for", async () => {
    const { sessions, access, people } = await setup();
    const started = await sessions.start({ id: "alice", name: "Alice", groups: ["release"] });
    assert.ok(started);
    assert.match(
      started.cookie,
      new RegExp(
        `^${SESSION_COOKIE}=[A-Za-z0-9_-]{43}; Max-Age=3600; Path=/; HttpOnly; SameSite=Strict$`,
      ),
    );
    assert.equal(started.person.kind, "person");
    assert.deepEqual((await people.get("alice"))?.groups, ["release"]);
    const found = await access.authenticate(withCookie(started.cookie));
    assert.deepEqual(found, {
      by: "session",
      identity: {
        kind: "person",
        id: "alice",
        name: "Alice",
        groups: ["release"],
        scopes: ["read", "answer"],
      },
    });
    assert.equal(await access.stillAllowed(withCookie(started.cookie), "answer"), true);
    assert.equal(await access.stillAllowed(withCookie(started.cookie), "create"), false);
    assert.throws(
      () => requireScope(found.identity, "operate", found.by),
      (error: unknown) =>
        error instanceof ChannelsError &&
        error.code === "missing_scope" &&
        /Signed-in people \(here alice\) lack the "operate" scope.*--oidc-scopes read,answer,operate/.test(
          error.message,
        ),
    );
  });

  it("a later sign-in updates the name, and the groups only when the provider sent them", async () => {
    const { sessions, people } = await setup();
    await people.add({ id: "bob", name: "B", groups: ["ops"] });
    await sessions.start({ id: "bob", name: "Bob", groups: undefined });
    assert.deepEqual(await people.get("bob"), {
      ...(await people.get("bob")),
      name: "Bob",
      groups: ["ops"],
    });
    await sessions.start({ id: "bob", name: "Bob", groups: ["release", "dev"] });
    assert.deepEqual((await people.get("bob"))?.groups, ["dev", "release"]);
    await sessions.start({ id: "bob", name: "Bob", groups: [] });
    assert.deepEqual((await people.get("bob"))?.groups, []);
  });

  it("a program's id cannot sign in", async () => {
    const { sessions, people } = await setup();
    await people.add({ id: "deploy-bot", kind: "program" });
    assert.equal(await sessions.start({ id: "deploy-bot", name: "x", groups: ["a"] }), undefined);
    assert.deepEqual((await people.get("deploy-bot"))?.groups, [], "nothing written");
  });

  it("refuses the cookie once the session ended, expired, or its person was removed", async () => {
    const { sessions, access, people, pass } = await setup();
    const ended = await sessions.start({ id: "alice", name: "Alice", groups: [] });
    assert.equal(await sessions.end(withCookie(ended?.cookie)), true);
    await assert.rejects(access.identify(withCookie(ended?.cookie)), unauthorized);
    assert.equal(await sessions.end(withCookie(ended?.cookie)), false);

    const expiring = await sessions.start({ id: "alice", name: "Alice", groups: [] });
    pass(HOUR - 1);
    assert.equal((await access.identify(withCookie(expiring?.cookie))).id, "alice");
    pass(1);
    await assert.rejects(access.identify(withCookie(expiring?.cookie)), unauthorized);

    const removed = await sessions.start({ id: "alice", name: "Alice", groups: [] });
    await people.remove("alice");
    await assert.rejects(access.identify(withCookie(removed?.cookie)), unauthorized);
    await people.add({ id: "alice" });
    await assert.rejects(
      access.identify(withCookie(removed?.cookie)),
      unauthorized,
      "a new alice does not inherit the old one's sessions",
    );
  });

  it("a bearer token wins over the cookie, and a bad one is refused whatever cookie comes along", async () => {
    const { sessions, access } = await setup();
    const started = await sessions.start({ id: "alice", name: "Alice", groups: [] });
    const admin = await access.authenticate(
      withCookie(started?.cookie, `Bearer ${"a".repeat(43)}`),
    );
    assert.deepEqual([admin.by, admin.identity.id], ["token", "admin"]);
    await assert.rejects(access.identify(withCookie(started?.cookie, "Bearer nope")), unauthorized);
    await assert.rejects(access.identify(withCookie(`${SESSION_COOKIE}=forged`)), unauthorized);
  });

  it("records the person added, each sign-in and each sign-out in the audit log", async () => {
    const { store, sessions } = await setup();
    const started = await sessions.start({ id: "alice", name: "Alice", groups: ["release"] });
    await sessions.start({ id: "alice", name: "Alice", groups: ["release"] });
    await sessions.end(withCookie(started?.cookie));
    const entries = (await store.audit.rows({ limit: 10 })).map((row) => JSON.parse(row.body));
    assert.deepEqual(
      entries.map((entry) => [entry.action, entry.actor.id, entry.surface, entry.decision]),
      [
        ["person.added", "alice", "inbox", "added"],
        ["session.started", "alice", "inbox", "signed-in"],
        ["session.started", "alice", "inbox", "signed-in"],
        ["session.ended", "alice", "inbox", "signed-out"],
      ],
    );
    assert.deepEqual(entries[1].summary, {
      name: "Alice",
      groups: ["release"],
      issuer: "https://idp.example.com/",
      scopes: ["read", "answer"],
      expiresAt: "2026-01-05T11:00:00.000Z",
    });
  });
});
