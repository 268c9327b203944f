// docs/editors.md's "Try it offline", as written: `codex-harness scripted-model` and the editor
// settings' arguments (`acp --target offline --project …/examples/spaces-project`), driven by an
// editor on a copy of the example project — on a free port instead of 4545, beside other tests.
import assert from "node:assert/strict";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { answerText, startAcpAgent } from "../support/acp-editor.js";
import { allow, openSession, promptOf } from "../support/acp-session.js";
import { startCli } from "../support/cli.js";
import { eventually } from "../support/eventually.js";
import { repoRoot } from "../support/paths.js";

const CLONE = "/path/to/codex-harness";

/** The section's code blocks: its sh lines and its editor settings. */
async function recipe(): Promise<{ sh: string; settings: unknown }> {
  const page = await readFile(path.join(repoRoot, "docs/editors.md"), "utf8");
  const start = page.indexOf("## Try it offline");
  assert.ok(start !== -1, "docs/editors.md has a Try it offline section");
  const section = page.slice(start, page.indexOf("\n## ", start + 1));
  const block = (language: string) =>
    new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(section)?.[1] ?? "";
  return { sh: block("sh"), settings: JSON.parse(block("json")) };
}

describe("docs/editors.md: Try it offline", () => {
  it("the scripted model and the offline target: ls runs, touch is asked, git push is declined", async () => {
    const { sh, settings } = await recipe();
    assert.equal(sh, "npx codex-harness scripted-model &\n");
    const server = (settings as { agent_servers: Record<string, { args: string[] }> })
      .agent_servers["codex-harness offline"];
    const args = server?.args ?? [];
    assert.deepEqual(args.slice(0, 2), [`${CLONE}/bin/codex-harness.js`, "acp"]);

    const root = await mkdtemp(path.join(tmpdir(), "codex-harness-acp-offline-"));
    const project = path.join(root, "spaces-project");
    await cp(path.join(repoRoot, "examples/spaces-project"), project, { recursive: true });
    const model = startCli(["scripted-model", "--port", "0"]);
    model.child.stdin.end();
    try {
      const url = await eventually(
        "the scripted model's URL",
        () => /^(http:\/\/127\.0\.0\.1:\d+)/m.exec(model.output.stdout)?.[1],
      );
      const space = path.join(project, "spaces/offline-model/space.toml");
      const toml = await readFile(space, "utf8");
      assert.ok(toml.includes("http://127.0.0.1:4545"), "the space names the recipe's port");
      await writeFile(space, toml.replace("http://127.0.0.1:4545", url));

      const agentArgs = args
        .slice(2)
        .map((arg) => (arg === `${CLONE}/examples/spaces-project` ? project : arg));
      assert.ok(agentArgs.includes(project), "the settings name the example project");
      const agent = startAcpAgent(agentArgs, {
        ...process.env,
        CODEX_HOME: path.join(root, "home"),
      });
      try {
        const { editor, sessionId } = await openSession(agent, project, allow("allow_once"));
        const prompt = promptOf(editor, sessionId);

        assert.equal((await prompt("run: ls")).stopReason, "end_turn");
        assert.equal(editor.asked.length, 0, "ls is the target's to allow, nobody is asked");
        assert.match(answerText(editor.updates), /exited 0[\s\S]*asp-targets\.toml/);

        let before = editor.updates.length;
        assert.equal((await prompt("run: touch notes.txt")).stopReason, "end_turn");
        assert.equal(editor.asked.length, 1, "touch is asked in the editor");
        assert.match(answerText(editor.updates.slice(before)), /exited 0/);

        before = editor.updates.length;
        assert.equal((await prompt("run: git push origin main")).stopReason, "end_turn");
        assert.equal(editor.asked.length, 1, "git push is declined by the rules, unasked");
        assert.match(answerText(editor.updates.slice(before)), /did not run|exited [^0]/);
        assert.deepEqual(agent.invalid, []);
      } finally {
        agent.child.stdin.end();
        await agent.closed;
      }
    } finally {
      model.child.kill("SIGTERM");
      await model.closed;
      await rm(root, { recursive: true, force: true });
    }
  });
});
