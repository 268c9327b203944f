// A session's title and status (`session_info_update`), /rename, steering a running prompt, and
// forking a session, driven as an editor drives them (real codex, ScriptedModel).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type * as acp from "@agentclientprotocol/sdk";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { inputTexts, type RecordedRequest } from "../../src/testing/recorded.js";
import { reply, response } from "../../src/testing/script.js";
import { answerText, editorOf } from "../support/acp-editor.js";
import { allow, promptOf, withAgent, withSession } from "../support/acp-session.js";
import { eventually } from "../support/eventually.js";

type Info = Extract<acp.SessionUpdate, { sessionUpdate: "session_info_update" }>;

/** The session info updates `editor` got for `sessionId`. */
function infos(editor: ReturnType<typeof editorOf>, sessionId: string): Info[] {
  return editor.updates.flatMap((n) =>
    n.sessionId === sessionId && n.update.sessionUpdate === "session_info_update" ? [n.update] : [],
  );
}

/** The thread statuses codex reported, in order (`_meta.codex.threadStatus.type`). */
function statuses(editor: ReturnType<typeof editorOf>, sessionId: string): string[] {
  return infos(editor, sessionId).flatMap((info) => {
    const status = (info._meta as { codex?: { threadStatus?: { type?: string } } } | undefined)
      ?.codex?.threadStatus?.type;
    return status ? [status] : [];
  });
}

/** The text the user sent last in a model request. */
const lastUserText = (request: RecordedRequest | undefined) =>
  request ? (inputTexts(request).at(-1) ?? "") : "";

