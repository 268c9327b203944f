// A codex that exits cleanly (stdin EOF) but left a command's sandbox running in a session of its
// own (seen with bubblewrap when a turn is interrupted as a command starts): it is ended too.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { CodexProcess } from "../../src/app-server/codex-process.js";

const root = await mkdtemp(path.join(tmpdir(), "codex-harness-clean-exit-"));
after(() => rm(root, { recursive: true, force: true }));

/** Starts a sleeper in a session of its own (as codex starts commands), prints its pid, exits on EOF. */
const FAKE_CODEX = `
const { spawn } = require("node:child_process");
const child = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
child.unref();
process.stdout.write(child.pid + "\\n");
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
`;

/** Whether `pid` runs (a zombie, killed and waiting for an init that may not reap it, does not). */
const alive = async (pid: number) => {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat !== "" && !/\) Z /.test(stat);
};

describe("a codex that exits cleanly", {
  skip: process.platform !== "linux" && "reads /proc",
}, () => {
  it("leaves nothing of its own running: what it left in another session is ended", async () => {
    const script = path.join(root, "fake-codex.cjs");
    await writeFile(script, FAKE_CODEX);
    const codex = await CodexProcess.spawn({
      executablePath: process.execPath,
      args: [script],
      env: { PATH: process.env.PATH ?? "" },
    });
    const [line] = await new Promise<string[]>((resolve) =>
      codex.child.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString().split("\n"))),
    );
    const sleeper = Number(line);
    assert.ok(await alive(sleeper), "the sleeper runs");
    codex.child.stdin.end();
    const exit = await codex.exited;
    assert.deepEqual(exit, { exitCode: 0, signal: null });
    assert.deepEqual(await codex.swept, [sleeper]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await alive(sleeper), false, "the sleeper was ended with codex");
  });
});
