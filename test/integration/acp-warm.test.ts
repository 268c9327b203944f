// `codex-harness acp` starts codex when the editor connects, not at the first session (real codex,
// ScriptedModel): codex is up when initialize answers, and an editor that goes away at any point
// of that start leaves no codex process behind.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { reply } from "../../src/testing/script.js";
import { answerText, editorOf, responseTo, sendLines } from "../support/acp-editor.js";
import { agentOn, allow, promptOf } from "../support/acp-session.js";
import { codexGone, codexProcesses } from "../support/codex-processes.js";
import { eventually } from "../support/eventually.js";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: PROTOCOL_VERSION },
});

/** Resolves with the agent's exit code, or rejects after `ms`. */
function exitWithin(closed: Promise<number | null>, ms: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the agent did not exit within ${ms} ms`)), ms);
  });
  return Promise.race([closed, late]).finally(() => clearTimeout(timer));
}

describe("codex-harness acp: codex started early (real codex, ScriptedModel)", () => {
  it("codex is running when initialize answers; the session then only starts a thread", async () => {
    const setup = await agentOn([reply("Warm already.")]);
    try {
      const editor = editorOf(setup.agent, allow("reject_once"));
      await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      assert.equal(
        (await codexProcesses(setup.home)).length,
        1,
        "one codex app-server, started before any session",
      );
      const { sessionId } = await editor.agent.request("session/new", {
        cwd: setup.workspace,
        mcpServers: [],
      });
      const done = await promptOf(editor, sessionId)("Are you there?");
      assert.equal(done.stopReason, "end_turn");
      assert.equal(answerText(editor.updates), "Warm already.");
      assert.deepEqual(setup.agent.invalid, []);
    } finally {
      await setup.close();
    }
    assert.equal(await setup.agent.closed, 0, setup.agent.stderr());
    assert.deepEqual(await codexGone(setup.home, 10_000), [], "stdin EOF leaves no codex behind");
  });

  for (const [when, before] of [
    ["right after sending initialize", async () => {}],
    [
      "as soon as codex's process is there (its start still in flight, most often)",
      async (home: string) => {
        await eventually("a codex process", async () => (await codexProcesses(home)).length > 0);
      },
    ],
    [
      "once initialize is answered",
      async (_home: string, answered: () => Promise<unknown>) => answered(),
    ],
  ] as const) {
    it(`the editor closes stdin ${when}: the agent exits 0 and no codex is left`, async () => {
      const setup = await agentOn([]);
      try {
        sendLines(setup.agent, INITIALIZE);
        await before(setup.home, () => responseTo(setup.agent, 1));
        setup.agent.child.stdin.end();
        assert.equal(await exitWithin(setup.agent.closed, 20_000), 0, setup.agent.stderr());
        assert.deepEqual(await codexGone(setup.home, 10_000), [], "no codex outlives the agent");
        assert.deepEqual(setup.agent.invalid, []);
      } finally {
        await setup.close();
      }
    });
  }
});
