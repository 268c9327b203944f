import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, describe, it } from "node:test";
import { sessionHomeDir } from "../../src/spaces/session-home.js";
import { reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { cleanTrees, spaceToml, tempTree } from "../fixtures/spaces/helpers.js";
import { runCli } from "../support/cli.js";
import { runTargetArgs, useScriptedModel } from "../support/target-home.js";

after(() => cleanTrees());

const cli = (args: string[], env: NodeJS.ProcessEnv) => runCli(args, { env });

function project(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = tempTree({
    "asp-targets.toml": 'schema = 1\n[targets.dev]\ncompose = ["space:path:./spaces/app"]\n',
    "spaces/app/space.toml": spaceToml("app"),
    "spaces/app/AGENTS.md": "Use the word pineapple.",
    "user-codex-home/.keep": "",
  });
  mkdirSync(path.join(dir, "work"));
  return { dir, env: { ...process.env, CODEX_HOME: path.join(dir, "user-codex-home") } };
}

/** One `run --target dev --session <session> --json` turn in the project's work folder. */
const sessionTurn = (
  dir: string,
  env: NodeJS.ProcessEnv,
  session: string,
  prompt: string,
  ...more: string[]
) =>
  cli(
    runTargetArgs(dir, path.join(dir, "work"), "--session", session, "--json", ...more, prompt),
    env,
  );

/** The thread a `--json` run's events name. */
const threadOf = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; thread_id?: string })
    .find((event) => event.type === "thread.started")?.thread_id;

