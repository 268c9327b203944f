// What the fleet sends PostgreSQL and how it reads its failures: jsonb without NUL, outages told
// apart from refusals, request fields checked before anything is written.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CodexHarnessError } from "../../src/errors.js";
import { isConnectionError, throughOutage } from "../../src/fleet/outage.js";
import { checkTurnFields, MAX_SESSION_ID_CHARS } from "../../src/fleet/request-check.js";
import { jsonForPostgres } from "../../src/fleet/store.js";

describe("jsonForPostgres", () => {
  it("turns NUL characters into U+FFFD and leaves everything else as JSON.stringify has it", () => {
    const value = {
      a: "x\u0000y",
      b: "a literal \\u0000 stays",
      c: "\\\u0000",
      d: [1, null, "\u0001"],
    };
    const text = jsonForPostgres(value);
    assert.doesNotMatch(text.replace(/\\\\/g, ""), /\\u0000/);
    assert.deepEqual(JSON.parse(text), {
      a: "x\ufffdy",
      b: "a literal \\u0000 stays",
      c: "\\\ufffd",
      d: [1, null, "\u0001"],
    });
  });
});

describe("isConnectionError", () => {
  it("knows a server that is gone or starting from a statement it refused", () => {
    const coded = (code: string, message = "x") => Object.assign(new Error(message), { code });
    assert.equal(isConnectionError(coded("ECONNREFUSED")), true);
    assert.equal(isConnectionError(coded("57P01", "terminating connection")), true);
    assert.equal(isConnectionError(coded("57P03", "the database system is starting up")), true);
    assert.equal(isConnectionError(new Error("Connection terminated unexpectedly")), true);
    assert.equal(isConnectionError(new Error("wrapped", { cause: coded("ECONNRESET") })), true);
    assert.equal(isConnectionError(new Error("connect ECONNREFUSED 127.0.0.1:5432")), true);
    assert.equal(isConnectionError(coded("22P05", "unsupported Unicode escape sequence")), false);
    assert.equal(isConnectionError(coded("23505", "duplicate key")), false);
  });

  it("throughOutage retries only through outages, and gives up with store_unreachable", async () => {
    let calls = 0;
    const said: string[] = [];
    const value = await throughOutage(
      async () => {
        calls += 1;
        if (calls < 3) throw Object.assign(new Error("refused"), { code: "ECONNREFUSED" });
        return "ok";
      },
      { giveUpMs: 60_000, onOutage: (state) => said.push(state) },
    );
    assert.equal(value, "ok");
    assert.deepEqual(said, ["waiting", "back"]);
    await assert.rejects(
      throughOutage(
        async () => Promise.reject(Object.assign(new Error("bad"), { code: "22P05" })),
        {
          giveUpMs: 60_000,
        },
      ),
      /bad/,
    );
    await assert.rejects(
      throughOutage(
        async () => Promise.reject(Object.assign(new Error("down"), { code: "ECONNREFUSED" })),
        {
          giveUpMs: 300,
        },
      ),
      (error: unknown) => error instanceof CodexHarnessError && error.code === "store_unreachable",
    );
    // The give-up error quotes the connection's own words, then the caller's advice.
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), {
      code: "ECONNREFUSED",
    });
    await assert.rejects(
      throughOutage(
        async () => Promise.reject(new Error("Cannot use PostgreSQL at …", { cause: refused })),
        { giveUpMs: 0, advice: "Check the server." },
      ),
      /^CodexHarnessError: PostgreSQL was unreachable for 0 s \(connect ECONNREFUSED 127\.0\.0\.1:1\); gave up\. Check the server\.$/,
    );
  });
});

describe("checkTurnFields", () => {
  const good = { externalSessionId: "s", externalRunId: "r", target: "dev", prompt: "hi" };
  it("names the field and the limit", () => {
    assert.doesNotThrow(() => checkTurnFields("submitTurn", good));
    const refused = (fields: Record<string, unknown>, pattern: RegExp) =>
      assert.throws(
        () => checkTurnFields("submitTurn", { ...good, ...fields }),
        (error: unknown) =>
          error instanceof CodexHarnessError &&
          error.code === "invalid_input" &&
          pattern.test(error.message),
      );
    refused(
      { externalSessionId: "x".repeat(MAX_SESSION_ID_CHARS + 1) },
      /`externalSessionId` is 101 characters; the limit is 100/,
    );
    refused({ prompt: "a\u0000b" }, /`prompt` contains a NUL character/);
    refused({ target: 42 }, /non-empty string `target`/);
    refused({ model: " " }, /non-empty string `model`/);
  });
});
