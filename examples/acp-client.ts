// A small editor: the client side of the Agent Client Protocol (@agentclientprotocol/sdk 2.x) driving
// `codex-harness acp` on its stdio — offline, the real codex against a ScriptedModel that asks to
// run a command, then answers.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { execCommand, reply, ScriptedModel } from "codex-harness/testing";

const root = await mkdtemp(path.join(tmpdir(), "codex-harness-acp-client-"));
const model = await ScriptedModel.start({
  responses: [
    execCommand("echo hello > hello.txt", { escalated: true, justification: "Create hello.txt" }),
    reply("I wrote hello.txt."),
  ],
});
await model.writeCodexHome(path.join(root, "home"));

// The agent: `codex-harness acp`, as an editor starts it (here, this package's own bin).
const packageJson = createRequire(import.meta.url).resolve("codex-harness/package.json");
const bin = path.join(path.dirname(packageJson), "bin", "codex-harness.js");
const agent = spawn(process.execPath, [bin, "acp", "--codex-home", path.join(root, "home")], {
  stdio: ["pipe", "pipe", "inherit"],
});

// The editor's side: what it shows, and how it answers the agent's questions.
const editor = acp
  .client({ name: "tiny-editor" })
  .onNotification("session/update", async ({ params }) => {
    const { update } = params;
    if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
      // codex's warnings come as notices of their own, marked so: not the model's words.
      const notice = (update._meta?.codexHarness as { notice?: boolean } | undefined)?.notice;
      if (notice) console.error(update.content.text.trim());
      else process.stdout.write(update.content.text);
    } else if (update.sessionUpdate === "tool_call") {
      console.log(`[tool] ${update.title}`);
    }
  })
  .onRequest("session/request_permission", async ({ params }) => {
    console.log(`[asked] ${params.toolCall.title ?? "a tool call"}`);
    const allow = params.options.find((option) => option.kind === "allow_once");
    return allow
      ? { outcome: { outcome: "selected", optionId: allow.optionId } }
      : { outcome: { outcome: "cancelled" } };
  });
const connection = editor.connect(
  acp.ndJsonStream(
    Writable.toWeb(agent.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(agent.stdout) as ReadableStream<Uint8Array>,
  ),
);

try {
  const init = await connection.agent.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  console.log(`agent: ${init.agentInfo?.name} ${init.agentInfo?.version}`);
  const { sessionId } = await connection.agent.request("session/new", {
    cwd: root,
    mcpServers: [],
  });
  const { stopReason } = await connection.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "Write hello.txt" }],
  });
  console.log(`\nstop: ${stopReason}`);
  console.log(`hello.txt: ${(await readFile(path.join(root, "hello.txt"), "utf8")).trim()}`);
} finally {
  // Closing stdin ends the agent, and codex with it.
  agent.stdin.end();
  await new Promise((resolve) => agent.once("close", resolve));
  await model.close();
  await rm(root, { recursive: true, force: true });
}
