// The agent's /goal, /mcp and /skills, driven as an editor drives them (real codex,
// ScriptedModel): a goal set and its turns followed into the session; codex's MCP servers with
// their state; its skills for the session's folder.
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { functionCall, reply, response } from "../../src/testing/script.js";
import { answerText, editorOf } from "../support/acp-editor.js";
import { allow, NOTES_SERVER, promptOf, withAgent, withSession } from "../support/acp-session.js";

describe("codex-harness acp: /goal, /mcp, /skills (real codex, ScriptedModel)", () => {
  it("/goal <objective> sets the goal and streams its turns; /goal shows it", async () => {
    await withSession(
      [
        reply("Working on the report."),
        functionCall("update_goal", { status: "complete" }),
        reply("The report is written."),
      ],
      async (setup, { editor, prompt }) => {
        assert.match(
          answerText(await sent(editor, () => prompt("/goal"))),
          /No goal\. Set one with \/goal <objective>/,
        );
        const run = await sent(editor, async () => {
          assert.equal((await prompt("/goal write the report")).stopReason, "end_turn");
        });
        const text = answerText(run);
        assert.match(text, /Working on the report\.[\s\S]*The report is written\./, text);
        assert.match(text, /Goal: write the report — complete/);
        assert.ok(
          run.filter((n) => n.update.sessionUpdate === "usage_update").length >= 2,
          "each of the goal's turns streamed to its end",
        );
        const asked = setup.model.modelRequests.length;
        assert.match(
          answerText(await sent(editor, () => prompt("/goal"))),
          /Goal: write the report — complete \(\d+ tokens/,
        );
        assert.equal(setup.model.modelRequests.length, asked, "no turn to show the goal");
      },
      { features: { goals: true } },
    );
  });

  it("session/cancel during /goal: the prompt answers cancelled and the goal is paused", async () => {
    await withSession(
      [response([reply("Too late.")], { delayMs: 60_000 })],
      async (setup, { editor, sessionId, prompt }) => {
        const running = prompt("/goal a long task");
        await setup.model.waitForRequest(1, { timeoutMs: 20_000 });
        const cancelled = Date.now();
        await editor.agent.notify("session/cancel", { sessionId });
        assert.equal((await running).stopReason, "cancelled");
        assert.ok(Date.now() - cancelled < 5_000, `${Date.now() - cancelled} ms after the cancel`);
        assert.match(
          answerText(await sent(editor, () => prompt("/goal"))),
          /Goal: a long task — paused/,
        );
      },
      { features: { goals: true } },
    );
  });

  it("/mcp lists codex's MCP servers with their state and tools; /skills the folder's skills", async () => {
    await withAgent([], async (setup) => {
      const skill = path.join(setup.home, "skills", "greet");
      await mkdir(skill, { recursive: true });
      await writeFile(
        path.join(skill, "SKILL.md"),
        "---\nname: greet\ndescription: Greets people warmly\n---\nSay hello.\n",
      );
      const editor = editorOf(setup.agent, allow("reject_once"));
      await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      const { sessionId } = await editor.agent.request("session/new", {
        cwd: setup.workspace,
        mcpServers: [NOTES_SERVER],
      });
      const prompt = promptOf(editor, sessionId);
      // codex says how far the server is: "starting" until it answered (longer on a loaded
      // machine), then "connected".
      let mcp = answerText(await sent(editor, () => prompt("/mcp")));
      assert.match(mcp, /^MCP servers:\n- notes: (starting|connected); 3 tools/, mcp);
      const deadline = Date.now() + 20_000;
      while (!/notes: connected/.test(mcp) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        mcp = answerText(await sent(editor, () => prompt("/mcp")));
      }
      assert.match(
        mcp,
        /^MCP servers:\n- notes: connected; 3 tools \(erase_notes, read_notes, sign_notes\)/,
        mcp,
      );
      const skills = answerText(await sent(editor, () => prompt("/skills")));
      assert.match(skills, /- greet: Greets people warmly/, skills);
      assert.match(answerText(await sent(editor, () => prompt("/mcp now"))), /takes no arguments/);
      assert.equal(setup.model.modelRequests.length, 0, "no turn for any of them");
    });
  });
});

/** The updates `editor` got while `act` ran. */
async function sent(editor: ReturnType<typeof editorOf>, act: () => Promise<unknown>) {
  const before = editor.updates.length;
  await act();
  return editor.updates.slice(before);
}
