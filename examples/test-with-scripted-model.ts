// A test of your own code that drives codex, offline and deterministic: node:test, the real codex
// app-server, and a ScriptedModel playing the model. The code under test is an approvals policy;
// run the file as any test (`node --test`, or `node` on it).
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { type Approvals, Codex } from "codex-harness";
import { execCommand, reply, ScriptedModel } from "codex-harness/testing";

// Yours: what may run outside the sandbox.
const policy: Approvals = {
  commandExecution: (request) => (request.script.includes("rm -rf") ? "decline" : "accept"),
};

test("the policy declines rm -rf, and codex tells the model", async (t) => {
  const root = await mkdtemp(path.join(tmpdir(), "codex-harness-test-"));
  const model = await ScriptedModel.start({
    responses: [execCommand("rm -rf build", { escalated: true }), reply("Nothing was deleted.")],
  });
  await model.writeCodexHome(path.join(root, "home")); // read-only sandbox, approvals on request
  const codex = new Codex({
    events: "extended",
    codexHome: path.join(root, "home"),
    approvals: policy,
  });
  t.after(async () => {
    await codex.close();
    await model.close();
    await rm(root, { recursive: true, force: true });
  });

  const result = await codex
    .startThread({ workingDirectory: root, skipGitRepoCheck: true })
    .run("Clean up");
  const command = result.items.find((item) => item.type === "command_execution");
  assert.equal(command?.status, "declined");
  assert.equal(result.finalResponse, "Nothing was deleted.");
  assert.equal(model.toolOutputs().length, 1, "the model heard back about its command");
  model.assertAllConsumed();
});
