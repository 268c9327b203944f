// A worker's warm sessions: taken only for the state they are warm for, the oldest closed when
// full, closed when idle or when the worker's generation ends; a close that fails is logged. Those
// let go while the worker runs (idle, the oldest) are forgotten in the store too.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type WarmSession, WarmSessions } from "../../src/fleet/warm-sessions.js";
import type { LiveSession } from "../../src/session/live-session.js";
import { eventually } from "../support/eventually.js";

/** A warm session whose closing is recorded in `closed` (and fails when `failing`). */
function warm(sessionId: string, closed: string[], failing = false): WarmSession {
  return {
    sessionId,
    live: {
      close: async () => {
        closed.push(`${sessionId} codex`);
        if (failing) throw new Error("codex would not stop");
      },
    } as unknown as LiveSession,
    claimed: {
      aspHome: "/nowhere",
      release: async () => {
        closed.push(`${sessionId} home`);
      },
    },
    version: 1,
    manifestHash: "hash",
  };
}

describe("WarmSessions", () => {
  it("takes a session only for the version and install it is warm for; closes it otherwise", async () => {
    const closed: string[] = [];
    const sessions = new WarmSessions(4, 60_000, () => undefined);
    const a = warm("a", closed);
    await sessions.keep(a);
    assert.equal(await sessions.take("a", 1, "hash"), a);
    assert.equal(await sessions.take("a", 1, "hash"), undefined, "taken once");
    await sessions.keep(a);
    assert.equal(await sessions.take("a", 2, "hash"), undefined, "moved on elsewhere");
    assert.deepEqual(closed, ["a codex", "a home"]);
    await sessions.keep(warm("b", closed));
    assert.equal(await sessions.take("b", 1, "other"), undefined, "target changed");
    assert.deepEqual(closed.slice(2), ["b codex", "b home"]);
    await sessions.close();
  });

  it("closes the oldest when full, and everything (later ones too) once closed", async () => {
    const closed: string[] = [];
    const sessions = new WarmSessions(2, 60_000, () => undefined);
    await sessions.keep(warm("a", closed));
    await sessions.keep(warm("b", closed));
    await sessions.keep(warm("c", closed));
    assert.deepEqual(closed, ["a codex", "a home"]);
    await sessions.close();
    assert.deepEqual(closed.slice(2).sort(), ["b codex", "b home", "c codex", "c home"]);
    await sessions.keep(warm("d", closed));
    assert.deepEqual(closed.slice(6), ["d codex", "d home"]);
  });

  it("closes a session left idle; a failed close is logged and its home still let go", async () => {
    const closed: string[] = [];
    const logged: string[] = [];
    const sessions = new WarmSessions(4, 20, (line) => logged.push(line));
    await sessions.keep(warm("idle", closed, true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(closed, ["idle codex", "idle home"]);
    assert.match(
      logged[0] ?? "",
      /closing session idle's warm codex \(idle\) failed: codex would not stop/,
    );
    assert.equal(await sessions.take("idle", 1, "hash"), undefined);
  });

  it("tells the store of the sessions it let go when idle or the oldest, not of those taken, replaced or closed", async () => {
    const closed: string[] = [];
    const forgotten: string[] = [];
    const logged: string[] = [];
    const sessions = new WarmSessions(
      2,
      50,
      (line) => logged.push(line),
      async (sessionId) => {
        forgotten.push(sessionId);
        if (sessionId === "b") throw new Error("database gone");
      },
    );
    await sessions.keep(warm("a", closed));
    await sessions.take("a", 1, "hash");
    await sessions.keep(warm("a", closed));
    await sessions.keep(warm("a", closed));
    assert.deepEqual(closed, ["a codex", "a home"], "the replaced one is closed");
    assert.deepEqual(forgotten, [], "taken or replaced: still warm here");
    await sessions.keep(warm("b", closed));
    await sessions.keep(warm("c", closed));
    assert.deepEqual(forgotten, ["a"], "the oldest");
    await eventually("b and c forgotten when idle", () => forgotten.length >= 3 || undefined, {
      timeoutMs: 5_000,
    });
    assert.deepEqual(forgotten.slice(1).sort(), ["b", "c"], "idle");
    assert.match(logged.join("\n"), /forgetting session b as warm \(idle\) failed: database gone/);
    await sessions.keep(warm("d", closed));
    await sessions.close();
    assert.deepEqual(forgotten.slice(3), [], "closing: the worker's lease ends with it");
  });

  it("keeps none with 0", async () => {
    const closed: string[] = [];
    const sessions = new WarmSessions(0, 60_000, () => undefined);
    await sessions.keep(warm("a", closed));
    assert.deepEqual(closed, ["a codex", "a home"]);
  });

  it("refuses a warm-session count or idle time it cannot keep", () => {
    assert.throws(() => WarmSessions.check(-1, 1000), /warmSessions must be a whole number >= 0/);
    assert.throws(() => WarmSessions.check(1.5, 1000), /warmSessions must be a whole number/);
    assert.throws(() => WarmSessions.check(2, Number.NaN), /warmIdleMs must be a number/);
    assert.doesNotThrow(() => WarmSessions.check(0, 0));
  });
});
