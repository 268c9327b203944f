// The README's "Try everything offline" paths, run as written: its sh blocks, in a copy of the
// example project (a git repository) where codex-harness (this checkout) is installed, with the
// real npx in a fresh HOME — and nothing they started is left running.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ChannelsClient } from "../../src/channels/client.js";
import { serverParent } from "../../src/fleet/local-postgres.js";
import { bin } from "../support/cli.js";
import { offlineBlocks } from "../support/docs-pages.js";
import { repoRoot } from "../support/paths.js";
import { postgresMissing } from "../support/postgres.js";

interface Shell {
  stdout: string;
  stderr: string;
  code: Promise<number | null>;
  kill(): void;
}

/**
 * Runs `script` with bash in `cwd` as a user's shell would, in a fresh HOME, with the real `npx`
 * (`codex-harness` is installed in `cwd`: this checkout); background jobs are stopped when it
 * ends (however it ends), as a shell's `kill` stops them.
 */
function shell(script: string, cwd: string, env: NodeJS.ProcessEnv = process.env): Shell {
  const prelude = [
    "set -euo pipefail",
    `trap 'status=$?; for job in $(jobs -p); do kill "$job" 2>/dev/null || true; done; wait || true; exit $status' EXIT`,
  ].join("\n");
  // Its own process group: the test's last resort (a kill of the group) reaches what it started.
  const child = spawn("bash", ["-c", `${prelude}\n${script}`], {
    cwd,
    env: { ...env, HOME: home },
    detached: true,
  });
  // Nobody at the keyboard: a prompt reads the end of its input (the demo then declines).
  child.stdin.end();
  const run: Shell = {
    stdout: "",
    stderr: "",
    code: new Promise((resolve, reject) => {
      child.once("error", reject);
      child.once("close", resolve);
    }),
    kill: () => {
      try {
        process.kill(-(child.pid as number), "SIGKILL");
      } catch {
        // Already gone.
      }
    },
  };
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    run.stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    run.stderr += chunk;
  });
  return run;
}

