// The default model provider on the real codex (0.171.0's modelProvider/default/set) with a
// ScriptedModel behind two configured providers: listed, changed for new threads, refused for a
// provider codex does not know, and not applied where this Codex's own config overrides it.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Codex } from "../../src/codex.js";
import { RpcWireError } from "../../src/rpc/errors.js";
import { reply } from "../../src/testing/script.js";
import { type CodexApiFixture, FULL_ACCESS, startCodexApi } from "../support/codex-api-fixture.js";

describe("the default model provider (real codex, ScriptedModel)", () => {
  let fixture: CodexApiFixture;
  after(() => fixture?.close());

  it("lists the providers, makes another the default for new threads, refuses an unknown one", async () => {
    fixture = await startCodexApi("app-server", [reply("From the backup provider.")]);
    // A second provider, "backup", at the same scripted model.
    const scripted = (
      fixture.model.codexConfig() as { model_providers: Record<string, Record<string, unknown>> }
    ).model_providers.scripted;
    await fixture.model.writeCodexHome(fixture.codexHome, {
      ...FULL_ACCESS,
      model_providers: { backup: { ...scripted, name: "Backup" } },
    });
    const before = await fixture.codex.modelProviders();
    assert.equal(before.defaultProviderId, "scripted");
    assert.equal(before.canChangeDefault, true);
    assert.deepEqual(before.data.map((p) => p.id).sort(), ["backup", "openai", "scripted"]);

    const change = await fixture.codex.setDefaultModelProvider("backup");
    assert.equal(change.applied, true);
    assert.equal(change.defaultProviderId, "backup");
    assert.equal(change.write.status, "ok");
    assert.equal((await fixture.codex.modelProviders()).defaultProviderId, "backup");
    const toml = await readFile(path.join(fixture.codexHome, "config.toml"), "utf8");
    assert.match(toml, /^model_provider = "backup"$/m);
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    assert.equal((await thread.run("hi")).finalResponse, "From the backup provider.");
    const { thread: saved } = await fixture.codex.appServer.readThread(thread.id as string);
    assert.equal(saved.modelProvider, "backup");

    await assert.rejects(fixture.codex.setDefaultModelProvider("nope"), (error: unknown) => {
      assert.ok(error instanceof RpcWireError);
      assert.match(error.message, /`nope` is not configured/);
      return true;
    });
  });

  it("says the new default is not applied where the Codex's config names a provider", async () => {
    const pinned = new Codex({
      codexHome: fixture.codexHome,
      config: { model_provider: "scripted" },
    });
    try {
      assert.equal((await pinned.modelProviders()).canChangeDefault, false);
      const change = await pinned.setDefaultModelProvider("backup");
      assert.equal(change.applied, false);
      assert.equal(change.write.status, "okOverridden");
      assert.equal(change.defaultProviderId, "scripted");
    } finally {
      await pinned.close();
    }
  });
});
