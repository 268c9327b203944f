// `codex-harness host` owns its codex: a host killed by SIGKILL takes codex, its commands and
// their sandboxes with it, and frees the port for the next host (the real codex, listening).
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { Codex } from "../../src/codex.js";
import { execCommand, reply, type ScriptStep } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { type StartedCli, startCli } from "../support/cli.js";
import { codexGone } from "../support/codex-processes.js";
import { eventually } from "../support/eventually.js";

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** A loopback port nothing listens on (taken and released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  assert.ok(address && typeof address === "object");
  return address.port;
}

/** The pids of live processes (not zombies) whose command line contains `text` (Linux /proc). */
function processesWith(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (cmdline.includes(text) && !/\) Z /.test(stat)) found.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

/** Whether `pid` is a live process (a zombie waiting for its new parent counts as gone). */
function running(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Polls until `check` holds or `ms` passed; resolves with how long it took, or undefined. */
async function takes(ms: number, check: () => boolean): Promise<number | undefined> {
  const started = Date.now();
  for (;;) {
    if (check()) return Date.now() - started;
    if (Date.now() - started > ms) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** `codex-harness host` on `port` with its own CODEX_HOME; resolves once codex listens, with its pid. */
async function startHostCli(port: number, home: string): Promise<{ cli: StartedCli; pid: number }> {
  const cli = startCli(["host", "--listen", `ws://127.0.0.1:${port}`, "--codex-home", home]);
  cli.child.stdin.end();
  cleanups.push(async () => {
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill("SIGTERM");
    await cli.closed;
  });
  const pid = await eventually(`host on port ${port} listening`, async () => {
    if (cli.child.exitCode !== null) {
      throw new Error(`host exited ${cli.child.exitCode}: ${cli.output.stderr}`);
    }
    const said = /listening on ws:\/\/127\.0\.0\.1:(\d+) \(pid (\d+)\)/.exec(cli.output.stdout);
    return said && Number(said[1]) === port ? Number(said[2]) : undefined;
  }).catch((error: unknown) => {
    throw new Error(`${String(error)}\n${cli.output.stdout}${cli.output.stderr}`);
  });
  return { cli, pid };
}

/** The owner mark codex carries, which its watcher's command line names too. */
function ownerMark(pid: number): string {
  const environ = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  const mark = environ.find((entry) => entry.startsWith("CODEX_HARNESS_OWNER="))?.split("=")[1];
  assert.ok(mark, "codex carries an owner mark");
  return mark;
}

/** A CODEX_HOME on a ScriptedModel playing `steps` (workspace-write, no approvals), and a work folder. */
async function codexHome(steps: ScriptStep[]): Promise<{ home: string; work: string }> {
  const root = await mkdtemp(path.join(tmpdir(), "codex-harness-host-owner-"));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  const model = await ScriptedModel.start({ responses: steps });
  cleanups.push(() => model.close());
  const home = path.join(root, "home");
  await model.writeCodexHome(home, { sandbox_mode: "workspace-write", approval_policy: "never" });
  const work = path.join(root, "work");
  await mkdir(work);
  return { home, work };
}

describe("codex-harness host owns its codex", {
  skip: process.platform !== "linux" && "reads /proc",
}, () => {
  it("a host killed by SIGKILL takes codex with it, and a new host gets the port", async () => {
    const { home } = await codexHome([reply("unused")]);
    const port = await freePort();
    const first = await startHostCli(port, home);
    const mark = ownerMark(first.pid);
    assert.equal(processesWith(mark).length, 1, "one watcher for codex");

    first.cli.child.kill("SIGKILL");
    const gone = await takes(2_000, () => !running(first.pid));
    assert.ok(gone !== undefined, `codex (pid ${first.pid}) still runs 2 s after its host died`);
    console.log(`codex ended ${gone} ms after its host was killed`);
    assert.ok(
      (await takes(2_000, () => processesWith(mark).length === 0)) !== undefined,
      "the watcher ended after its work",
    );

    const second = await startHostCli(port, home);
    assert.notEqual(second.pid, first.pid);
    assert.doesNotMatch(second.cli.output.stderr, /in use/i);
    second.cli.child.kill("SIGTERM");
    assert.equal(await second.cli.closed, 0, "the second host stops cleanly");
    assert.deepEqual(await codexGone(home, 5_000), [], "no codex of this home is left");
  });

  it("a running command and its sandbox end with a host killed by SIGKILL", async () => {
    const seconds = `300.${Math.floor(Math.random() * 1e9)}`;
    const { home, work } = await codexHome([
      execCommand(`sleep ${seconds}; echo done`),
      reply("ok"),
    ]);
    const port = await freePort();
    const host = await startHostCli(port, home);
    const codex = new Codex({
      events: "extended",
      remote: { url: `ws://127.0.0.1:${port}`, tokenFile: path.join(home, "app-server-token") },
    });
    cleanups.push(() => codex.close());
    const thread = codex.startThread({ workingDirectory: work, skipGitRepoCheck: true });
    const { events } = await thread.runStreamed("sleep");
    const drained = (async () => {
      for await (const _ of events) {
        // The turn runs until its host is killed.
      }
    })().then(
      () => "completed",
      (error: unknown) => (error instanceof Error ? error.name : String(error)),
    );
    // Under workspace-write the command runs in codex's bubblewrap sandbox, a session of its own
    // (looked for until seen: the processes appear one after the other).
    const sandboxed = () =>
      processesWith(`sleep ${seconds}`).filter((pid) =>
        /codex-linux-sandbox|bwrap/.test(readFileSync(`/proc/${pid}/cmdline`, "utf8")),
      );
    await eventually("the command runs in a sandbox", () => sandboxed().length > 0);
    const mark = ownerMark(host.pid);

    host.cli.child.kill("SIGKILL");
    // Mid-command, the watcher gives codex 1 s to end by SIGTERM before it kills it (codex alone
    // would drain its turn for 10 s). 8 s leaves room for a loaded machine: CI runs with two test
    // files at once on two cores, and once took over 4 s.
    const gone = await takes(8_000, () => !running(host.pid));
    const watcher = processesWith(mark);
    assert.ok(
      gone !== undefined,
      `codex (pid ${host.pid}) still runs 8 s after its host died; watcher pids: ${watcher.join(", ") || "none"}`,
    );
    console.log(`codex, mid-command, ended ${gone} ms after its host was killed`);
    assert.ok(
      (await takes(4_000, () => processesWith(`sleep ${seconds}`).length === 0)) !== undefined,
      `left running: ${processesWith(`sleep ${seconds}`).join(", ")}`,
    );
    assert.ok(
      (await takes(2_000, () => processesWith(mark).length === 0)) !== undefined,
      "the watcher ended after its work",
    );
    assert.notEqual(await drained, "completed", "the turn did not complete");
  });
});
