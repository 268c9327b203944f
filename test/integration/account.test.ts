// Logging codex in and out through the SDK (real codex, offline): an API key, a ChatGPT login
// started and cancelled, a device-code login that cannot reach OpenAI, the account as codex says.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Codex } from "../../src/codex.js";
import { RpcWireError } from "../../src/rpc/errors.js";

const cleanups: (() => Promise<unknown>)[] = [];
after(() => Promise.all(cleanups.map((cleanup) => cleanup())));

/** A Codex on an empty home of its own: codex's default provider, which needs an OpenAI login. */
async function codexOf() {
  const home = await mkdtemp(path.join(tmpdir(), "codex-harness-account-"));
  const codex = new Codex({ codexHome: home });
  cleanups.push(async () => {
    await codex.close();
    await rm(home, { recursive: true, force: true });
  });
  return codex;
}

describe("codex login and account through the SDK (real codex)", () => {
  it("an API key logs in; logout logs out; the account says so each time", async () => {
    const codex = await codexOf();
    const before = await codex.account();
    assert.equal(before.account, null, "nobody logged in");
    assert.equal(before.requiresOpenaiAuth, true);
    await codex.login({ apiKey: "sk-test-account" });
    assert.equal((await codex.account()).account?.type, "apiKey");
    await assert.rejects(codex.rateLimits(), (error) => {
      assert.ok(error instanceof RpcWireError);
      assert.match(error.message, /chatgpt authentication required/);
      return true;
    });
    await codex.logout();
    assert.equal((await codex.account()).account, null);
    await assert.rejects(codex.login({ apiKey: " " }), { code: "invalid_input" });
  });

  it("a ChatGPT login gives the address to open; each wait takes only its own login's end", async () => {
    const codex = await codexOf();
    const first = await codex.loginWithChatGPT();
    assert.match(first.authUrl, /^https:\/\/auth\.openai\.com\/oauth\/authorize\?/);
    assert.match(first.loginId, /^[0-9a-f-]{36}$/);
    // A second login makes codex cancel the first: that completion is the first's alone.
    const second = await codex.loginWithChatGPT();
    assert.notEqual(second.loginId, first.loginId);
    await assert.rejects(first.wait({ timeoutMs: 20_000 }), {
      code: "login_failed",
      message: /Login cancelled/,
    });
    await assert.rejects(second.wait({ timeoutMs: 300 }), { code: "login_timeout" });
    const controller = new AbortController();
    const aborted = second.wait({ signal: controller.signal });
    controller.abort(new Error("gave up"));
    await assert.rejects(aborted, /gave up/);
    // Cancelled, the second ends too.
    assert.equal(await second.cancel(), "canceled");
    await assert.rejects(second.wait({ timeoutMs: 20_000 }), {
      code: "login_failed",
      message: /not completed/,
    });
  });

  it("codex closing while a login waits ends the wait with why, not at its timeout", async () => {
    const codex = await codexOf();
    const login = await codex.loginWithChatGPT();
    const waited = login.wait({ timeoutMs: 60_000 }).then(
      () => "completed",
      (error: unknown) => error,
    );
    const started = Date.now();
    await codex.close();
    const outcome = await waited;
    assert.ok(outcome instanceof Error, String(outcome));
    assert.ok(Date.now() - started < 5_000, `ended ${Date.now() - started} ms after the close`);
  });

  it("a device-code login that cannot reach OpenAI fails at once with codex's reason", async () => {
    const codex = await codexOf();
    const started = Date.now();
    await assert.rejects(codex.loginWithDeviceCode(), (error) => {
      assert.ok(error instanceof RpcWireError, String(error));
      assert.match(error.message, /device code/);
      return true;
    });
    assert.ok(Date.now() - started < 30_000, `failed in ${Date.now() - started} ms`);
  });
});
