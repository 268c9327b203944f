// `codex-harness acp`'s sessions, driven as an editor drives them (real codex, ScriptedModel):
// load, list and close, the editor's MCP servers, models, logging in, and codex on another machine.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { startHost } from "../../src/app-server/host.js";
import { reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { answerText, editorOf, startAcpAgent } from "../support/acp-editor.js";
import {
  agentOn,
  allow,
  NOTES_SERVER,
  openSession,
  promptOf,
  withAgent,
} from "../support/acp-session.js";

const roots: string[] = [];
after(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

describe("codex-harness acp: sessions (real codex, ScriptedModel)", () => {
  it("session/load in a new agent replays the history, and the next prompt carries it", async () => {
    const setup = await agentOn([reply("Noted: kiwi."), reply("It was kiwi.")]);
    let sessionId = "";
    try {
      const editor = editorOf(setup.agent, allow("reject_once"));
      await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      ({ sessionId } = await editor.agent.request("session/new", {
        cwd: setup.workspace,
        mcpServers: [],
      }));
      await promptOf(editor, sessionId)("Remember the word kiwi");
    } finally {
      setup.agent.child.stdin.end();
      await setup.agent.closed;
    }
    // A new agent process, as after the editor restarted.
    const again = startAcpAgent([], { ...process.env, CODEX_HOME: setup.home });
    try {
      const editor = editorOf(again, allow("reject_once"));
      const init = await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      assert.equal(init.agentCapabilities?.loadSession, true);
      await editor.agent.request("session/load", {
        sessionId,
        cwd: setup.workspace,
        mcpServers: [],
      });
      const replayed = editor.updates.map((n) => n.update);
      assert.deepEqual(
        replayed
          .filter((u) => u.sessionUpdate === "user_message_chunk")
          .map((u) => ("content" in u && u.content.type === "text" ? u.content.text : "")),
        ["Remember the word kiwi"],
      );
      assert.equal(answerText(editor.updates), "Noted: kiwi.");
      const done = await promptOf(editor, sessionId)("Which word?");
      assert.equal(done.stopReason, "end_turn");
      assert.ok(
        JSON.stringify(setup.model.lastRequest?.body).includes("Remember the word kiwi"),
        "the thread's history went with the next prompt",
      );
      await assert.rejects(
        editor.agent.request("session/load", {
          sessionId: "01a00000-0000-7000-8000-000000000000",
          cwd: setup.workspace,
          mcpServers: [],
        }),
        (error: { code?: number }) => error.code === -32002,
      );
      assert.deepEqual(again.invalid, []);
    } finally {
      again.child.stdin.end();
      await again.closed;
      await setup.model.close();
    }
  });

  it("session/resume in a new agent continues without a replay; session/delete removes it", async () => {
    const setup = await agentOn([reply("Noted: fig."), reply("It was fig.")]);
    let sessionId = "";
    try {
      ({ sessionId } = await openSession(setup.agent, setup.workspace, allow("reject_once")).then(
        async ({ editor, sessionId }) => {
          await promptOf(editor, sessionId)("Remember the word fig");
          return { sessionId };
        },
      ));
    } finally {
      setup.agent.child.stdin.end();
      await setup.agent.closed;
    }
    const again = startAcpAgent([], { ...process.env, CODEX_HOME: setup.home });
    try {
      const editor = editorOf(again, allow("reject_once"));
      const init = await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      assert.deepEqual(init.agentCapabilities?.sessionCapabilities?.resume, {});
      await editor.agent.request("session/resume", {
        sessionId,
        cwd: setup.workspace,
        mcpServers: [],
      });
      assert.deepEqual(
        editor.updates.filter((n) => n.update.sessionUpdate.endsWith("_chunk")),
        [],
        "nothing replayed",
      );
      assert.equal((await promptOf(editor, sessionId)("Which word?")).stopReason, "end_turn");
      assert.match(JSON.stringify(setup.model.lastRequest?.body), /Remember the word fig/);

      await editor.agent.request("session/delete", { sessionId });
      const { sessions } = await editor.agent.request("session/list", { cwd: setup.workspace });
      assert.ok(!sessions.some((session) => session.sessionId === sessionId), "gone from the list");
      await assert.rejects(
        editor.agent.request("session/resume", { sessionId, cwd: setup.workspace, mcpServers: [] }),
        (error: { code?: number }) => error.code === -32002,
      );
      assert.deepEqual(again.invalid, []);
    } finally {
      again.child.stdin.end();
      await again.closed;
      await setup.model.close();
    }
  });

  it("session/list shows codex's saved threads; session/close ends a session here", async () => {
    await withAgent([reply("Listed.")], async (setup) => {
      const { editor, sessionId } = await openSession(
        setup.agent,
        setup.workspace,
        allow("reject_once"),
      );
      await promptOf(editor, sessionId)("Make a list");
      const { sessions } = await editor.agent.request("session/list", { cwd: setup.workspace });
      const listed = sessions.find((session) => session.sessionId === sessionId);
      assert.ok(listed, JSON.stringify(sessions));
      assert.equal(listed.cwd, setup.workspace);
      assert.match(listed.title ?? "", /Make a list/);
      const updated = Date.parse(listed.updatedAt ?? "");
      assert.ok(Math.abs(Date.now() - updated) < 10 * 60_000, `updatedAt ${listed.updatedAt}`);
      await editor.agent.request("session/close", { sessionId });
      await assert.rejects(
        promptOf(editor, sessionId)("x"),
        (error: { code?: number }) => error.code === -32002,
      );
    });
  });

  it("the editor's MCP server reaches codex for that session: its tool is offered to the model", async () => {
    await withAgent([reply("I can read the notes.")], async (setup) => {
      const editor = editorOf(setup.agent, allow("reject_once"));
      await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      const { sessionId } = await editor.agent.request("session/new", {
        cwd: setup.workspace,
        mcpServers: [NOTES_SERVER],
      });
      await promptOf(editor, sessionId)("What can you read?");
      const tools = JSON.stringify(
        (setup.model.lastRequest?.body as { tools?: unknown } | undefined)?.tools,
      );
      assert.match(tools, /read_notes/, "the editor's MCP tool is in the model's tools");
      await assert.rejects(
        editor.agent.request("session/new", {
          cwd: setup.workspace,
          mcpServers: [{ name: "no spaces", command: "x", args: [], env: [] }],
        }),
        (error: { code?: number }) => error.code === -32602,
      );
    });
  });

  it("models: the session's model is a config option from codex's list; a choice reaches the next turn", async () => {
    await withAgent([reply("First."), reply("Second.")], async (setup) => {
      const editor = editorOf(setup.agent, allow("reject_once"));
      await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      const session = await editor.agent.request("session/new", {
        cwd: setup.workspace,
        mcpServers: [],
      });
      const [option] = session.configOptions ?? [];
      assert.ok(option && option.type === "select", JSON.stringify(session.configOptions));
      assert.equal(option.category, "model");
      assert.equal(option.currentValue, "scripted-model");
      const values = (option.options as { value: string }[]).map((entry) => entry.value);
      const other = values.find((value) => value !== "scripted-model");
      assert.ok(other, `codex lists models: ${values.join(", ")}`);
      const prompt = (text: string) =>
        editor.agent.request("session/prompt", {
          sessionId: session.sessionId,
          prompt: [{ type: "text", text }],
        });
      await prompt("one");
      const modelOf = () =>
        (setup.model.lastRequest?.body as { model?: string } | undefined)?.model;
      assert.equal(modelOf(), "scripted-model");
      const changed = await editor.agent.request("session/set_config_option", {
        sessionId: session.sessionId,
        configId: "model",
        value: other,
      });
      assert.equal((changed.configOptions[0] as { currentValue?: string }).currentValue, other);
      await prompt("two");
      assert.equal(modelOf(), other, "the chosen model went with the next turn");
      await assert.rejects(
        editor.agent.request("session/set_config_option", {
          sessionId: session.sessionId,
          configId: "model",
          value: "no-such-model",
        }),
        (error: { code?: number }) => error.code === -32602,
      );
    });
  });

  it("without a login a session is auth_required; authenticate with the API key logs codex in", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "codex-harness-acp-auth-"));
    roots.push(root);
    // codex's own provider, which needs a login, and none in this CODEX_HOME.
    const home = path.join(root, "home");
    await mkdir(home);
    // Nothing that would reach the network offline (model discovery, update checks, analytics).
    await writeFile(
      path.join(home, "config.toml"),
      "check_for_update_on_startup = false\n[features]\nremote_models = false\nplugins = false\napi_key_model_discovery = false\n[analytics]\nenabled = false\n",
    );
    const env: NodeJS.ProcessEnv = { ...process.env, CODEX_HOME: home };
    delete env.OPENAI_API_KEY;
    delete env.CODEX_API_KEY;
    const noKey = startAcpAgent([], env);
    try {
      const editor = editorOf(noKey, allow("reject_once"));
      const init = await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      assert.deepEqual(
        init.authMethods?.map((method) => method.id),
        ["api-key", "chatgpt", "chatgpt-device-code"],
      );
      await assert.rejects(
        editor.agent.request("session/new", { cwd: root, mcpServers: [] }),
        (error: { code?: number }) => error.code === -32000,
      );
      await assert.rejects(
        editor.agent.request("authenticate", { methodId: "api-key" }),
        (error: { code?: number; message?: string }) =>
          error.code === -32602 && /CODEX_API_KEY/.test(String(error.message)),
      );
      assert.deepEqual(noKey.invalid, []);
    } finally {
      noKey.child.stdin.end();
      await noKey.closed;
    }
    const withKey = startAcpAgent([], { ...env, CODEX_API_KEY: "sk-test-not-real" });
    try {
      const editor = editorOf(withKey, allow("reject_once"));
      await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      await editor.agent.request("authenticate", { methodId: "api-key" });
      const { sessionId } = await editor.agent.request("session/new", {
        cwd: root,
        mcpServers: [],
      });
      assert.match(sessionId, /^[0-9a-f-]{36}$/);
      assert.deepEqual(withKey.invalid, []);
    } finally {
      withKey.child.stdin.end();
      await withKey.closed;
    }
  });

  it("--remote: the sessions run on a codex on another machine (a host on loopback)", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "codex-harness-acp-remote-"));
    roots.push(root);
    const model = await ScriptedModel.start({ responses: [reply("Hello from the host.")] });
    const home = path.join(root, "host-home");
    await model.writeCodexHome(home);
    const workspace = path.join(root, "workspace");
    await mkdir(workspace);
    const host = await startHost({ listen: "ws://127.0.0.1:0", codexHome: home });
    const agent = startAcpAgent(
      ["--remote", host.url, "--remote-token-file", host.secretFile as string],
      { ...process.env, CODEX_HOME: path.join(root, "no-such-home") },
    );
    try {
      const { editor, sessionId } = await openSession(agent, workspace, allow("reject_once"));
      const done = await promptOf(editor, sessionId)("Where are you?");
      assert.equal(done.stopReason, "end_turn");
      assert.equal(answerText(editor.updates), "Hello from the host.");
      assert.deepEqual(agent.invalid, []);
    } finally {
      agent.child.stdin.end();
      await agent.closed;
      await host.close();
      await model.close();
    }
  });
});