describe("codex-harness run --target", () => {
  it("runs one turn in the target's session home, with the spaces' instructions", async () => {
    const { dir, env } = project();
    const model = await ScriptedModel.start({ responses: [reply("Pineapple, as asked.")] });
    try {
      await useScriptedModel(dir, model);
      const { code, stdout, stderr } = await cli(
        runTargetArgs(dir, path.join(dir, "work"), "hi", "--json"),
        env,
      );
      assert.equal(code, 0, stdout + stderr);
      const events = stdout
        .trim()
        .split("\n")
        .map(
          (line) => JSON.parse(line) as { type: string; item?: { type: string; text?: string } },
        );
      assert.equal(events.at(-1)?.type, "turn.completed");
      const message = events.find(
        (e) => e.type === "item.completed" && e.item?.type === "agent_message",
      );
      assert.equal(message?.item?.text, "Pineapple, as asked.");
      assert.ok(
        JSON.stringify(model.lastRequest?.body).includes("Use the word pineapple."),
        "the space's AGENTS.md reached the model",
      );
      const sessionHome = sessionHomeDir(path.join(dir, ".asp"), "default");
      const sessionConfig = await readFile(path.join(sessionHome, "config.toml"), "utf8");
      assert.match(sessionConfig, /model_provider/);
    } finally {
      await model.close();
    }
  });

  it("--session continues the session's thread each time; --new-session starts over", async () => {
    const { dir, env } = project();
    const model = await ScriptedModel.start({
      responses: [reply("One."), reply("Two."), reply("Fresh.")],
    });
    try {
      await useScriptedModel(dir, model);
      const turn = (prompt: string, ...more: string[]) =>
        sessionTurn(dir, env, "s1", prompt, ...more);
      const first = await turn("remember the word kiwi");
      assert.equal(first.code, 0, first.stdout + first.stderr);
      const second = await turn("which word?");
      assert.equal(second.code, 0, second.stdout + second.stderr);
      assert.equal(threadOf(second.stdout), threadOf(first.stdout), "the same codex thread");
      assert.match(second.stderr, /continuing session s1/);
      const seen = model.userTexts();
      assert.ok(seen.includes("remember the word kiwi") && seen.includes("which word?"), `${seen}`);
      const fresh = await turn("start again", "--new-session");
      assert.equal(fresh.code, 0, fresh.stdout + fresh.stderr);
      assert.notEqual(threadOf(fresh.stdout), threadOf(first.stdout));
      assert.ok(!model.userTexts().includes("remember the word kiwi"), "a new conversation");
    } finally {
      await model.close();
    }
  });

  it("a target installed again after a change reaches the session's next turn, same thread", async () => {
    const { dir, env } = project();
    const model = await ScriptedModel.start({ responses: [reply("One."), reply("Two.")] });
    try {
      await useScriptedModel(dir, model);
      const turn = (prompt: string) => sessionTurn(dir, env, "pr-17", prompt);
      const first = await turn("first");
      assert.equal(first.code, 0, first.stdout + first.stderr);
      assert.equal(
        (model.lastRequest?.body as { model?: string } | undefined)?.model,
        "scripted-model",
      );
      // The space changes: another model for the target, other instructions, a new skill.
      const targets = path.join(dir, "asp-targets.toml");
      await writeFile(
        targets,
        `${await readFile(targets, "utf8")}[targets.dev.codex]\nmodel = "scripted-model-2"\n`,
      );
      await writeFile(path.join(dir, "spaces/app/AGENTS.md"), "Use the word kiwi.");
      const install = await cli(["install", "--project", dir], env);
      assert.equal(install.code, 0, install.stdout + install.stderr);
      const second = await turn("second");
      assert.equal(second.code, 0, second.stdout + second.stderr);
      assert.equal(threadOf(second.stdout), threadOf(first.stdout), "the same codex thread");
      const sessionHome = sessionHomeDir(path.join(dir, ".asp"), "pr-17");
      assert.match(
        await readFile(path.join(sessionHome, "config.toml"), "utf8"),
        /scripted-model-2/,
      );
      const body = model.lastRequest?.body as { model?: string } | undefined;
      assert.equal(body?.model, "scripted-model-2", "the new model reached the session");
      assert.ok(JSON.stringify(body).includes("first"), "the thread's history is kept");
      assert.equal(
        await readFile(path.join(sessionHome, "AGENTS.md"), "utf8"),
        await readFile(path.join(dir, "asp_modules/dev/codex/codex.home/AGENTS.md"), "utf8"),
      );
    } finally {
      await model.close();
    }
  });

  it("--print-command shows CODEX_HOME and the session home, running nothing", async () => {
    const { dir, env } = project();
    const { code, stdout, stderr } = await cli(
      ["run", "--target", "dev", "--project", dir, "--session", "s-1", "--print-command"],
      env,
    );
    assert.equal(code, 0, stdout + stderr);
    const home = sessionHomeDir(path.join(dir, ".asp"), "s-1");
    assert.ok(stdout.includes(`CODEX_HOME=${home}`), stdout);
    assert.ok(!stdout.includes("--dangerously-bypass-approvals-and-sandbox"), stdout);
    const yolo = await cli(
      ["run", "--target", "dev", "--project", dir, "--dry-run", "--yolo"],
      env,
    );
    assert.equal(yolo.code, 0, yolo.stdout + yolo.stderr);
    assert.match(yolo.stdout, /--dangerously-bypass-approvals-and-sandbox/);
  });
});

describe("codex-harness harnesses", () => {
  it("--json reports the codex binary and app-server", async () => {
    const { env } = project();
    const { code, stdout, stderr } = await cli(["harnesses", "--json"], env);
    assert.equal(code, 0, stdout + stderr);
    const [codex] = JSON.parse(stdout) as {
      name: string;
      binary?: string;
      appServer: boolean;
      loggedIn: boolean;
      models?: string[];
      defaultModel?: string;
    }[];
    assert.equal(codex?.name, "codex");
    assert.equal(codex?.loggedIn, false, "an empty CODEX_HOME has no login; reported, not fatal");
    assert.match(codex?.binary ?? "", /codex/);
    assert.equal(codex?.appServer, true);
    // The models come from the installed codex (model/list), not from a list of ours.
    assert.ok((codex?.models?.length ?? 0) > 0, stdout);
    assert.ok(codex?.models?.includes(codex.defaultModel ?? ""), stdout);
  });
});
