// `codex-harness acp` driven as an editor drives it (the ACP SDK's client side over stdio), on the
// real codex and a ScriptedModel; every message the agent sends checked against the ACP v1 schema.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { startHost } from "../../src/app-server/host.js";
import { ChannelsClient } from "../../src/channels/client.js";
import { startChannelsServer } from "../../src/channels/http-server.js";
import {
  applyPatch,
  execCommand,
  failure,
  reply,
  requestUserInput,
  response,
} from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { cleanTrees, spaceToml, tempTree } from "../fixtures/spaces/helpers.js";
import { answerText, editorOf, startAcpAgent } from "../support/acp-editor.js";
import { agentOn, allow, openSession, promptOf } from "../support/acp-session.js";
import { codexGone } from "../support/codex-processes.js";
import { eventually } from "../support/eventually.js";
import { repoRoot } from "../support/paths.js";
import { useScriptedModel } from "../support/target-home.js";

const roots: string[] = [];
after(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
  cleanTrees();
});

describe("codex-harness acp (real codex, ScriptedModel)", () => {
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
      const usage = editor.updates.map((n) => n.update).at(-1);
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

  it("asks the editor about a command: allowed it runs, rejected it does not", async () => {
    const setup = await agentOn([
      execCommand("echo allowed > allowed.txt", { escalated: true, callId: "call_yes" }),
      execCommand("echo rejected > rejected.txt", { escalated: true, callId: "call_no" }),
      reply("Done."),
    ]);
    try {
      const editor = editorOf(setup.agent, (request) =>
        allow(request.toolCall.title?.includes("allowed") ? "allow_once" : "reject_once")(),
      );
      await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      const { sessionId } = await editor.agent.request("session/new", {
        cwd: setup.workspace,
        mcpServers: [],
      });
      const done = await promptOf(editor, sessionId)("Write the files");
      assert.equal(done.stopReason, "end_turn");
      assert.equal(editor.asked.length, 2);
      const [first] = editor.asked;
      assert.equal(first?.sessionId, sessionId);
      assert.equal(first?.toolCall.kind, "execute");
      assert.deepEqual(
        first?.options.map((option) => option.kind),
        ["allow_once", "allow_always", "reject_once"],
      );
      assert.ok(existsSync(path.join(setup.workspace, "allowed.txt")), "the allowed command ran");
      assert.ok(
        !existsSync(path.join(setup.workspace, "rejected.txt")),
        "the rejected one did not",
      );
      const calls = editor.updates
        .map((n) => n.update)
        .filter((u) => u.sessionUpdate === "tool_call");
      assert.equal(calls.length, 2, JSON.stringify(calls));
      const ends = editor.updates
        .map((n) => n.update)
        .filter((u) => u.sessionUpdate === "tool_call_update")
        .map((u) => ("status" in u ? u.status : undefined));
      assert.deepEqual(ends, ["completed", "failed"]);
      assert.deepEqual(setup.agent.invalid, []);
    } finally {
      await setup.close();
    }
  });

  it("session/cancel interrupts the turn at codex: the prompt answers cancelled, quickly", async () => {
    const setup = await agentOn([response([reply("Too late.")], { delayMs: 60_000 })]);
    try {
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
      assert.deepEqual(setup.agent.invalid, []);
    } finally {
      await setup.close();
    }
  });

  it("session/cancel mid-command and mid-question: cancelled, and neither command runs later", async () => {
    const setup = await agentOn([
      execCommand("sleep 2; echo late > running.txt"),
      execCommand("echo asked > asked.txt", { escalated: true }),
    ]);
    try {
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
      assert.deepEqual(setup.agent.invalid, []);
    } finally {
      await setup.close();
    }
  });

  it("shows a file change as a diff, asks, and applies it when allowed", async () => {
    const setup = await agentOn([
      applyPatch("*** Add File: notes.md\n+# Notes\n+kept here"),
      reply("Wrote notes.md."),
    ]);
    try {
      const { editor, sessionId } = await openSession(
        setup.agent,
        setup.workspace,
        allow("allow_once"),
      );
      const done = await promptOf(editor, sessionId)("Write notes");
      assert.equal(done.stopReason, "end_turn");
      const [asked] = editor.asked;
      assert.equal(asked?.toolCall.kind, "edit");
      const diff = asked?.toolCall.content?.find((content) => content.type === "diff");
      assert.ok(diff && diff.type === "diff", JSON.stringify(asked));
      assert.equal(diff.path, path.join(setup.workspace, "notes.md"));
      assert.match(diff.newText, /# Notes\nkept here/);
      assert.equal(
        readFileSync(path.join(setup.workspace, "notes.md"), "utf8"),
        "# Notes\nkept here\n",
      );
      assert.deepEqual(setup.agent.invalid, []);
    } finally {
      await setup.close();
    }
  });

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

  it("--target: the space's permissions.toml decides first, nobody asked; the rest is asked", async () => {
    const dir = tempTree({
      "asp-targets.toml": 'schema = 1\n[targets.dev]\ncompose = ["space:path:./spaces/app"]\n',
      "spaces/app/space.toml": spaceToml("app"),
      "spaces/app/AGENTS.md": "Use the word pineapple.",
      "spaces/app/permissions.toml": '[exec]\ncommands = ["touch"]\n[deny]\nexec = ["git push"]\n',
      "user-codex-home/.keep": "",
      "work/.keep": "",
    });
    const model = await ScriptedModel.start({
      responses: [
        execCommand("touch allowed.txt", { escalated: true, callId: "touch" }),
        execCommand("git push origin main", { escalated: true, callId: "push" }),
        execCommand("mkdir asked", { escalated: true, callId: "mkdir" }),
        reply("Done."),
      ],
    });
    await useScriptedModel(dir, model);
    const agent = startAcpAgent(["--target", "dev", "--project", dir], {
      ...process.env,
      CODEX_HOME: path.join(dir, "user-codex-home"),
    });
    try {
      const editor = editorOf(agent, allow("reject_once"));
      await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      const work = path.join(dir, "work");
      const { sessionId } = await editor.agent.request("session/new", {
        cwd: work,
        mcpServers: [],
      });
      const done = await promptOf(editor, sessionId)("Go");
      assert.equal(done.stopReason, "end_turn");
      assert.deepEqual(
        editor.asked.map((request) => request.toolCall.title),
        ["mkdir asked"],
        "only what no rule decides reaches the editor",
      );
      assert.ok(existsSync(path.join(work, "allowed.txt")), "touch ran, allowed by the rules");
      assert.ok(!existsSync(path.join(work, "asked")), "mkdir was rejected in the editor");
      assert.ok(
        JSON.stringify(model.modelRequests[0]?.body).includes("Use the word pineapple."),
        "the space's instructions reached codex",
      );
      assert.deepEqual(agent.invalid, []);
    } finally {
      agent.child.stdin.end();
      await agent.closed;
      await model.close();
    }
  });

  it("modes: full access runs without asking; back to read only, codex asks again", async () => {
    const setup = await agentOn([
      // Not asking for more: in full access nothing sandboxes the write.
      execCommand("echo free > free.txt"),
      reply("Ran it."),
      execCommand("echo asked > asked.txt", { escalated: true }),
      reply("Asked."),
    ]);
    try {
      const editor = editorOf(setup.agent, allow("reject_once"));
      await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      const session = await editor.agent.request("session/new", {
        cwd: setup.workspace,
        mcpServers: [],
      });
      assert.equal(session.modes?.currentModeId, "configured");
      assert.deepEqual(
        session.modes?.availableModes.map((mode) => mode.id),
        ["configured", "read-only", "agent", "full-access"],
      );
      const { sessionId } = session;
      await editor.agent.request("session/set_mode", { sessionId, modeId: "full-access" });
      assert.ok(
        editor.updates.some(
          (n) =>
            n.update.sessionUpdate === "current_mode_update" &&
            n.update.currentModeId === "full-access",
        ),
      );
      const prompt = promptOf(editor, sessionId);
      assert.equal((await prompt("Run it")).stopReason, "end_turn");
      assert.equal(editor.asked.length, 0, "full access asks nothing");
      assert.ok(existsSync(path.join(setup.workspace, "free.txt")));
      await editor.agent.request("session/set_mode", { sessionId, modeId: "read-only" });
      assert.equal((await prompt("Again")).stopReason, "end_turn");
      assert.equal(editor.asked.length, 1, "read only asks");
      assert.ok(!existsSync(path.join(setup.workspace, "asked.txt")), "and it was rejected");
      await assert.rejects(
        editor.agent.request("session/set_mode", { sessionId, modeId: "yolo" }),
        (error: { code?: number; message?: string }) => {
          assert.equal(error.code, -32602);
          assert.match(String(error.message), /configured, read-only, agent, full-access/);
          return true;
        },
      );
      assert.deepEqual(setup.agent.invalid, []);
    } finally {
      await setup.close();
    }
  });

  it("session/list shows codex's saved threads; session/close ends a session here", async () => {
    const setup = await agentOn([reply("Listed.")]);
    try {
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
      assert.deepEqual(setup.agent.invalid, []);
    } finally {
      await setup.close();
    }
  });

  it("--channels: answered in the inbox while the editor stays silent; --away-after moves it there", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "codex-harness-acp-channels-"));
    roots.push(root);
    const server = await startChannelsServer({ dataDir: path.join(root, "data"), port: 0 });
    const model = await ScriptedModel.start({
      responses: [
        execCommand("echo from-inbox > inbox.txt", { escalated: true }),
        reply("Done."),
        execCommand("echo away > away.txt", { escalated: true }),
        reply("Done again."),
      ],
    });
    const home = path.join(root, "home");
    await model.writeCodexHome(home);
    const workspace = path.join(root, "workspace");
    await mkdir(workspace);
    const start = (...more: string[]) =>
      startAcpAgent(
        ["--channels", server.url, "--channels-token-file", server.tokenFile, ...more],
        { ...process.env, CODEX_HOME: home, CODEX_HARNESS_TOKEN: "" },
      );
    const person = new ChannelsClient({ url: server.url, token: server.token });
    const acceptInInbox = async () => {
      const asked = await eventually(
        "the request in the inbox",
        async () => (await person.list({ status: ["pending", "delivered"] }))[0],
      );
      assert.equal(asked.source.name, "codex-harness acp");
      await person.respond(asked.id, { action: "accept", metadata: { answeredBy: "alice" } });
      return asked;
    };
    // The editor never answers: the person is at their phone.
    const silent = () => new Promise<never>(() => undefined);
    try {
      const both = start();
      try {
        const editor = editorOf(both, silent);
        await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
        const { sessionId } = await editor.agent.request("session/new", {
          cwd: workspace,
          mcpServers: [],
        });
        const prompt = promptOf(editor, sessionId)("Write it");
        await acceptInInbox();
        assert.equal((await prompt).stopReason, "end_turn");
        assert.equal(editor.asked.length, 1, "the editor was asked too");
        assert.ok(
          both.sent.some((message) => message.method === "$/cancel_request"),
          "and told it was answered elsewhere",
        );
        assert.equal(readFileSync(path.join(workspace, "inbox.txt"), "utf8"), "from-inbox\n");
        assert.deepEqual(both.invalid, []);
      } finally {
        both.child.stdin.end();
        await both.closed;
      }
      const away = start("--away-after", "1");
      try {
        const editor = editorOf(away, silent);
        await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
        const { sessionId } = await editor.agent.request("session/new", {
          cwd: workspace,
          mcpServers: [],
        });
        const prompt = promptOf(editor, sessionId)("Again");
        await eventually("the editor asked first", async () => editor.asked[0]);
        const editorAsked = Date.now();
        assert.deepEqual(
          await person.list({ status: ["pending", "delivered"] }),
          [],
          "channels wait while the editor may answer",
        );
        const asked = await acceptInInbox();
        const waited = Date.parse(asked.createdAt) - editorAsked;
        assert.ok(waited >= 700, `channels were asked ${waited} ms after the editor`);
        assert.equal((await prompt).stopReason, "end_turn");
        assert.ok(existsSync(path.join(workspace, "away.txt")));
        assert.deepEqual(away.invalid, []);
      } finally {
        away.child.stdin.end();
        await away.closed;
      }
    } finally {
      await model.close();
      await server.close();
    }
  });

  it("the editor's MCP server reaches codex for that session: its tool is offered to the model", async () => {
    const setup = await agentOn([reply("I can read the notes.")]);
    try {
      const editor = editorOf(setup.agent, allow("reject_once"));
      await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      const { sessionId } = await editor.agent.request("session/new", {
        cwd: setup.workspace,
        mcpServers: [
          {
            name: "notes",
            command: process.execPath,
            args: [path.join(repoRoot, "test/fixtures/mcp-notes-server.mjs")],
            env: [],
          },
        ],
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
      assert.deepEqual(setup.agent.invalid, []);
    } finally {
      await setup.close();
    }
  });

  it("models: the session's model is a config option from codex's list; a choice reaches the next turn", async () => {
    const setup = await agentOn([reply("First."), reply("Second.")]);
    try {
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
      assert.deepEqual(setup.agent.invalid, []);
    } finally {
      await setup.close();
    }
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

  it("a question with options is asked as a choice; the chosen option is codex's answer", async () => {
    const setup = await agentOn([
      requestUserInput(
        [
          {
            id: "db",
            header: "Database",
            question: "Which one?",
            options: [
              { label: "Postgres", description: "a server" },
              { label: "SQLite", description: "a file" },
            ],
          },
        ],
        { callId: "q1" },
      ),
      reply("Using SQLite."),
    ]);
    try {
      const { editor, sessionId } = await openSession(
        setup.agent,
        setup.workspace,
        allow("option-1"),
      );
      const done = await promptOf(editor, sessionId)("Pick a database");
      assert.equal(done.stopReason, "end_turn");
      const [asked] = editor.asked;
      assert.equal(asked?.toolCall.title, "Database");
      assert.deepEqual(
        asked?.options.map((option) => [option.name, option.kind]),
        [
          ["Postgres", "allow_once"],
          ["SQLite", "allow_once"],
          ["Don't answer", "reject_once"],
        ],
      );
      assert.match(setup.model.toolOutput("q1")?.output ?? "", /SQLite/);
      assert.deepEqual(setup.agent.invalid, []);
    } finally {
      await setup.close();
    }
  });

  it("an image in the prompt reaches the model as an image", async () => {
    const setup = await agentOn([reply("A single pixel.")]);
    try {
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
      assert.deepEqual(setup.agent.invalid, []);
    } finally {
      await setup.close();
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

  it("a plain ndjson client: every stdout line is JSON-RPC; a broken line is a parse error", async () => {
    const setup = await agentOn([reply("Plain.")]);
    try {
      const lines: Record<string, unknown>[] = [];
      let pending = "";
      setup.agent.child.stdout.on("data", (chunk: Buffer) => {
        pending += chunk.toString("utf8");
        const parts = pending.split("\n");
        pending = parts.pop() ?? "";
        for (const part of parts) lines.push(JSON.parse(part) as Record<string, unknown>);
      });
      const send = (message: object | string) =>
        setup.agent.child.stdin.write(
          `${typeof message === "string" ? message : JSON.stringify({ jsonrpc: "2.0", ...message })}\n`,
        );
      const answer = (id: number) =>
        eventually(`the answer to ${id}`, async () => lines.find((line) => line.id === id));
      send({ id: 1, method: "initialize", params: { protocolVersion: 1 } });
      assert.ok((await answer(1)).result);
      send("{ not json");
      const parseError = await eventually("the parse error", async () =>
        lines.find((line) => (line.error as { code?: number } | undefined)?.code === -32700),
      );
      assert.equal(parseError.id, null);
      send({ id: 2, method: "session/new", params: { cwd: setup.workspace, mcpServers: [] } });
      const sessionId = ((await answer(2)).result as { sessionId: string }).sessionId;
      send({
        id: 3,
        method: "session/prompt",
        params: { sessionId, prompt: [{ type: "text", text: "hi" }] },
      });
      assert.deepEqual((await answer(3)).result, { stopReason: "end_turn" });
      assert.ok(
        lines.every((line) => line.jsonrpc === "2.0"),
        "stdout is the protocol only",
      );
      assert.ok(lines.some((line) => line.method === "session/update"));
    } finally {
      await setup.close();
    }
  });

  it("a failed turn is a JSON-RPC error with codex's message; a full context window is max_tokens; a policy refusal is refusal", async () => {
    const setup = await agentOn([
      failure("the model broke down"),
      failure("Your input exceeds the context window of this model.", {
        code: "context_length_exceeded",
      }),
      failure("This request has been flagged for potentially high-risk cyber activity.", {
        code: "cyber_policy",
      }),
    ]);
    try {
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
      assert.deepEqual(setup.agent.invalid, []);
    } finally {
      await setup.close();
    }
  });

  it("malformed input gets a JSON-RPC error naming the problem; an unknown method -32601", async () => {
    const setup = await agentOn([]);
    try {
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
      assert.deepEqual(setup.agent.invalid, []);
    } finally {
      await setup.close();
    }
  });
});
