import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { repoRoot } from "../support/paths.js";

const run = promisify(execFile);

/** Runs a compiled README example the way a user would: `node build/examples/<name>.js`. */
async function runExample(name: string): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    [path.join(repoRoot, "build/examples", `${name}.js`)],
    {
      cwd: repoRoot,
      timeout: 60_000,
    },
  );
  return stdout;
}

describe("README examples", () => {
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
    assert.match(stdout, /answered by alice: accept/);
  });

  it("approvals-policy: the file allows ls, denies rm -rf, the person declines curl", async () => {
    const stdout = await runExample("approvals-policy");
    assert.match(stdout, /ls: "accept"/);
    assert.match(stdout, /rm -rf \.\/src': "decline"/);
    assert.match(stdout, /curl https:\/\/example\.com': "decline"/);
  });
});
