// `codex-harness acp` sends a tool call before any permission request about it and its updates
// after it, every time (real codex, ScriptedModel): 30 prompts, each with a command and a file
// change codex asks about, some allowed and some rejected, the order checked on the wire.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ScriptStep } from "../../src/testing/script.js";
import { applyPatch, execCommand, reply } from "../../src/testing/script.js";
import { openSession, promptOf, withAgent } from "../support/acp-session.js";

const TURNS = 30;

/** Where the wire's order breaks: a request or an update about a call the editor has not seen. */
function disorder(sent: readonly Record<string, unknown>[]): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const message of sent) {
    const params = (message.params ?? {}) as {
      update?: { sessionUpdate?: string; toolCallId?: string };
      toolCall?: { toolCallId?: string };
    };
    if (message.method === "session/request_permission") {
      const id = String(params.toolCall?.toolCallId);
      if (!seen.has(id)) problems.push(`asked about ${id} before its tool_call`);
    }
    const update = params.update;
    if (message.method !== "session/update" || !update?.toolCallId) continue;
    if (update.sessionUpdate === "tool_call") {
      if (seen.has(update.toolCallId)) problems.push(`a second tool_call ${update.toolCallId}`);
      seen.add(update.toolCallId);
    } else if (!seen.has(update.toolCallId)) {
      problems.push(`an update of ${update.toolCallId} before its tool_call`);
    }
  }
  return problems;
}

describe("codex-harness acp: tool calls before their permission requests (real codex, ScriptedModel)", () => {
  it(`${TURNS} prompts with a command and a file change asked about: always in order`, async () => {
    const steps: ScriptStep[] = [];
    for (let turn = 0; turn < TURNS; turn++) {
      steps.push(
        execCommand(`echo ${turn} > run-${turn}.txt`, {
          escalated: true,
          justification: `to record turn ${turn}`,
        }),
        applyPatch(`*** Add File: file-${turn}.txt\n+turn ${turn}`),
        reply(`Turn ${turn} done.`),
      );
    }
    await withAgent(steps, async (setup) => {
      let asked = 0;
      // Every third question rejected: the turn goes on either way.
      const { editor, sessionId } = await openSession(setup.agent, setup.workspace, () => ({
        outcome: {
          outcome: "selected",
          optionId: asked++ % 3 === 2 ? "reject_once" : "allow_once",
        },
      }));
      const prompt = promptOf(editor, sessionId);
      for (let turn = 0; turn < TURNS; turn++) {
        assert.equal((await prompt(`Turn ${turn}`)).stopReason, "end_turn");
      }
      assert.equal(editor.asked.length, 2 * TURNS, "a command and a file change asked each turn");
      assert.deepEqual(disorder(setup.agent.sent), []);
      // The command asked about shows what runs, where, and why.
      const commands = editor.asked.filter((request) => request.toolCall.kind === "execute");
      for (const [turn, request] of commands.entries()) {
        const shown = JSON.stringify(request.toolCall.content);
        assert.ok(shown.includes(`echo ${turn} > run-${turn}.txt`), shown);
        assert.ok(
          shown.includes(setup.workspace) && shown.includes(`to record turn ${turn}`),
          shown,
        );
      }
      const edits = editor.asked.filter((request) => request.toolCall.kind === "edit");
      assert.deepEqual(
        edits.map((request) => request.toolCall.content?.[0]?.type),
        Array(TURNS).fill("diff"),
        "each file change asked about shows its diff",
      );
      const calls = editor.updates.filter((n) => n.update.sessionUpdate === "tool_call");
      assert.equal(calls.length, 2 * TURNS, "one tool call per command and per file change");
    });
  });
});
