// The CLI tells the truth in bounded time: bad flags are refused before anything runs, naming the
// flag; `--json` keeps stdout data only; a reader that goes away ends the command quietly.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { ChannelsClient } from "../../src/channels/client.js";
import { startChannelsServer } from "../../src/channels/http-server.js";
import {
  execCommand,
  failure,
  reply,
  response,
  type ScriptStep,
} from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { bin, runCli, startCli } from "../support/cli.js";
import { codexGone } from "../support/codex-processes.js";
import { eventually } from "../support/eventually.js";

const manifest = createRequire(import.meta.url)("codex-harness/package.json") as {
  version: string;
  dependencies: Record<string, string>;
};

/** A CODEX_HOME on a ScriptedModel playing `steps`, and a work folder. */
async function withScriptedHome(
  steps: ScriptStep[],
  config: Record<string, unknown>,
  body: (env: NodeJS.ProcessEnv, cwd: string, home: string) => Promise<void>,
): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), "codex-harness-cli-truth-"));
  const home = path.join(root, "home");
  const cwd = path.join(root, "work");
  await mkdir(cwd, { recursive: true });
  const model = await ScriptedModel.start({ responses: steps });
  try {
    await model.writeCodexHome(home, config as never);
    await body({ ...process.env, CODEX_HOME: home }, cwd, home);
  } finally {
    await model.close();
    await rm(root, { recursive: true, force: true });
  }
}

