// A program that never calls close() (the official SDK has none) exits when its work is done, codex too.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { FULL_ACCESS } from "../support/codex-api-fixture.js";
import { repoRoot } from "../support/paths.js";

/** The live codex processes (not zombies) whose environment has CODEX_HOME=home (Linux /proc). */
async function codexProcesses(home: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const [command = ""] = (await readFile(`/proc/${entry}/cmdline`, "utf8")).split("\0");
      if (path.basename(command) !== "codex") continue;
      const environ = (await readFile(`/proc/${entry}/environ`, "utf8")).split("\0");
      const stat = await readFile(`/proc/${entry}/stat`, "utf8");
      if (environ.includes(`CODEX_HOME=${home}`) && !/\) Z /.test(stat)) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Each process's command line, to say what was left behind. */
async function commandLines(pids: number[]): Promise<string> {
  const lines = await Promise.all(
    pids.map(async (pid) =>
      readFile(`/proc/${pid}/cmdline`, "utf8").then(
        (cmdline) => `${pid}: ${cmdline.split("\0").join(" ")}`,
        () => `${pid}: gone`,
      ),
    ),
  );
  return lines.join("; ");
}

/** Runs `source` as an ES module in a child node; resolves with its exit code and output. */
function runProgram(source: string, env: Record<string, string>, timeoutMs: number) {
  const child = spawn(process.execPath, ["--input-type=module", "-e", source], {
    cwd: repoRoot,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk;
  });
  return new Promise<{ code: number | null; output: string; timedOut: boolean }>((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve({ code: null, output, timedOut: true });
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output, timedOut: false });
    });
  });
}

describe("a program that never calls close()", () => {
  for (const transport of ["app-server", "exec"] as const) {
    it(`exits by itself once its turns are done, and codex is gone (${transport})`, async () => {
      const root = await mkdtemp(path.join(tmpdir(), "codex-harness-exit-"));
      const home = path.join(root, "home");
      const workdir = path.join(root, "work");
      await mkdir(workdir, { recursive: true });
      const model = await ScriptedModel.start({ responses: [reply("First."), reply("Second.")] });
      after(async () => {
        await model.close();
        await rm(root, { recursive: true, force: true });
      });
      await model.writeCodexHome(home, FULL_ACCESS);
      const program = `
        import { Codex } from "codex-harness";
        const codex = new Codex({ codexHome: ${JSON.stringify(home)}, transport: ${JSON.stringify(transport)} });
        const thread = codex.startThread({ workingDirectory: ${JSON.stringify(workdir)}, skipGitRepoCheck: true });
        console.log((await thread.run("one")).finalResponse);
        const { events } = await thread.runStreamed("two");
        for await (const event of events) if (event.type === "item.completed" && event.item.type === "agent_message") console.log(event.item.text);
      `;
      const started = Date.now();
      const result = await runProgram(
        program,
        { ...(process.env as Record<string, string>), CODEX_HOME: home },
        20_000,
      );
      assert.equal(result.timedOut, false, `still running after 20 s:\n${result.output}`);
      assert.equal(result.code, 0, result.output);
      assert.match(result.output, /First\.\nSecond\./);
      // codex sees its stdin close when the program exits, and ends.
      let left = await codexProcesses(home);
      for (let waited = 0; left.length > 0 && waited < 5_000; waited += 100) {
        await sleep(100);
        left = await codexProcesses(home);
      }
      assert.deepEqual(
        left,
        [],
        `no codex process outlives the program: ${await commandLines(left)}`,
      );
      assert.ok(Date.now() - started < 20_000);
    });
  }
});
