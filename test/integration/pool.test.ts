import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CodexPool } from "../../src/codex-pool.js";
import { inputTexts, type RecordedRequest } from "../../src/testing/recorded.js";
import { reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { FULL_ACCESS } from "../support/codex-api-fixture.js";

let root: string;
let model: ScriptedModel;
let codexHome: string;

/** Every request is answered by echoing its last user message, so routing mistakes show. */
const echo = (request: RecordedRequest) => reply(`echo: ${inputTexts(request).at(-1)}`);

before(async () => {
  root = await mkdtemp(path.join(tmpdir(), "codex-harness-pool-"));
  codexHome = path.join(root, "home");
  await mkdir(path.join(root, "work"), { recursive: true });
  model = await ScriptedModel.start();
  await model.writeCodexHome(codexHome, FULL_ACCESS);
});

after(async () => {
  await model.close();
  await rm(root, { recursive: true, force: true });
});

describe("CodexPool (real codex)", () => {
  it("runs 20 threads with concurrent turns on 2 processes, each getting its own answers", async () => {
    model.enqueue(...Array.from({ length: 40 }, () => echo));
    const pool = new CodexPool({ size: 2, codexHome });
    try {
      const threads = Array.from({ length: 20 }, () =>
        pool.startThread({ workingDirectory: path.join(root, "work"), skipGitRepoCheck: true }),
      );
      const first = await Promise.all(threads.map((thread, i) => thread.run(`thread ${i} turn 1`)));
      const second = await Promise.all(
        threads.map((thread, i) => thread.run(`thread ${i} turn 2`)),
      );
      assert.deepEqual(
        first.map((r) => r.finalResponse),
        threads.map((_, i) => `echo: thread ${i} turn 1`),
      );
      assert.deepEqual(
        second.map((r) => r.finalResponse),
        threads.map((_, i) => `echo: thread ${i} turn 2`),
      );
      assert.equal(new Set(threads.map((t) => t.id)).size, 20);
    } finally {
      await pool.close();
    }
  });

  it("stops an idle process and resumes its threads in a new one when needed", async () => {
    model.enqueue(echo, echo);
    const pool = new CodexPool({ size: 2, codexHome, idleShutdownMs: 200 });
    try {
      const thread = pool.startThread({
        workingDirectory: path.join(root, "work"),
        skipGitRepoCheck: true,
      });
      await thread.run("remember kiwi");
      const client = await pool.appServerOf(thread.id as string).client();
      const firstPid = client.pid;
      await new Promise((resolve) => setTimeout(resolve, 700));
      assert.ok(client.closedReason, "the idle process was stopped");
      const result = await thread.run("what fruit?");
      assert.equal(result.finalResponse, "echo: what fruit?");
      assert.ok(JSON.stringify(model.lastRequest?.body).includes("remember kiwi"), "history kept");
      assert.notEqual((await pool.appServerOf(thread.id as string).client()).pid, firstPid);
    } finally {
      await pool.close();
    }
  });
});
