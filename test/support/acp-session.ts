// An ACP session as the agent tests open it: `codex-harness acp` on a fresh CODEX_HOME pointed at a
// ScriptedModel, an editor initialized on it, and a prompt helper.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type McpServer, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import type { ConfigObject } from "../../src/app-server/codex-config.js";
import type { ScriptStep } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { editorOf, startAcpAgent } from "./acp-editor.js";
import { repoRoot } from "./paths.js";

/**
 * A CODEX_HOME on a ScriptedModel playing `steps` (with `config` over the model's own), a
 * workspace, and the agent on them.
 */
export async function agentOn(steps: ScriptStep[], config?: ConfigObject) {
  const root = await mkdtemp(path.join(tmpdir(), "codex-harness-acp-"));
  const home = path.join(root, "home");
  const workspace = path.join(root, "workspace");
  await mkdir(workspace, { recursive: true });
  const model = await ScriptedModel.start({ responses: steps });
  await model.writeCodexHome(home, config);
  const agent = startAcpAgent([], { ...process.env, CODEX_HOME: home });
  return {
    model,
    home,
    workspace,
    agent,
    async close() {
      agent.child.stdin.end();
      await agent.closed;
      await model.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/**
 * Runs `body` on an agent on `steps` ({@link agentOn}); once it is done, every message the agent
 * sent must have fitted the ACP schema. The agent is closed whatever happens.
 */
export async function withAgent(
  steps: ScriptStep[],
  body: (setup: Awaited<ReturnType<typeof agentOn>>) => Promise<void>,
  config?: ConfigObject,
): Promise<void> {
  const setup = await agentOn(steps, config);
  try {
    await body(setup);
    assert.deepEqual(setup.agent.invalid, [], "every message the agent sent fits the ACP schema");
  } finally {
    await setup.close();
  }
}

/** An editor on `agent`, initialized, with a session in `cwd`. */
export async function openSession(
  agent: ReturnType<typeof startAcpAgent>,
  cwd: string,
  answer: Parameters<typeof editorOf>[1],
) {
  const editor = editorOf(agent, answer);
  await editor.agent.request("initialize", { protocolVersion: PROTOCOL_VERSION });
  const { sessionId } = await editor.agent.request("session/new", { cwd, mcpServers: [] });
  return { editor, sessionId };
}

/**
 * {@link withAgent} with an editor and a session in the workspace ({@link openSession}, permission
 * requests rejected), and a prompt helper for it.
 */
export function withSession(
  steps: ScriptStep[],
  body: (
    setup: Awaited<ReturnType<typeof agentOn>>,
    session: Awaited<ReturnType<typeof openSession>> & { prompt: ReturnType<typeof promptOf> },
  ) => Promise<void>,
  config?: ConfigObject,
): Promise<void> {
  return withAgent(
    steps,
    async (setup) => {
      const opened = await openSession(setup.agent, setup.workspace, allow("reject_once"));
      await body(setup, { ...opened, prompt: promptOf(opened.editor, opened.sessionId) });
    },
    config,
  );
}

/** Sends `session/prompt` with `text` to `sessionId`. */
export function promptOf(editor: ReturnType<typeof editorOf>, sessionId: string) {
  return (text: string) =>
    editor.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
}

export const allow = (optionId: string) => () => ({
  outcome: { outcome: "selected" as const, optionId },
});

/** The test MCP server (test/fixtures/mcp-notes-server.mjs) as an editor names it to the agent. */
export const NOTES_SERVER: McpServer = {
  name: "notes",
  command: process.execPath,
  args: [path.join(repoRoot, "test/fixtures/mcp-notes-server.mjs")],
  env: [],
};
