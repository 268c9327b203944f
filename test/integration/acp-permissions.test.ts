// `codex-harness acp`'s permission requests, driven as an editor drives them (real codex,
// ScriptedModel): commands, file changes, permissions, MCP tool calls and questions asked of the
// editor, a target's
// permissions.toml deciding first, modes, and channels answering for a person away.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { ChannelsClient } from "../../src/channels/client.js";
import { startChannelsServer } from "../../src/channels/http-server.js";
import {
  applyPatch,
  execCommand,
  functionCall,
  mcpToolCall,
  reply,
  requestUserInput,
} from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { cleanTrees, spaceToml, tempTree } from "../fixtures/spaces/helpers.js";
import { editorOf, startAcpAgent } from "../support/acp-editor.js";
import {
  agentOn,
  allow,
  NOTES_SERVER,
  openSession,
  promptOf,
  withAgent,
} from "../support/acp-session.js";
import { eventually } from "../support/eventually.js";
import { useScriptedModel } from "../support/target-home.js";

const roots: string[] = [];
after(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
  cleanTrees();
});

/** What codex asks in the question tests: a choice of two. */
const DATABASE_QUESTION = {
  id: "db",
  header: "Database",
  question: "Which one?",
  options: [
    { label: "Postgres", description: "a server" },
    { label: "SQLite", description: "a file" },
  ],
};