describe("codex-harness flags are checked before anything runs", () => {
  it("--version gives the package and the codex versions", async () => {
    const { code, stdout } = await runCli(["--version"]);
    assert.equal(code, 0);
    assert.equal(
      stdout.trim(),
      `codex-harness ${manifest.version} (codex ${manifest.dependencies["@openai/codex"]})`,
    );
  });

  const refusals: [string[], RegExp][] = [
    [["doctor", "--timeout", "abc"], /--timeout <ms>' argument 'abc' is invalid.*whole number/],
    [["harnesses", "--timeout", "-5"], /--timeout <ms>' argument '-5' is invalid/],
    [["serve", "--port", "abc"], /--port <port>' argument 'abc' is invalid/],
    [["serve", "--port", "70000"], /a port is at most 65535/],
    [
      ["run", "-C", "/does/not/exist", "hello"],
      /--cd <dir>' argument '\/does\/not\/exist' is invalid.*not a folder/,
    ],
    [
      ["run", "--codex-path", "/nope", "hello"],
      /--codex-path <path>' argument '\/nope'.*not a file/,
    ],
    [
      ["run", "--sandbox", "banana", "hello"],
      /--sandbox <mode>' argument 'banana' is invalid\. Allowed choices are read-only, workspace-write, danger-full-access/,
    ],
    [
      ["run", "--approval-policy", "untrusted", "hello"],
      /--approval-policy <policy>' argument 'untrusted' is invalid\. Allowed choices are on-request, never/,
    ],
    [
      ["run", "--transport", "grpc", "hello"],
      /--transport <kind>' argument 'grpc' is invalid\. Allowed choices are app-server, exec/,
    ],
    [
      ["submit", "--store", "fleet", "--target", "dev", "--session", "s", "hi"],
      /The fleet needs a PostgreSQL URL \(postgres:\/\/user:password@host:5432\/db\), got "fleet"/,
    ],
    [
      ["submit", "--store", "fleet:s3cret@db", "--target", "dev", "--session", "s", "hi"],
      /got "fleet:\*\*\*@db"/,
    ],
    [
      ["doctor", "--codex-home", "/nonexistent/dir"],
      /--codex-home <dir>' argument '\/nonexistent\/dir' is invalid/,
    ],
    [["serve", "--data-dir", "/proc/nope", "--port", "0"], /Cannot use \/proc\/nope .*--data-dir/],
    [["serve", "--host", "999.1.1.1", "--port", "0"], /Cannot listen on 999\.1\.1\.1.*--host/],
    [
      ["interactions", "list", "--status", "pendng", "--token", "t"],
      /--status <list>' argument 'pendng' is invalid.*unknown status "pendng"; use pending, delivered/,
    ],
    [
      ["interactions", "--url", "nope", "list", "--token", "t"],
      /--url must be the runtime's http\(s\) address/,
    ],
    // What is missing first: a bare cancel lacks its run id before its --store.
    [["cancel"], /missing required argument 'run-id'/],
    [["cancel", "run-1"], /cancel needs --store <url>/],
    [["run"], /run needs a prompt/],
    [
      [
        "submit",
        "--store",
        "postgres://x@127.0.0.1:1/db",
        "--target",
        "nope",
        "--session",
        "s",
      ].concat(["--project", "examples/spaces-project", "hi"]),
      /--target nope is not in examples\/spaces-project\/asp-targets\.toml; use one of dev, offline/,
    ],
    [
      ["login", "--device-code", "--api-key-stdin"],
      /use --device-code or --api-key-stdin, not both/,
    ],
    [
      ["doctor", "--target", "offline", "--codex-home", "/tmp"],
      /--target and --codex-home both say which codex home/,
    ],
  ];
  for (const [args, message] of refusals) {
    it(`refuses ${args.join(" ")} at once, naming the flag`, async () => {
      const started = Date.now();
      const { code, stdout, stderr } = await runCli(args);
      assert.notEqual(code, 0);
      assert.equal(stdout, "", "nothing on stdout");
      assert.match(stderr, message);
      // One way of saying it, whichever command: the first line is the error.
      assert.match(stderr, /^error: /);
      assert.ok(Date.now() - started < 10_000, "refused before codex was started");
      assert.doesNotMatch(
        stderr,
        /codexPathOverride|codexHome|ChannelsClient/,
        "flags, not library options",
      );
    });
  }
});

describe("codex-harness run", () => {
  it("keeps stdout JSONL only: the approval question goes to stderr", async () => {
    await withScriptedHome(
      [execCommand("echo asked > asked.txt", { escalated: true }), reply("Done.")],
      { sandbox_mode: "workspace-write", approval_policy: "on-request" },
      async (env, cwd) => {
        const { code, stdout, stderr } = await runCli(
          ["run", "go", "--json", "--cd", cwd, "--skip-git-repo-check"],
          { input: "y\n", env },
        );
        assert.equal(code, 0, stderr);
        const lines = stdout.trim().split("\n");
        const events = lines.map((line) => JSON.parse(line) as { type: string });
        assert.ok(
          events.some((event) => event.type === "approval.resolved"),
          stdout,
        );
        assert.match(stderr, /\[y\/N\]/, "the question is on stderr");
        assert.doesNotMatch(stdout, /\[y\/N\]/);
      },
    );
  });

  it("Ctrl-C interrupts the turn at codex: a final turn.failed, 'interrupted' on stderr, exit 130", async () => {
    await withScriptedHome(
      [response([reply("Too late.")], { delayMs: 60_000 })],
      {},
      async (env, cwd, home) => {
        const run = startCli(["run", "go", "--json", "--cd", cwd, "--skip-git-repo-check"], env);
        await eventually("the turn started", async () =>
          /"turn\.started"/.test(run.output.stdout) ? true : undefined,
        );
        run.child.kill("SIGINT");
        assert.equal(await run.closed, 130, run.output.stderr);
        const events = run.output.stdout
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as { type: string; error?: { message: string } });
        assert.equal(events.at(-1)?.type, "turn.failed");
        assert.match(events.at(-1)?.error?.message ?? "", /interrupted/);
        assert.match(run.output.stderr, /^interrupted: codex stopped the turn$/m);
        assert.deepEqual(await codexGone(home, 10_000), [], "codex is gone");
      },
    );
  });

  it("ends quietly when its reader goes away (| head -1)", async () => {
    const long = "word ".repeat(4_000);
    await withScriptedHome([reply(long, { deltas: 2_000 })], {}, async (env, cwd, home) => {
      const { child, output, closed } = startCli(
        ["run", "go", "--json", "--cd", cwd, "--skip-git-repo-check"],
        env,
      );
      child.stdin.end();
      // Like `head -1`: read one line, then close the pipe.
      await new Promise<void>((resolve) => {
        child.stdout.once("data", () => {
          child.stdout.destroy();
          resolve();
        });
      });
      const code = await closed;
      const { stderr } = output;
      assert.equal(code, 0, stderr);
      assert.doesNotMatch(stderr, /EPIPE|Error/, stderr);
      // codex saw its stdin close and exits by itself.
      assert.deepEqual(await codexGone(home, 10_000), [], "codex is gone");
    });
  });

  it("shows codex's retries as they happen and gives up in bounded time with the reason", async () => {
    const steps = Array.from({ length: 12 }, () => failure("upstream is down"));
    // codex's own retries, which the scripted provider turns off by default (provider "scripted").
    const retrying = { model_providers: { scripted: { stream_max_retries: 5 } } };
    await withScriptedHome(steps, retrying, async (env, cwd, home) => {
      const started = Date.now();
      const { code, stdout, stderr } = await runCli(
        ["run", "go", "--cd", cwd, "--skip-git-repo-check", "--give-up-after", "3"],
        { env },
      );
      assert.equal(code, 1, stderr);
      assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
      assert.match(stdout, /↻ Reconnecting\.\.\. 1\/5/, "the retry is shown");
      assert.match(stderr, /^error: gave up after 3 s of codex retrying its model \(Reconnecting/m);
      assert.match(stderr, /--give-up-after/);
      assert.deepEqual(await codexGone(home, 10_000), [], "codex is gone");
    });
  });
});

describe("codex-harness run with nobody logged in", () => {
  it("fails in seconds naming codex login and CODEX_API_KEY, never retrying the model", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "codex-harness-no-login-"));
    try {
      // OpenAI's own provider, which needs a login, and none in this CODEX_HOME.
      const home = path.join(root, "home");
      await mkdir(home);
      const env: NodeJS.ProcessEnv = { ...process.env, CODEX_HOME: home };
      delete env.CODEX_API_KEY;
      delete env.OPENAI_API_KEY;
      const started = Date.now();
      const { code, stdout, stderr } = await runCli(
        ["run", "hi", "--cd", root, "--skip-git-repo-check", "--json"],
        { env, timeoutMs: 60_000 },
      );
      assert.equal(code, 1, stderr);
      assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
      assert.equal(stdout, "", "no turn started");
      assert.match(stderr, /error: codex is not logged in/);
      assert.match(stderr, /codex login`? with CODEX_HOME=/);
      assert.match(stderr, /CODEX_API_KEY/);
      assert.deepEqual(await codexGone(home, 10_000), [], "codex is gone");
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe("codex-harness interactions", () => {
  it("interactions list --waiting shows what the inbox showed but nobody answered", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "codex-harness-cli-waiting-"));
    const server = await startChannelsServer({ dataDir: dir, port: 0 });
    try {
      const client = new ChannelsClient({ url: server.url, token: server.token });
      const shown = await client.create({
        kind: "approval_request",
        source: { name: "t" },
        title: "Run ls",
        payload: { command: "ls" },
      });
      await client.markDelivered(shown.id);
      const connect = ["interactions", "--url", server.url, "--token", server.token, "list"];
      const waiting = await runCli([...connect, "--waiting"]);
      assert.equal(waiting.code, 0, waiting.stderr);
      assert.match(waiting.stdout, new RegExp(`${shown.id}\\s+delivered`));
      const pending = await runCli([...connect, "--status", "pending"]);
      assert.doesNotMatch(
        pending.stdout,
        new RegExp(shown.id),
        "pending alone is not all that waits",
      );
      const refused = await runCli([
        "interactions",
        "--url",
        server.url,
        "--token",
        "wrong",
        "list",
      ]);
      assert.equal(refused.code, 1);
      assert.equal(refused.stdout, "");
      assert.match(
        refused.stderr,
        /The channels runtime at http:\/\/127\.0\.0\.1:\d+ refused the token \(401\): give the one in its <data-dir>\/token/,
      );
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("watch follows the runtime through a restart, and gives up on one that stays gone", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "codex-harness-cli-watch-"));
    let server = await startChannelsServer({ dataDir: dir, port: 0 });
    const { url, token } = server;
    const watch = startCli([
      "interactions",
      "--url",
      url,
      "--token",
      token,
      "watch",
      "--json",
      "--give-up-after",
      "3",
    ]);
    watch.child.stdin.end();
    const { output } = watch;
    const exited = watch.closed;
    /** Creates interactions until watch prints one (it follows changes from when it connects). */
    const seen = async (title: string) => {
      const client = new ChannelsClient({ url, token });
      for (let attempt = 0; attempt < 100; attempt++) {
        const made = await client.create({
          kind: "progress_update",
          source: { name: "t" },
          title,
          payload: {},
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (output.stdout.includes(made.id)) return;
      }
      assert.fail(`watch never printed "${title}": ${output.stderr}`);
    };
    try {
      await seen("before the restart");
      await server.close();
      server = await startChannelsServer({ dataDir: dir, port: Number(new URL(url).port) });
      await seen("after the restart");
      assert.match(output.stderr, /reconnecting/);
      await server.close();
      const code = await Promise.race([
        exited,
        new Promise((r) => setTimeout(() => r("hung"), 15_000)),
      ]);
      assert.equal(code, 1, output.stderr);
      assert.match(output.stderr, /gave up after 3 s \(--give-up-after\)/);
    } finally {
      watch.child.kill();
      await server.close().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("a command npx started", () => {
  it("stops when what started it is gone (kill of an npx job), freeing its port", async () => {
    // As npm exec runs it: under `sh -c` (kept as the parent here), with npm's environment.
    const shell = spawn(
      "sh",
      ["-c", `"${process.execPath}" "${bin}" scripted-model --port 0; true`],
      {
        env: { ...process.env, npm_command: "exec" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    shell.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    const url = await eventually("the model's URL", () => /http:\/\/\S+/.exec(out)?.[0]);
    assert.equal((await fetch(`${url}/models`)).status < 500, true);
    shell.kill("SIGKILL");
    await eventually(
      "the port freed",
      () =>
        fetch(`${url}/models`).then(
          () => false,
          () => true,
        ),
      { timeoutMs: 5_000 },
    );
  });
});