describe("codex-harness acp: session info, steering and fork (real codex, ScriptedModel)", () => {
  it("the first prompt titles the session, /rename renames it, and the status follows codex's", async () => {
    await withSession([reply("On it.")], async (setup, { editor, sessionId, prompt }) => {
      const long = `Fix the login bug ${"where the session expires ".repeat(6)}`;
      await prompt(`${long}\nSecond line: details.`);
      const requests = setup.model.modelRequests.length;
      assert.equal(requests, 1, "no extra model request for the title");
      const title = infos(editor, sessionId).find((info) => info.title)?.title ?? "";
      assert.ok(title.startsWith("Fix the login bug"), title);
      assert.ok(title.length <= 80 && title.endsWith("…"), title);
      // codex's thread went active for the turn and idle after it.
      await eventually("the idle status", async () =>
        statuses(editor, sessionId).at(-1) === "idle" ? true : undefined,
      );
      assert.ok(statuses(editor, sessionId).includes("active"), statuses(editor, sessionId).join());

      const before = editor.updates.length;
      assert.equal((await prompt("/rename Login expiry")).stopReason, "end_turn");
      assert.match(answerText(editor.updates.slice(before)), /Renamed: Login expiry/);
      assert.equal(infos(editor, sessionId).at(-1)?.title, "Login expiry");
      assert.equal(setup.model.modelRequests.length, requests, "no turn for /rename");
      const listed = await editor.agent.request("session/list", { cwd: setup.workspace });
      assert.equal(listed.sessions.find((s) => s.sessionId === sessionId)?.title, "Login expiry");
    });
  });

  it("an editor that asks for steering: a prompt sent while one runs reaches the model's next request", async () => {
    await withAgent(
      [
        response([reply("Working on it.")], { delayMs: 2_500 }),
        (request: RecordedRequest) => reply(`Saw: ${lastUserText(request)}`),
        response([reply("Busy.")], { delayMs: 2_500 }),
        (request: RecordedRequest) => reply(`Saw: ${lastUserText(request)}`),
      ],
      async (setup) => {
        const editor = editorOf(setup.agent, allow("reject_once"));
        const init = await editor.agent.request("initialize", {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: { _meta: { steering: { supported: true } } },
        });
        assert.deepEqual(init._meta?.steering, { supported: true }, "the agent says it steers");
        const { sessionId } = await editor.agent.request("session/new", {
          cwd: setup.workspace,
          mcpServers: [],
        });
        const prompt = promptOf(editor, sessionId);
        const first = prompt("write the report");
        await setup.model.waitForRequest(1, { timeoutMs: 20_000 });
        const steered = await prompt("also add a summary");
        const done = await first;
        assert.equal(done.stopReason, "end_turn");
        assert.equal(steered.stopReason, "end_turn", "the steering prompt ends with the turn");
        assert.equal(lastUserText(setup.model.modelRequests[1]), "also add a summary");
        assert.match(answerText(editor.updates), /Saw: also add a summary/);

        // codex-acp's own request does the same.
        const second = prompt("next task");
        await setup.model.waitForRequest(3, { timeoutMs: 20_000 });
        const taken = await editor.agent.request<{ outcome: string }>("_session/steering", {
          sessionId,
          prompt: [{ type: "text", text: "and be brief" }],
        });
        assert.deepEqual(taken, { outcome: "injected" });
        assert.equal((await second).stopReason, "end_turn");
        assert.equal(lastUserText(setup.model.modelRequests[3]), "and be brief");
      },
    );
  });

  it("an editor that does not ask: the second prompt is refused, unless it asks in its _meta", async () => {
    await withSession(
      [
        response([reply("Working.")], { delayMs: 2_500 }),
        (request: RecordedRequest) => reply(`Saw: ${lastUserText(request)}`),
      ],
      async (setup, { editor, sessionId, prompt }) => {
        const first = prompt("work");
        await setup.model.waitForRequest(1, { timeoutMs: 20_000 });
        await assert.rejects(
          prompt("more"),
          (error: { code?: number; message?: string }) =>
            error.code === -32600 && /already running a prompt/.test(error.message ?? ""),
        );
        const steered = await editor.agent.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "this one steers" }],
          _meta: { steering: true },
        });
        assert.equal(steered.stopReason, "end_turn");
        assert.equal((await first).stopReason, "end_turn");
        assert.equal(lastUserText(setup.model.modelRequests[1]), "this one steers");
      },
    );
  });

  it("session/fork: a new session with the history, and the original goes on its own", async () => {
    await withAgent(
      [reply("Noted: kiwi."), reply("The word was kiwi."), reply("Still here.")],
      async (setup) => {
        const editor = editorOf(setup.agent, allow("reject_once"));
        const init = await editor.agent.request("initialize", {
          protocolVersion: PROTOCOL_VERSION,
        });
        assert.deepEqual(
          (init.agentCapabilities?.sessionCapabilities as { fork?: unknown } | undefined)?.fork,
          {},
        );
        const { sessionId } = await editor.agent.request("session/new", {
          cwd: setup.workspace,
          mcpServers: [],
        });
        await promptOf(editor, sessionId)("remember the word kiwi");
        const forked = await editor.agent.request<{
          sessionId: string;
          configOptions?: acp.SessionConfigOption[];
        }>("session/fork", { sessionId, cwd: setup.workspace, mcpServers: [] });
        assert.notEqual(forked.sessionId, sessionId);
        assert.ok(forked.configOptions?.some((o) => o.id === "model"));
        await promptOf(editor, forked.sessionId)("which word?");
        const seen = JSON.stringify(setup.model.lastRequest?.body);
        assert.match(seen, /remember the word kiwi/, "the fork carries the history");
        assert.match(seen, /Noted: kiwi\./);
        // The original goes on without the fork's turn.
        await promptOf(editor, sessionId)("still there?");
        assert.doesNotMatch(JSON.stringify(setup.model.lastRequest?.body), /which word\?/);
        await assert.rejects(
          editor.agent.request("session/fork", {
            sessionId: "00000000-0000-0000-0000-000000000000",
            cwd: setup.workspace,
          }),
          (error: { code?: number }) => error.code === -32002,
        );
      },
    );
  });
});
