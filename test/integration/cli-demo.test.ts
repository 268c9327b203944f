import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { bin, runCli, startCli } from "../support/cli.js";
import { eventually } from "../support/eventually.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for ANSI escapes is the point.
const ANSI = /\u001b\[/;

/** Runs the CLI with `input` on stdin. */
const cli = (args: string[], input = "", env: Record<string, string | undefined> = process.env) =>
  runCli(args, { input, env });

describe("codex-harness demo", () => {
  it("--yes runs the whole scripted session offline and shows it readably", async () => {
    const { code, stdout } = await cli(["demo", "--yes"]);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /I'll take a look at the project first\./);
    assert.match(stdout, /\$ \/bin\/bash -lc 'ls -la'/);
    assert.match(
      stdout,
      /\? Run .*hello\.sh.* outside the sandbox — Create hello\.sh .*\? yes \(--yes\)/,
    );
    assert.match(stdout, /✎ add .*README\.md\n {2}\+# Demo project/);
    // Markdown rendered: no ** on a pipe.
    assert.match(stdout, /Done\. I created hello\.sh \(it prints a greeting\)/);
    assert.match(stdout, /✓ turn completed · \d+ in \(0 cached\) \/ \d+ out tokens/);
    assert.match(stdout, /Files in the project now: README\.md, hello\.sh/);
    assert.ok(!ANSI.test(stdout), "no colours when stdout is not a terminal");
  });

  it("Ctrl-C while it asks interrupts the turn and removes its temp project", async () => {
    const demo = startCli(["demo"]);
    await eventually("the approval question", async () =>
      /\[y\/N\]/.test(demo.output.stdout) ? true : undefined,
    );
    const project = /^(\/\S*codex-harness-demo-\S*)\/project$/m.exec(demo.output.stdout)?.[1];
    assert.ok(project && existsSync(project), demo.output.stdout);
    demo.child.kill("SIGINT");
    assert.equal(await demo.closed, 130, demo.output.stdout + demo.output.stderr);
    assert.match(demo.output.stderr, /^interrupted: codex stopped the turn$/m);
    assert.equal(existsSync(project), false, "the temp project is gone");
  });

  it("asks at the prompt: yes to the command, no to the file change", async () => {
    const { code, stdout } = await cli(["demo"], "y\nn\n");
    assert.equal(code, 0, stdout);
    assert.match(stdout, /outside the sandbox .*\[y\/N\]/);
    assert.match(stdout, /✗ declined by you at the prompt: .*README\.md/);
    assert.match(stdout, /You declined 1 of my changes/);
    assert.match(stdout, /Files in the project now: hello\.sh\n/);
  });

  it("declines everything when nobody answers (stdin closed)", async () => {
    const { code, stdout } = await cli(["demo"]);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /You declined 2 of my changes/);
    assert.match(stdout, /Files in the project now: \(none\)/);
  });
});

describe("codex-harness run", () => {
  async function withScriptedHome<T>(
    text: string,
    body: (env: NodeJS.ProcessEnv, cwd: string) => Promise<T>,
  ) {
    const root = await mkdtemp(path.join(tmpdir(), "codex-harness-run-"));
    const home = path.join(root, "home");
    const cwd = path.join(root, "work");
    await mkdir(cwd, { recursive: true });
    const model = await ScriptedModel.start({ responses: [reply(text)] });
    try {
      await model.writeCodexHome(home);
      return await body({ ...process.env, CODEX_HOME: home }, cwd);
    } finally {
      await model.close();
      await rm(root, { recursive: true, force: true });
    }
  }

  it("--json prints the event stream as JSONL, using the user's CODEX_HOME", async () => {
    await withScriptedHome("Hi from your config.", async (env, cwd) => {
      const { code, stdout } = await cli(
        ["run", "hello", "--json", "--cd", cwd, "--skip-git-repo-check"],
        "",
        env,
      );
      assert.equal(code, 0, stdout);
      const events = stdout
        .trim()
        .split("\n")
        .map(
          (line) => JSON.parse(line) as { type: string; item?: { type: string; text?: string } },
        );
      assert.equal(events[0]?.type, "thread.started");
      assert.equal(events.at(-1)?.type, "turn.completed");
      const message = events.find(
        (e) => e.type === "item.completed" && e.item?.type === "agent_message",
      );
      assert.equal(message?.item?.text, "Hi from your config.");
    });
  });

  it("renders the turn for a person", async () => {
    await withScriptedHome("Plain answer.", async (env, cwd) => {
      const { code, stdout } = await cli(
        ["run", "hello", "--cd", cwd, "--skip-git-repo-check"],
        "",
        env,
      );
      assert.equal(code, 0, stdout);
      assert.match(stdout, /Plain answer\./);
      assert.match(stdout, /✓ turn completed/);
    });
  });

  for (const transport of ["app-server", "exec"]) {
    it(`refuses a folder outside git without --skip-git-repo-check, like codex exec (${transport})`, async () => {
      await withScriptedHome("Never sent.", async (env, cwd) => {
        const { code, stdout, stderr } = await cli(
          ["run", "hello", "--cd", cwd, "--transport", transport],
          "",
          env,
        );
        assert.equal(code, 1, stdout);
        assert.match(
          stderr,
          /Not inside a trusted directory and --skip-git-repo-check was not specified/,
        );
        if (transport === "app-server") assert.match(stderr, /pass --skip-git-repo-check/);
      });
    });
  }
});

const hasScript = await promisify(execFile)("script", ["--version"]).then(
  () => true,
  () => false,
);

describe("codex-harness demo on a terminal", () => {
  it("uses colours on a TTY", {
    skip: hasScript ? false : "util-linux `script` is not installed",
  }, async () => {
    const { stdout } = await promisify(execFile)(
      "script",
      ["-qec", `${process.execPath} ${bin} demo --yes`, "/dev/null"],
      { timeout: 60_000, env: { ...process.env, NO_COLOR: "" } },
    );
    assert.ok(ANSI.test(stdout), "a terminal gets colours");
    assert.match(stdout, /turn completed/);
  });
});
