// Who a request is and what it may do: the per-address slowdown of bad tokens, the scope check's
// refusal, and `Access` telling the admin token, a person's token and a bad one apart.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Access, requireScope } from "../../src/channels/access.js";
import { BadTokenThrottle, TooManyBadTokens } from "../../src/channels/bad-tokens.js";
import { ChannelsError } from "../../src/channels/errors.js";
import { People } from "../../src/channels/people.js";
import { ADMIN, type Identity } from "../../src/channels/people-types.js";
import { SqliteInteractionStore } from "../../src/channels/sqlite-store.js";

const cleanup: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const step of cleanup.splice(0)) await step();
});

/** A clock the test moves. */
function clock(start = 1_000_000): { now: () => number; pass(ms: number): void } {
  let at = start;
  return { now: () => at, pass: (ms) => (at += ms) };
}

describe("BadTokenThrottle: bad tokens from one address slow it down", () => {
  it("lets the free failures through, then makes the address wait, twice as long each time", () => {
    const time = clock();
    const throttle = new BadTokenThrottle(
      { freeFailures: 3, baseDelayMs: 1_000, maxDelayMs: 5_000 },
      time.now,
    );
    for (let i = 0; i < 3; i++) {
      assert.equal(throttle.waitMs("10.0.0.1"), 0);
      throttle.failed("10.0.0.1");
    }
    assert.equal(throttle.waitMs("10.0.0.1"), 0, "three free ones");
    throttle.failed("10.0.0.1");
    assert.equal(throttle.waitMs("10.0.0.1"), 1_000);
    assert.throws(
      () => throttle.check("10.0.0.1"),
      (error: unknown) =>
        error instanceof TooManyBadTokens &&
        error.status === 429 &&
        error.code === "too_many_attempts" &&
        error.retryAfterMs === 1_000 &&
        /try again in 1 s/.test(error.message),
    );
    // Another address is not slowed by this one.
    assert.equal(throttle.waitMs("10.0.0.2"), 0);
    time.pass(1_000);
    assert.equal(throttle.waitMs("10.0.0.1"), 0);
    throttle.failed("10.0.0.1");
    assert.equal(throttle.waitMs("10.0.0.1"), 2_000);
    time.pass(2_000);
    throttle.failed("10.0.0.1");
    assert.equal(throttle.waitMs("10.0.0.1"), 4_000);
    time.pass(4_000);
    throttle.failed("10.0.0.1");
    assert.equal(throttle.waitMs("10.0.0.1"), 5_000, "capped at maxDelayMs");
    time.pass(100);
    assert.equal(throttle.waitMs("10.0.0.1"), 4_900);
  });

  it("forgets an address after a quiet while, and keeps at most maxAddresses", () => {
    const time = clock();
    const throttle = new BadTokenThrottle(
      { freeFailures: 0, baseDelayMs: 1_000, forgetAfterMs: 60_000, maxAddresses: 3 },
      time.now,
    );
    throttle.failed("a");
    assert.equal(throttle.waitMs("a"), 1_000);
    time.pass(60_001);
    assert.equal(throttle.waitMs("a"), 0);
    throttle.failed("a");
    assert.equal(throttle.waitMs("a"), 1_000, "starts afresh: the first wait again");
    for (const address of ["b", "c", "d", "e"]) throttle.failed(address);
    assert.equal(throttle.size, 3);
    assert.equal(throttle.waitMs("a"), 0, "the least recent went first");
    assert.equal(throttle.waitMs("e"), 1_000);
  });
});

describe("requireScope", () => {
  const alice: Identity = {
    kind: "person",
    id: "alice",
    name: "Alice",
    groups: [],
    scopes: ["read"],
  };

  it("passes a scope the identity has; the admin token has every one", () => {
    requireScope(alice, "read");
    for (const scope of ADMIN.scopes) requireScope(ADMIN, scope);
  });

  it("refuses one it lacks with 403 missing_scope, naming the scope and how to get it", () => {
    assert.throws(
      () => requireScope(alice, "answer"),
      (error: unknown) => {
        assert.ok(error instanceof ChannelsError);
        assert.equal(error.status, 403);
        assert.equal(error.code, "missing_scope");
        assert.match(error.message, /lacks the "answer" scope, which answering interactions needs/);
        assert.match(error.message, /it has "read"/);
        assert.match(error.message, /people token alice --scope read,answer/);
        return true;
      },
    );
    assert.throws(
      () => requireScope({ ...alice, kind: "program", id: "ci" }, "operate"),
      /of program ci\) lacks the "operate" scope, which cancelling/,
    );
  });
});

describe("Access", () => {
  const request = (authorization: string | undefined, address = "192.0.2.7") =>
    ({
      headers: authorization === undefined ? {} : { authorization },
      socket: { remoteAddress: address },
    }) as unknown as IncomingMessage;

  async function access() {
    const dir = mkdtempSync(path.join(os.tmpdir(), "channels-access-test-"));
    const store = await SqliteInteractionStore.open(path.join(dir, "interactions.db"));
    cleanup.push(
      () => store.close(),
      () => rmSync(dir, { recursive: true, force: true }),
    );
    const people = new People(store.people);
    await people.add({ id: "alice", name: "Alice", groups: ["release"] });
    const admin = "a".repeat(43);
    return {
      admin,
      people,
      access: new Access(admin, people, { freeFailures: 2, baseDelayMs: 60_000 }),
    };
  }

  const unauthorized = (error: unknown) =>
    error instanceof ChannelsError && error.status === 401 && error.code === "unauthorized";

  it("knows the admin token, a person's token, and refuses a missing, wrong or revoked one", async () => {
    const { admin, people, access: a } = await access();
    assert.equal(await a.identify(request(`Bearer ${admin}`)), ADMIN);
    const { token, record } = await people.issueToken("alice", "read");
    const alice = await a.identify(request(`bearer ${token}`, "192.0.2.8"));
    assert.deepEqual(alice, {
      kind: "person",
      id: "alice",
      name: "Alice",
      groups: ["release"],
      scopes: ["read"],
      tokenId: record.id,
    });
    assert.equal(await a.stillAllowed(request(`Bearer ${token}`), "read"), true);
    assert.equal(await a.stillAllowed(request(`Bearer ${token}`), "answer"), false);
    await people.revoke(record.id);
    await assert.rejects(a.identify(request(`Bearer ${token}`, "192.0.2.8")), unauthorized);
    assert.equal(await a.stillAllowed(request(`Bearer ${token}`), "read"), false);
    await assert.rejects(a.identify(request(undefined, "192.0.2.9")), unauthorized);
    await assert.rejects(a.identify(request(admin, "192.0.2.10")), unauthorized, "no scheme");
  });

  it("answers 429 to an address past its free failures, even with a good token", async () => {
    const { admin, access: a } = await access();
    await assert.rejects(a.identify(request("Bearer nope")), unauthorized);
    await assert.rejects(a.identify(request("Bearer nope")), unauthorized);
    await assert.rejects(a.identify(request("Bearer nope")), unauthorized);
    await assert.rejects(
      a.identify(request(`Bearer ${admin}`)),
      (error: unknown) => error instanceof TooManyBadTokens && error.retryAfterMs > 59_000,
    );
    // Another address is unaffected.
    assert.equal(await a.identify(request(`Bearer ${admin}`, "198.51.100.1")), ADMIN);
  });
});