describe("codex-harness acp: permissions (real codex, ScriptedModel)", () => {
  it("asks the editor about a command: allowed it runs, rejected it does not", async () => {
    await withAgent(
      [
        execCommand("echo allowed > allowed.txt", { escalated: true, callId: "call_yes" }),
        execCommand("echo rejected > rejected.txt", { escalated: true, callId: "call_no" }),
        reply("Done."),
      ],
      async (setup) => {
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
          .map((u) => ("status" in u ? u.status : undefined))
          // A call asked about before codex started it is updated as it starts.
          .filter((status) => status !== "in_progress");
        assert.deepEqual(ends, ["completed", "failed"]);
      },
    );
  });

  it("shows a file change as a diff, asks, and applies it when allowed", async () => {
    await withAgent(
      [applyPatch("*** Add File: notes.md\n+# Notes\n+kept here"), reply("Wrote notes.md.")],
      async (setup) => {
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
      },
    );
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
      const work = path.join(dir, "work");
      const { editor, sessionId } = await openSession(agent, work, allow("reject_once"));
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
    await withAgent(
      [
        // Not asking for more: in full access nothing sandboxes the write.
        execCommand("echo free > free.txt"),
        reply("Ran it."),
        execCommand("echo asked > asked.txt", { escalated: true }),
        reply("Asked."),
      ],
      async (setup) => {
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
      },
    );
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
    await server.people?.add({ id: "alice", name: "Alice" });
    const alice = await server.people?.issueToken("alice", "read,answer");
    assert.ok(alice);
    const person = new ChannelsClient({ url: server.url, token: alice.token });
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
          editor.updates.some(
            ({ update }) =>
              update.sessionUpdate === "agent_thought_chunk" &&
              update.content.type === "text" &&
              update.content.text === "Approved by Alice in the channels runtime.\n",
          ),
          "the editor is told who answered",
        );
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

  it("more sandbox permissions and an MCP tool codex asks about are asked in the editor", async () => {
    const setup = await agentOn(
      [
        functionCall(
          "request_permissions",
          { reason: "to fetch the dependencies", permissions: { network: { enabled: true } } },
          { callId: "call_permissions" },
        ),
        mcpToolCall("notes", "erase_notes", {}, { callId: "call_erase_yes" }),
        mcpToolCall("notes", "erase_notes", {}, { callId: "call_erase_no" }),
        reply("Done."),
      ],
      { features: { request_permissions_tool: true } },
    );
    try {
      let erases = 0;
      const editor = editorOf(setup.agent, (request) => {
        if (request.toolCall.title?.startsWith("Permissions")) return allow("allow_always")();
        return allow(erases++ === 0 ? "allow_once" : "reject_once")();
      });
      await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
      const { sessionId } = await editor.agent.request("session/new", {
        cwd: setup.workspace,
        mcpServers: [NOTES_SERVER],
      });
      assert.equal((await promptOf(editor, sessionId)("Clean up")).stopReason, "end_turn");
      const [permissions, erase] = editor.asked;
      assert.equal(
        editor.asked.length,
        3,
        JSON.stringify(editor.asked.map((a) => a.toolCall.title)),
      );
      assert.equal(permissions?.toolCall.title, "Permissions: network access");
      assert.match(JSON.stringify(permissions?.toolCall.content), /to fetch the dependencies/);
      assert.deepEqual(
        permissions?.options.map((option) => option.kind),
        ["allow_once", "allow_always", "reject_once"],
      );
      assert.equal(erase?.toolCall.title, "notes/erase_notes");
      assert.match(JSON.stringify(erase?.toolCall.content), /run tool \\"erase_notes\\"/);
      const outputs = new Map(
        setup.model.toolOutputs().map((output) => [output.callId, output.output]),
      );
      // Allowed always: all that was asked, for the session.
      assert.deepEqual(JSON.parse(outputs.get("call_permissions") ?? "{}"), {
        permissions: { network: { enabled: true }, file_system: null },
        scope: "session",
      });
      assert.match(outputs.get("call_erase_yes") ?? "", /erased/, "allowed, the tool ran");
      assert.doesNotMatch(outputs.get("call_erase_no") ?? "", /erased/, "rejected, it did not");
      assert.deepEqual(setup.agent.invalid, []);
    } finally {
      await setup.close();
    }
  });

  it("a question with options is asked as a choice; the chosen option is codex's answer", async () => {
    await withAgent(
      [requestUserInput([DATABASE_QUESTION], { callId: "q1" }), reply("Using SQLite.")],
      async (setup) => {
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
      },
    );
  });

  it("an editor that renders forms gets questions (Other typed in) and MCP forms as forms; one that does not, none", async () => {
    const steps = () => [
      requestUserInput([DATABASE_QUESTION], { callId: "q_db" }),
      mcpToolCall("notes", "sign_notes", {}, { callId: "call_sign" }),
      reply("Signed."),
    ];
    for (const rendersForms of [true, false]) {
      await withAgent(steps(), async (setup) => {
        // Picks "Other" and types DuckDB; signs as Ada.
        const typed: Record<string, string> = { db: "Other", db__other: "DuckDB", name: "Ada" };
        const editor = editorOf(setup.agent, allow("reject_once"), (form) => ({
          action: "accept",
          content: Object.fromEntries(
            Object.keys(form.requestedSchema.properties).map((key) => [key, typed[key] ?? ""]),
          ),
        }));
        await editor.agent.request("initialize", {
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: rendersForms ? { elicitation: { form: {} } } : {},
        });
        const { sessionId } = await editor.agent.request("session/new", {
          cwd: setup.workspace,
          mcpServers: [NOTES_SERVER],
        });
        assert.equal((await promptOf(editor, sessionId)("Sign the notes")).stopReason, "end_turn");
        const question = setup.model.toolOutput("q_db")?.output ?? "";
        const signed = setup.model.toolOutput("call_sign")?.output ?? "";
        if (rendersForms) {
          const [asked, mcpForm] = editor.forms;
          assert.equal(editor.forms.length, 2);
          assert.equal(asked?.sessionId, sessionId);
          assert.deepEqual(asked?.requestedSchema.properties.db?.enum, [
            "Postgres",
            "SQLite",
            "Other",
          ]);
          assert.ok(asked?.requestedSchema.properties.db__other, "a field to type Other in");
          assert.deepEqual(asked?.requestedSchema.required, ["db"]);
          assert.equal(mcpForm?.message, "Who signs the notes?");
          assert.equal(mcpForm?.requestedSchema.properties.name?.title, "Your name");
          assert.match(question, /DuckDB/, "the typed answer reached codex");
          assert.match(signed, /"action":"accept","content":\{"name":"Ada"\}/);
        } else {
          assert.deepEqual(editor.forms, [], "no form sent to an editor that renders none");
          assert.equal(editor.asked.length, 1, "the question asked as a choice instead");
          assert.doesNotMatch(question, /DuckDB|SQLite|Postgres/, "and declined (rejected)");
          assert.match(signed, /"action":"decline"/, "declined, fail closed");
        }
      });
    }
  });
});
