import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { tryOutAnswer } from "../../src/cli/scripted-model.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { runCli, startCli } from "../support/cli.js";
import { repoRoot } from "../support/paths.js";
import { postgresMissing, startPostgres } from "../support/postgres.js";
import { useScriptedModel } from "../support/target-home.js";

const run = promisify(execFile);

/**
 * Runs a compiled example of the README or a guide the way a user would:
 * `node build/examples/<name>.js` — outside this test run (an example that is a test of its own
 * then reports as a user sees it, not to this runner).
 */
async function runExample(name: string, extra: Record<string, string> = {}): Promise<string> {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const { stdout } = await run(
    process.execPath,
    [path.join(repoRoot, "build/examples", `${name}.js`)],
    { cwd: repoRoot, env: { ...env, ...extra }, timeout: 60_000 },
  );
  return stdout;
}

describe("examples of the README and docs/", () => {
  it("first-turn (the README's): the file is written, the reply printed", async () => {
    const stdout = await runExample("first-turn");
    assert.equal(stdout, "I wrote hello.txt.\nhello\n\n");
  });

  it("remote-codex: a Codex drives the codex a host serves on WebSocket", async () => {
    const stdout = await runExample("remote-codex");
    assert.match(stdout, /codex listens on ws:\/\/127\.0\.0\.1:\d+/);
    assert.match(stdout, /codex: Hello from the build box\./);
  });

  it("remote-image: the image given by URL reaches the model inline; a limit refuses it", async () => {
    const stdout = await runExample("remote-image");
    assert.match(
      stdout,
      /^A single pixel\.\ntrue\nremote_image_failed \(too_large\): The image at http:\/\/127\.0\.0\.1:\d+\/logo\.png sent more than remoteImages\.maxBytes \(10 bytes\): raise maxBytes, or send a smaller image\.\n$/,
    );
  });

  it("test-with-scripted-model: the user's test passes", async () => {
    const stdout = await runExample("test-with-scripted-model");
    // Node's reporter for a run outside `--test`: TAP on Node 22 when not a terminal, spec on 24.
    assert.match(
      stdout,
      /^(ok 1 - |✔ )the policy declines rm -rf, and codex tells the model( \(\S+\))?$/m,
    );
    assert.match(stdout, /^(#|ℹ) pass 1$/m);
    assert.match(stdout, /^(#|ℹ) fail 0$/m);
  });

  it("approve-a-command: streams the reply, approves the command, the file exists", async () => {
    const stdout = await runExample("approve-a-command");
    assert.match(stdout, /approval asked: .*echo hello > hello\.txt'? \(Create hello\.txt\)/);
    assert.match(stdout, /I created hello\.txt for you\./);
    assert.match(stdout, /turn completed/);
    assert.match(stdout, /hello\.txt: hello/);
  });

  it("stream-a-turn: deltas, a file change, usage, then run()", async () => {
    const stdout = await runExample("stream-a-turn");
    assert.match(stdout, /changed: add notes\.md/);
    assert.match(stdout, /I added notes\.md\.\n\d+ input tokens/);
    assert.match(stdout, /completed: It has one heading\. \(thread ok\)/);
  });

  it("run-a-session: two runTurn calls of one session continue one thread", async () => {
    const stdout = await runExample("run-a-session");
    assert.match(stdout, /#2 user: What is here\?/);
    assert.match(stdout, /tool_call command_execution/);
    assert.match(stdout, /assistant: The folder is empty\./);
    assert.match(stdout, /complete: true[\s\S]*complete: true/);
    assert.match(stdout, /same thread: true/);
    assert.match(stdout, /final output: I said it was empty\./);
  });

  it("answer-from-elsewhere: a client of the channels runtime approves the command", async () => {
    const stdout = await runExample("answer-from-elsewhere");
    assert.match(stdout, /asked: Run .*release\.txt.* \(Tag the release\)/);
    assert.match(stdout, /codex: Released\./);
    assert.match(stdout, /release\.txt: shipped/);
    assert.match(stdout, /answered by admin: accept/);
  });

  it("who-may-answer: a reader is refused, the answer is by alice whatever she wrote, revoked is 401", async () => {
    const stdout = await runExample("who-may-answer");
    assert.equal(
      stdout,
      [
        "asked: Run npm publish",
        "bob: 403 missing_scope",
        "answered by alice (claimed: mallory)",
        "revoked: 401",
        "",
      ].join("\n"),
    );
  });

  it("routing-rules: two of group:release answer the release script, not alice, not bob", async () => {
    const stdout = await runExample("routing-rules");
    assert.equal(
      stdout,
      [
        "asked: Run /bin/bash -lc './release.sh 1.2.0' (rule release: group:release, 2 approvals)",
        "alice: 403 not_allowed",
        "bob: 403 not_allowed",
        "carol: 1 of 2 approvals",
        "✓ approved by Carol, Dave in the channels runtime",
        "codex: Released 1.2.0.",
        "released 1.2.0",
        "",
      ].join("\n"),
    );
  });

  it("observe-a-turn: the turn's spans as a tree, and its metrics", async () => {
    const stdout = await runExample("observe-a-turn");
    assert.match(stdout, /^ {2}approval commandExecution: accept$/m);
    assert.match(stdout, /^ {2}execute_tool exec_command: 0$/m);
    assert.match(stdout, /^invoke_agent: \d+ tokens in, \d+ out$/m);
    assert.match(stdout, /^gen_ai\.client\.operation\.duration \(s\)$/m);
    assert.match(stdout, /^gen_ai\.client\.token\.usage \(\{token\}\)$/m);
  });

  it("acp-client: an ACP client on the SDK drives codex-harness acp, allows the command", async () => {
    const stdout = await runExample("acp-client");
    const lines = stdout.split("\n");
    assert.match(lines[0] ?? "", /^agent: codex-harness \d+\.\d+\.\d+/);
    // The tool call, then the question about it (the agent always sends them in this order).
    assert.deepEqual(lines.slice(1, 3), [
      "[tool] echo hello > hello.txt",
      "[asked] echo hello > hello.txt",
    ]);
    assert.deepEqual(lines.slice(3), [
      "I wrote hello.txt.",
      "stop: end_turn",
      "hello.txt: hello",
      "",
    ]);
  });

  it("approvals-policy: the file allows ls, denies rm -rf, the person declines curl", async () => {
    const stdout = await runExample("approvals-policy");
    assert.match(stdout, /ls: "accept"/);
    assert.match(stdout, /rm -rf \.\/src': "decline"/);
    assert.match(stdout, /curl https:\/\/example\.com': "decline"/);
  });
});

describe("docs/spaces.md: the spaces example project", () => {
  const example = path.join(repoRoot, "examples/spaces-project");
  const files = [
    "asp-targets.toml",
    "spaces/reviewer/space.toml",
    "spaces/reviewer/AGENTS.md",
    "spaces/reviewer/skills/changelog/SKILL.md",
    "spaces/reviewer/permissions.toml",
  ];

  it("the spaces guide shows each file of the example as it is", async () => {
    const guide = await readFile(path.join(repoRoot, "docs/spaces.md"), "utf8");
    for (const file of files) {
      const text = await readFile(path.join(example, file), "utf8");
      const label = `\`examples/spaces-project/${file}\`:\n\n\`\`\``;
      assert.ok(guide.includes(label), `docs/spaces.md lists ${file}`);
      assert.ok(guide.includes(`\n${text}\`\`\``), `docs/spaces.md shows ${file} as it is`);
    }
  });

  it("installs, and runs two turns of one session with its skill, instructions and permissions", async () => {
    const project = await mkdtemp(path.join(tmpdir(), "codex-harness-spaces-example-"));
    const model = await ScriptedModel.start({
      responses: [
        execCommand("ls", { escalated: true }),
        execCommand("git push origin main", { escalated: true }),
        reply("Reviewed."),
        reply("Added the entry."),
      ],
    });
    try {
      await cp(example, project, { recursive: true });
      const env = { ...process.env, CODEX_HOME: path.join(project, "user-codex-home") };
      const install = await runCli(["install", "--project", project], { env });
      assert.equal(install.code, 0, install.stdout + install.stderr);
      // The user's own provider would serve the turns; here the scripted one does.
      await useScriptedModel(project, model);
      const turn = (prompt: string) =>
        runCli(
          ["run", "--target", "dev", "--project", project, "--session", "pr-17"].concat([
            "--skip-git-repo-check",
            prompt,
          ]),
          { env },
        );
      const first = await turn("Review the last commit");
      assert.equal(first.code, 0, first.stdout + first.stderr);
      assert.doesNotMatch(first.stdout + first.stderr, /outside the sandbox/, "nobody was asked");
      assert.match(first.stdout, /\$ .*ls[\s\S]*✓ exit 0/, "ls ran");
      assert.match(first.stdout, /git push origin main[\s\S]*declined/, "git push was declined");
      const second = await turn("Now add the changelog entry");
      assert.equal(second.code, 0, second.stdout + second.stderr);
      assert.match(second.stdout, /Added the entry\./);
      const request = JSON.stringify(model.lastRequest?.body);
      assert.ok(request.includes("Review the last commit"), "the session's first turn is there");
      assert.ok(request.includes("Never push; a person does that."), "the space's AGENTS.md");
      assert.ok(request.includes("Adds an entry to CHANGELOG.md"), "the space's skill is offered");
    } finally {
      await model.close();
      await rm(project, { recursive: true, force: true });
    }
  });

  it("fleet-submit (docs/fleet.md's): a worker takes the submitted turn; it ends and exits", {
    skip: postgresMissing(),
  }, async () => {
    const postgres = await startPostgres();
    const model = await ScriptedModel.start({ fallback: tryOutAnswer });
    const project = await mkdtemp(path.join(tmpdir(), "codex-harness-fleet-example-"));
    const worker = startCli(["worker", "--store", postgres.url, "--project", project]);
    try {
      await cp(path.join(repoRoot, "examples/spaces-project"), project, { recursive: true });
      // The offline space names scripted-model's port (4545); this test's model listens elsewhere.
      const space = path.join(project, "spaces/offline-model/space.toml");
      await writeFile(
        space,
        (await readFile(space, "utf8")).replace("127.0.0.1:4545", new URL(model.url).host),
      );
      worker.child.stdin.end();
      const stdout = await runExample("fleet-submit", { STORE: postgres.url });
      assert.match(stdout, /^1 state$/m);
      assert.match(stdout, /The command exited 0\. Its output began:/);
    } finally {
      worker.child.kill("SIGTERM");
      await worker.closed;
      await model.close();
      postgres.stop();
      await rm(project, { recursive: true, force: true });
    }
  });
});
