// apiKey (or CODEX_API_KEY in env) authenticates the model requests on app-server as on exec, never on disk.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { Codex } from "../../src/codex.js";
import { reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import type { CodexOptions } from "../../src/turns/options.js";

/** Every file under `dir` whose content contains `secret`. */
async function filesContaining(dir: string, secret: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if ((await readFile(file)).includes(secret)) found.push(path.relative(dir, file));
  }
  return found;
}

describe("the API key on app-server", () => {
  const cases: [string, (key: string) => Partial<CodexOptions>][] = [
    ["apiKey", (key) => ({ apiKey: key })],
    ["CODEX_API_KEY in env", (key) => ({ env: { CODEX_API_KEY: key } })],
  ];
  for (const [name, options] of cases) {
    it(`${name} reaches the model as a bearer token and is written nowhere`, async () => {
      const root = await mkdtemp(path.join(tmpdir(), "codex-harness-key-"));
      const home = path.join(root, "home");
      await mkdir(home);
      const model = await ScriptedModel.start({ responses: [reply("Hi!")] });
      const key = `sk-test-${name.length}-secret`;
      const given = options(key);
      // The built-in OpenAI provider pointed at the model, as the official SDK's tests do.
      const codex = new Codex({
        baseUrl: model.url,
        ...given,
        env: { ...(process.env as Record<string, string>), ...given.env, CODEX_HOME: home },
      });
      try {
        const thread = codex.startThread({ workingDirectory: root, skipGitRepoCheck: true });
        assert.equal((await thread.run("hello")).finalResponse, "Hi!");
        const turns = model.requests.filter((request) => request.method === "POST");
        assert.ok(turns.length > 0);
        for (const request of turns) assert.equal(request.headers.authorization, `Bearer ${key}`);
      } finally {
        await codex.close();
        await model.close();
      }
      assert.deepEqual(await filesContaining(root, key), [], "the key is on disk");
      await rm(root, { recursive: true, force: true });
    });
  }
});
