// `codex-harness acp` shows a command's output where the editor wants it (real codex,
// ScriptedModel): in a terminal for an editor with terminals (the tool call's `terminal` content,
// its output and exit in `_meta`, as Zed reads them), as text for any other; and codex's warnings
// in the chat once per session, marked as notices, never as the model's words.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type * as acp from "@agentclientprotocol/sdk";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { execCommand, failure, reply } from "../../src/testing/script.js";
import { answerText, editorOf } from "../support/acp-editor.js";
import { allow, promptOf, withAgent } from "../support/acp-session.js";

const COMMAND = "printf 'one\\n'; sleep 0.2; printf 'two\\n'";

/** An editor with `capabilities`, a session, and two prompts: a command, then an answer. */
async function twoPrompts(
  setup: Parameters<Parameters<typeof withAgent>[1]>[0],
  capabilities: acp.ClientCapabilities,
) {
  const editor = editorOf(setup.agent, allow("allow_once"));
  await editor.agent.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: capabilities,
  });
  const { sessionId } = await editor.agent.request("session/new", {
    cwd: setup.workspace,
    mcpServers: [],
  });
  const prompt = promptOf(editor, sessionId);
  assert.equal((await prompt("Run it")).stopReason, "end_turn");
  assert.equal((await prompt("Again")).stopReason, "end_turn");
  return editor.updates.map((n) => n.update);
}

/** The output an editor's terminal got, by `_meta` key. */
/**
 * What the editor's terminal shows at the end (the last one a tool call's content names), by the
 * `_meta` key of its output.
 */
function terminalData(updates: acp.SessionUpdate[], key: string): string {
  const terminals = updates.flatMap((u) =>
    "content" in u && Array.isArray(u.content)
      ? u.content.flatMap((part) => (part.type === "terminal" ? [part.terminalId] : []))
      : [],
  );
  const shown = terminals.at(-1);
  return updates
    .map((u) => u._meta?.[key] as { terminal_id?: string; data?: string } | undefined)
    .filter((output) => output?.terminal_id === shown)
    .map((output) => output?.data ?? "")
    .join("");
}

const steps = () => [execCommand(COMMAND), reply("Ran it."), reply("Nothing to run.")];

describe("codex-harness acp: command output and codex's warnings (real codex, ScriptedModel)", () => {
  it("an editor with terminals: the command in a terminal, its output and exit in _meta", async () => {
    await withAgent(steps(), async (setup) => {
      const updates = await twoPrompts(setup, { terminal: true });
      const call = updates.find((u) => u.sessionUpdate === "tool_call");
      assert.ok(call?.sessionUpdate === "tool_call");
      assert.deepEqual(call.content, [{ type: "terminal", terminalId: call.toolCallId }]);
      assert.deepEqual(call._meta?.terminal_info, {
        terminal_id: call.toolCallId,
        cwd: setup.workspace,
      });
      assert.equal(terminalData(updates, "terminal_output_delta"), "one\ntwo\n");
      const end = updates.find((u) => u._meta?.terminal_exit !== undefined);
      assert.ok(end?.sessionUpdate === "tool_call_update");
      assert.equal(end.status, "completed");
      // codex may not stream the first output: then a terminal with all of it takes the place.
      const shown = end.content?.[0];
      assert.ok(!end.content || (end.content.length === 1 && shown?.type === "terminal"));
      assert.deepEqual(end._meta?.terminal_exit, {
        terminal_id: shown?.type === "terminal" ? shown.terminalId : call.toolCallId,
        exit_code: 0,
        signal: null,
      });
      assert.deepEqual(end.rawOutput, {
        exit_code: 0,
        status: "completed",
        formatted_output: "one\ntwo\n",
      });
    });
  });

  it("an editor that asks for terminal_output gets it; one without terminals, text", async () => {
    await withAgent(steps(), async (setup) => {
      const updates = await twoPrompts(setup, { terminal: true, _meta: { terminal_output: true } });
      assert.equal(terminalData(updates, "terminal_output"), "one\ntwo\n");
      assert.equal(terminalData(updates, "terminal_output_delta"), "");
    });
    await withAgent(steps(), async (setup) => {
      const updates = await twoPrompts(setup, {});
      const call = updates.find((u) => u.sessionUpdate === "tool_call");
      assert.ok(call?.sessionUpdate === "tool_call");
      assert.equal(call.content, undefined);
      assert.equal(call._meta, undefined);
      const end = updates.find((u) => u.sessionUpdate === "tool_call_update");
      assert.ok(end?.sessionUpdate === "tool_call_update");
      assert.deepEqual(end.content, [
        { type: "content", content: { type: "text", text: "```\none\ntwo\n```" } },
      ]);
    });
  });

  it("codex's warnings reach the chat once per session, as notices", async () => {
    await withAgent(
      [failure("overloaded, try again"), reply("Fine."), reply("Still fine.")],
      async (setup) => {
        const updates = await twoPrompts(setup, {});
        const notices = updates.filter(
          (u): u is Extract<acp.SessionUpdate, { sessionUpdate: "agent_message_chunk" }> =>
            u.sessionUpdate === "agent_message_chunk" && u._meta?.codexHarness !== undefined,
        );
        const texts = notices.map((u) => (u.content.type === "text" ? u.content.text : ""));
        // codex's start-up warning (an unstable feature on) and its retry, each once.
        assert.equal(texts.filter((t) => /Under-development features enabled/.test(t)).length, 1);
        assert.equal(texts.filter((t) => /Reconnecting\.\.\. 1\/1/.test(t)).length, 1);
        assert.equal(new Set(texts).size, texts.length, "none twice");
        for (const notice of notices) {
          assert.match(
            notice.content.type === "text" ? notice.content.text : "",
            /^\n\n> ⚠️ \*\*codex notice:\*\* /,
          );
          assert.match(String(notice.messageId), /^notice-/, "its own message, not the model's");
        }
        const answer = answerText(updates.map((update) => ({ sessionId: "", update })));
        assert.equal(answer, "Fine.Still fine.", "the model's words are its own");
      },
      {
        suppress_unstable_features_warning: false,
        features: { request_permissions_tool: true },
        model_providers: { scripted: { stream_max_retries: 1 } },
      },
    );
  });
});
