// `codex-harness threads` on the real codex: saved threads listed, archived, brought back and
// renamed from the command line (threads made through the SDK on a ScriptedModel first).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { reply } from "../../src/testing/script.js";
import { runCli } from "../support/cli.js";
import { fixturesClosedAfterAll } from "../support/codex-api-fixture.js";

const fixtureOf = fixturesClosedAfterAll();

describe("codex-harness threads (real codex)", () => {
  it("lists saved threads newest first; archive, unarchive and rename act on one", async () => {
    const fixture = await fixtureOf("app-server", [reply("one"), reply("two")]);
    const ids: string[] = [];
    for (const word of ["first words", "second words"]) {
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      await thread.run(word);
      ids.push(thread.id as string);
    }
    await fixture.codex.close();
    const [first, second] = ids as [string, string];
    const home = ["--codex-home", fixture.codexHome];
    const cli = async (...args: string[]) => {
      const result = await runCli([...args, ...home]);
      assert.equal(result.code, 0, result.stderr);
      return result.stdout.trim().split("\n").filter(Boolean);
    };

    const lines = await cli("threads");
    assert.equal(lines.length, 2);
    assert.match(
      lines[0] ?? "",
      new RegExp(`^${second}  \\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}  second words$`),
    );
    assert.ok(lines[1]?.startsWith(first));
    const [json] = await cli("threads", "list", "--json", "--limit", "1");
    assert.equal(JSON.parse(json ?? "{}").id, second, "JSONL, codex's fields, the limit held");

    assert.deepEqual(await cli("threads", "archive", first), [`Archived ${first}.`]);
    assert.equal((await cli("threads")).length, 1);
    assert.ok((await cli("threads", "list", "--archived"))[0]?.startsWith(first));
    assert.deepEqual(await cli("threads", "unarchive", first), [`Unarchived ${first}.`]);
    await cli("threads", "rename", first, "The first thread");
    const renamed = await cli("threads");
    assert.ok(renamed.some((line) => line.startsWith(first) && line.endsWith("The first thread")));

    const missing = await runCli(["threads", "archive", "not-a-thread", ...home]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: thread\/archive failed: /);
  });
});