/** Waits for `run` to end within `ms`; kills it otherwise. */
async function ended(run: Shell, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      run.kill();
      reject(new Error(`did not end within ${ms} ms:\n${run.stdout}\n${run.stderr}`));
    }, ms);
  });
  try {
    return await Promise.race([run.code, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

let root: string;
let home: string;

before(async () => {
  home = await mkdtemp(path.join(tmpdir(), "codex-harness-try-home-"));
  // The clone as a newcomer has it: the example project inside a git repository, and
  // codex-harness installed (this checkout) where `npx codex-harness` finds its bin.
  root = await mkdtemp(path.join(tmpdir(), "codex-harness-try-offline-"));
  await mkdir(path.join(root, "node_modules", ".bin"), { recursive: true });
  await symlink(repoRoot, path.join(root, "node_modules", "codex-harness"));
  await symlink(bin, path.join(root, "node_modules", ".bin", "codex-harness"));
  await cp(
    path.join(repoRoot, "examples/spaces-project"),
    path.join(root, "examples/spaces-project"),
    {
      recursive: true,
      filter: (source) => !/asp_modules|\.asp$/.test(source),
    },
  );
  const git = shell(
    "git init -q && git add . && git -c user.name=t -c user.email=t@example.com commit -qm 'the clone'",
    root,
  );
  assert.equal(await ended(git, 30_000), 0, git.stderr);
});

after(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

/** The processes still running in `dir` (their working folder inside it), described. */
async function runningIn(dir: string): Promise<string[]> {
  const left: string[] = [];
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => "");
    if (cwd !== dir && !cwd.startsWith(`${dir}/`)) continue;
    const command = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    left.push(`${pid}: ${command.replaceAll("\0", " ").trim()}`);
  }
  return left;
}

/** Nothing a block started is left running in the clone (a job's `kill` stopped all of it). */
async function nothingLeft(): Promise<void> {
  const deadline = Date.now() + 3_000;
  let left = await runningIn(root);
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(100);
    left = await runningIn(root);
  }
  assert.deepEqual(left, [], "processes left running after the block");
}

describe("README: try everything offline", () => {
  it("a spaces session on the scripted model: git runs, git push is declined by the rules", async () => {
    const [block] = offlineBlocks();
    assert.ok(block?.includes("scripted-model &"), block);
    const started = Date.now();
    const run = shell(block as string, root);
    assert.equal(await ended(run, 120_000), 0, run.stdout + run.stderr);
    await nothingLeft();
    const [first, second] = run.stdout.split(/^thread /m).slice(1);
    assert.match(first ?? "", /\$ .*git log --oneline -3[\s\S]*the clone[\s\S]*✓ exit 0/);
    assert.match(first ?? "", /The command exited 0/);
    // Declined, and by which rule of which file.
    assert.match(
      second ?? "",
      /\$ .*git push origin main[\s\S]*✗ declined — denied by \[deny\] exec "git push" in \S*spaces\/reviewer\/permissions\.toml/,
    );
    assert.doesNotMatch(run.stdout + run.stderr, /outside the sandbox/, "nobody was asked");
    console.log(`# the spaces path took ${Date.now() - started} ms`);
  });

  it("demo --inbox: the demo's requests answered from the web inbox", async () => {
    const block = offlineBlocks()[1] ?? "";
    assert.match(block, /demo --inbox/);
    const started = Date.now();
    const run = shell(block, root);
    try {
      const inbox = await waitFor(() => /web inbox: (\S+)/.exec(run.stdout)?.[1], run);
      const url = new URL(inbox);
      const token = decodeURIComponent(url.hash.replace(/^#token=/, ""));
      const person = new ChannelsClient({ url: url.origin, token });
      const answered = new Set<string>();
      // Accept whatever the demo asks, as a person in the inbox would, until it ends.
      let over = false;
      void run.code.then(() => {
        over = true;
      });
      const answering = (async () => {
        while (!over) {
          try {
            for (const interaction of await person.list({ status: ["pending", "delivered"] })) {
              if (answered.has(interaction.id)) continue;
              answered.add(interaction.id);
              await person.respond(interaction.id, { action: "accept" });
            }
          } catch (error) {
            // The demo ends its runtime as it ends.
            await Promise.race([run.code, sleep(5_000)]);
            if (!over) throw new Error(`${error}\n${run.stdout}\n${run.stderr}`, { cause: error });
          }
          await sleep(200);
        }
      })();
      assert.equal(await ended(run, 120_000), 0, run.stdout + run.stderr);
      await answering;
      assert.ok(answered.size >= 2, `answered ${answered.size}`);
      assert.match(run.stdout, /Files in the project now: README\.md, hello\.sh/);
    } finally {
      run.kill();
    }
    console.log(`# the inbox path took ${Date.now() - started} ms`);
  });

  it("docs/cli.md's opening, as written: npx codex-harness demo (no one to answer: declined)", async () => {
    const guide = await readFile(path.join(repoRoot, "docs/cli.md"), "utf8");
    const block = /```sh\n([\s\S]*?)```/.exec(guide)?.[1];
    assert.equal(block, "npx codex-harness demo\n");
    const run = shell(block, root);
    assert.equal(await ended(run, 120_000), 0, run.stdout + run.stderr);
    await nothingLeft();
    assert.match(run.stdout + run.stderr, /declined/);
  });

  describe("a fleet", { skip: postgresMissing() }, () => {
    it("a worker and a submitted turn, as written (its own PostgreSQL, started and stopped)", async () => {
      const block = offlineBlocks()[2] ?? "";
      // docs/fleet.md opens with the same block: this runs it too.
      const guide = await readFile(path.join(repoRoot, "docs/fleet.md"), "utf8");
      assert.equal(/```sh\n([\s\S]*?)```/.exec(guide)?.[1], block);
      assert.match(block, /^STORE=\$\(npx codex-harness try-postgres\)$/m);
      assert.match(block, /^npx codex-harness try-postgres --stop$/m);
      const started = Date.now();
      const run = shell(block, root);
      assert.equal(await ended(run, 180_000), 0, run.stdout + run.stderr);
      await nothingLeft();
      assert.match(run.stdout, /The command exited 0/);
      // submit shows the command the worker ran, not its item type.
      assert.match(run.stderr, /^\$ .*\bls\b.* \[/m);
      assert.doesNotMatch(run.stderr, /\$ command_execution/);
      // codex's harmless warning about the scripted model's metadata is folded, as run folds it.
      assert.doesNotMatch(run.stderr, /Model metadata for/);
      assert.match(run.stderr, /harmless codex warning.*model metadata.*--json shows/);
      // Nothing is left: the server stopped, its folder gone.
      assert.equal(existsSync(path.join(serverParent(), "codex-harness-try-postgres")), false);
      console.log(`# the fleet path took ${Date.now() - started} ms`);
    });
  });
});

function sleep(ms: number): Promise<false> {
  return new Promise((resolve) => setTimeout(() => resolve(false), ms));
}

/** Polls `read` until it gives a value; fails when `run` ends first or after 60 s. */
async function waitFor(read: () => string | undefined, run: Shell): Promise<string> {
  const deadline = Date.now() + 60_000;
  let ended = false;
  void run.code.then(() => {
    ended = true;
  });
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (ended || Date.now() > deadline) {
      throw new Error(`never printed it:\n${run.stdout}\n${run.stderr}`);
    }
    await sleep(100);
  }
}
