// `codex-harness acp` driven as an editor drives it (the ACP SDK's client side over stdio), on the
// real codex and a ScriptedModel; every message the agent sends checked against the ACP v1 schema.
// This file: a prompt's turn, its cancel and its failures, and the wire itself.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { execCommand, failure, reply, response } from "../../src/testing/script.js";
import { answerText, editorOf, responseTo, sendLines } from "../support/acp-editor.js";
import { agentOn, allow, openSession, promptOf, withAgent } from "../support/acp-session.js";
import { codexGone } from "../support/codex-processes.js";
import { eventually } from "../support/eventually.js";

describe("codex-harness acp: prompts and the wire (real codex, ScriptedModel)", () => {
  it("initializes, starts a session, streams an answer, and ends the turn", async () => {
    // Deltas 30 ms apart: each arrives on its own and goes out as its own chunk.
    const setup = await agentOn([
      response([reply("Hello from codex.", { deltas: 4 })], { eventDelayMs: 30 }),
    ]);
    try {
      const editor = editorOf(setup.agent, allow("reject_once"));
      const init = await editor.agent.request("initialize", {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      assert.equal(init.protocolVersion, PROTOCOL_VERSION);
      assert.equal(init.agentInfo?.name, "codex-harness");
      const { sessionId } = await editor.agent.request("session/new", {
        cwd: setup.workspace,
        mcpServers: [],
      });
      assert.match(sessionId, /^[0-9a-f-]{36}$/, "the session is codex's thread");
      const done = await promptOf(editor, sessionId)("Say hello");
      assert.equal(done.stopReason, "end_turn");
      assert.equal(answerText(editor.updates), "Hello from codex.");
      const chunks = editor.updates.filter((n) => n.update.sessionUpdate === "agent_message_chunk");
      assert.ok(chunks.length >= 2, `streamed in ${chunks.length} chunks`);
      assert.ok(setup.model.userTexts().includes("Say hello"));
      // How full the context is, from codex's token usage: the scripted 100 in + 20 out.
      // (codex gives a model it does not know a window of 258,400 tokens.)
      // (The session's title and status, session_info_update, are not the turn's.)
      const usage = editor.updates
        .map((n) => n.update)
        .filter((u) => u.sessionUpdate !== "session_info_update")
        .at(-1);
      assert.ok(usage?.sessionUpdate === "usage_update", "the turn's last update is its usage");
      assert.equal(usage.used, 120);
      assert.ok(usage.size > 100_000, `the model's context window, ${usage.size}`);
      assert.deepEqual(setup.agent.invalid, [], "every message fits the ACP schema");
      // The three responses and every update were checked.
      assert.ok(setup.agent.checked() >= 3 + chunks.length, `checked ${setup.agent.checked()}`);
    } finally {
      await setup.close();
    }
    assert.equal(await setup.agent.closed, 0, setup.agent.stderr());
    assert.deepEqual(await codexGone(setup.home, 10_000), [], "stdin EOF leaves no codex behind");
  });

  it("session/cancel interrupts the turn at codex: the prompt answers cancelled, quickly", async () => {
    await withAgent([response([reply("Too late.")], { delayMs: 60_000 })], async (setup) => {
      const { editor, sessionId } = await openSession(
        setup.agent,
        setup.workspace,
        allow("reject_once"),
      );
      const prompt = promptOf(editor, sessionId)("Take your time");
      await setup.model.waitForRequest(1, { timeoutMs: 20_000 });
      const cancelled = Date.now();
      await editor.agent.notify("session/cancel", { sessionId });
      const done = await prompt;
      assert.equal(done.stopReason, "cancelled");
      assert.ok(
        Date.now() - cancelled < 5_000,
        `answered ${Date.now() - cancelled} ms after the cancel`,
      );
    });
  });

  it("session/cancel mid-command and mid-question: cancelled, and neither command runs later", async () => {
    await withAgent(
      [
        execCommand("sleep 2; echo late > running.txt"),
        execCommand("echo asked > asked.txt", { escalated: true }),
      ],
      async (setup) => {
        // The editor never answers the permission request: the cancel must end it.
        const { editor, sessionId } = await openSession(
          setup.agent,
          setup.workspace,
          () => new Promise(() => {}),
        );
        const prompt = promptOf(editor, sessionId);
        const cancelWhen = async (what: string, ready: () => boolean) => {
          const running = prompt(`go (${what})`);
          await eventually(what, async () => ready() || undefined);
          const cancelled = Date.now();
          await editor.agent.notify("session/cancel", { sessionId });
          assert.equal((await running).stopReason, "cancelled");
          const took = Date.now() - cancelled;
          assert.ok(took < 3_000, `${what}: answered ${took} ms after the cancel`);
        };
        await cancelWhen("the command runs", () =>
          editor.updates.some((n) => n.update.sessionUpdate === "tool_call"),
        );
        await cancelWhen("the permission is asked", () => editor.asked.length === 1);
        await sleep(3_000);
        assert.ok(
          !existsSync(path.join(setup.workspace, "running.txt")),
          "the running command ended",
        );
        assert.ok(!existsSync(path.join(setup.workspace, "asked.txt")), "the asked one never ran");
      },
    );
  });

  it("an image in the prompt reaches the model as an image", async () => {
    await withAgent([reply("A single pixel.")], async (setup) => {
      const editor = editorOf(setup.agent, allow("reject_once"));
      const init = await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      assert.equal(init.agentCapabilities?.promptCapabilities?.image, true);
      const { sessionId } = await editor.agent.request("session/new", {
        cwd: setup.workspace,
        mcpServers: [],
      });
      // A 1x1 PNG.
      const pixel =
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
      await editor.agent.request("session/prompt", {
        sessionId,
        prompt: [
          { type: "text", text: "What is this?" },
          { type: "image", mimeType: "image/png", data: pixel },
        ],
      });
      const body = JSON.stringify(setup.model.lastRequest?.body);
      assert.ok(body.includes("data:image/png;base64,"), "the image is in the model's request");
      assert.ok(setup.model.userTexts().includes("What is this?"));
    });
  });

  it("a plain ndjson client: every stdout line is JSON-RPC; a broken line is a parse error", async () => {
    await withAgent([reply("Plain.")], async ({ agent, workspace }) => {
      const send = (message: object) =>
        sendLines(agent, JSON.stringify({ jsonrpc: "2.0", ...message }));
      send({ id: 1, method: "initialize", params: { protocolVersion: 1 } });
      assert.ok((await responseTo(agent, 1)).result);
      sendLines(agent, "{ not json");
      const parseError = await responseTo(agent, null);
      assert.equal((parseError.error as { code?: number } | undefined)?.code, -32700);
      send({ id: 2, method: "session/new", params: { cwd: workspace, mcpServers: [] } });
      const sessionId = ((await responseTo(agent, 2)).result as { sessionId: string }).sessionId;
      send({
        id: 3,
        method: "session/prompt",
        params: { sessionId, prompt: [{ type: "text", text: "hi" }] },
      });
      assert.deepEqual((await responseTo(agent, 3)).result, { stopReason: "end_turn" });
      assert.ok(
        agent.sent.every((line) => line.jsonrpc === "2.0"),
        "stdout is the protocol only",
      );
      assert.ok(agent.sent.some((line) => line.method === "session/update"));
    });
  });

  it("a failed turn is a JSON-RPC error with codex's message; a full context window is max_tokens; a policy refusal is refusal", async () => {
    await withAgent(
      [
        failure("the model broke down"),
        failure("Your input exceeds the context window of this model.", {
          code: "context_length_exceeded",
        }),
        failure("This request has been flagged for potentially high-risk cyber activity.", {
          code: "cyber_policy",
        }),
      ],
      async (setup) => {
        const { editor, sessionId } = await openSession(
          setup.agent,
          setup.workspace,
          allow("reject_once"),
        );
        const prompt = promptOf(editor, sessionId);
        await assert.rejects(prompt("one"), (error: { code?: number; message?: string }) => {
          assert.equal(error.code, -32603);
          assert.match(String(error.message), /the model broke down/);
          return true;
        });
        assert.equal((await prompt("two")).stopReason, "max_tokens");
        // The model declining on policy grounds is a refusal, its reason said as text.
        const before = editor.updates.length;
        assert.equal((await prompt("three")).stopReason, "refusal");
        assert.match(answerText(editor.updates.slice(before)), /flagged for potentially high-risk/);
      },
    );
  });

  it("malformed input gets a JSON-RPC error naming the problem; an unknown method -32601", async () => {
    await withAgent([], async (setup) => {
      const editor = editorOf(setup.agent, allow("reject_once"));
      await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      await assert.rejects(
        editor.agent.request("session/prompt", { sessionId: "nope", prompt: [] }),
        (error: { code?: number; message?: string }) => {
          assert.equal(error.code, -32002, "session not found");
          return true;
        },
      );
      await assert.rejects(
        editor.agent.request("session/new", { cwd: 42 } as never),
        (error: { code?: number }) => error.code === -32602,
      );
      await assert.rejects(
        editor.agent.request("no/such/method", {}),
        (error: { code?: number }) => {
          assert.equal(error.code, -32601);
          return true;
        },
      );
    });
  });
});
