// Params an older codex would drop without a word are refused with FeatureNotSupportedError, before anything is sent.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppServerClient } from "../../src/app-server/client.js";
import {
  compareCodexVersions,
  FeatureNotSupportedError,
  unsupportedParam,
} from "../../src/app-server/codex-features.js";
import { InMemoryTransport } from "../../src/rpc/transport.js";

/** An app-server over an in-memory pair that introduces itself as `version` and records methods. */
async function fakeCodex(version: string) {
  const [ours, theirs] = InMemoryTransport.createPair();
  const methods: string[] = [];
  theirs.onmessage = (message) => {
    const { id, method } = message as { id?: number; method?: string };
    if (method) methods.push(method);
    if (id === undefined) return;
    const result =
      method === "initialize"
        ? {
            userAgent: `codex_harness/${version} (Debian 12.0.0; x86_64) xterm (codex_harness; 0.1.0)`,
            codexHome: "/tmp/codex-home",
            platformFamily: "unix",
            platformOs: "linux",
          }
        : { turn: { id: "turn_1", items: [], status: "inProgress", error: null } };
    void theirs.send({ id, result });
  };
  await theirs.start();
  const client = await AppServerClient.connect(ours, { initializeTimeoutMs: 5_000 });
  return { client, methods };
}

const turnStart = {
  threadId: "thr_1",
  input: [{ type: "text" as const, text: "hi", text_elements: [] }],
  cyberAccessProgram: "daybreakBlue" as const,
};

describe("params older codex releases do not read", () => {
  it("compares versions numerically, and cannot compare what is not one", () => {
    assert.ok(compareCodexVersions("0.150.1", "0.151.0") < 0);
    assert.ok(compareCodexVersions("0.169.0", "0.151.0") > 0);
    assert.equal(compareCodexVersions("0.151.0", "0.151.0"), 0);
    assert.ok(compareCodexVersions("0.99.0", "0.151.0") < 0);
    assert.ok(Number.isNaN(compareCodexVersions("unknown", "0.151.0")));
  });

  it("finds turn/start's cyberAccessProgram unsupported before 0.161.0 only", () => {
    const error = unsupportedParam("turn/start", turnStart, "0.159.3");
    assert.ok(error instanceof FeatureNotSupportedError);
    assert.equal(error.code, "feature_not_supported");
    assert.equal(error.feature, "turn/start.cyberAccessProgram");
    assert.equal(error.since, "0.161.0");
    assert.match(error.message, /not supported by this codex version \(0\.159\.3\).*0\.161\.0/);
    assert.equal(unsupportedParam("turn/start", turnStart, "0.161.0"), undefined);
    assert.equal(unsupportedParam("turn/start", turnStart, "unknown"), undefined);
    const { cyberAccessProgram: _left, ...plain } = turnStart;
    assert.equal(unsupportedParam("turn/start", plain, "0.150.0"), undefined);
    assert.equal(
      unsupportedParam("thread/start", { cyberAccessProgram: "x" }, "0.150.0"),
      undefined,
    );
  });

  it("finds thread/list's includedThreadIds (listThreads' threadIds) unsupported before 0.171.0", () => {
    // 0.169.0 takes the param and lists every thread all the same.
    const params = { includedThreadIds: ["t1"] };
    const error = unsupportedParam("thread/list", params, "0.169.0");
    assert.equal(error?.feature, "thread/list.includedThreadIds");
    assert.equal(error?.since, "0.171.0");
    assert.equal(unsupportedParam("thread/list", params, "0.171.0"), undefined);
    assert.equal(unsupportedParam("thread/list", {}, "0.169.0"), undefined);
  });

  it("AppServerClient rejects the request at once on an older codex and sends nothing", async () => {
    const { client, methods } = await fakeCodex("0.160.1");
    try {
      await assert.rejects(client.request("turn/start", turnStart), FeatureNotSupportedError);
      assert.deepEqual(methods, ["initialize", "initialized"]);
    } finally {
      await client.close();
    }
  });

  it("sends it to a codex that reads it", async () => {
    const { client, methods } = await fakeCodex("0.161.0");
    try {
      const { turn } = await client.request("turn/start", turnStart);
      assert.equal(turn.id, "turn_1");
      assert.deepEqual(methods, ["initialize", "initialized", "turn/start"]);
    } finally {
      await client.close();
    }
  });
});
