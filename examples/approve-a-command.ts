// Runs one Codex turn offline — the real codex app-server against a ScriptedModel — streaming the
// reply and answering the command approval it asks for.
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { AppServerClient } from "codex-harness/app-server";
import { execCommand, reply, ScriptedModel } from "codex-harness/testing";

const root = await mkdtemp(path.join(tmpdir(), "codex-harness-example-"));
const codexHome = path.join(root, "codex-home");
const workdir = path.join(root, "project");
await mkdir(workdir, { recursive: true });

// The "model": first it asks to run a command outside the sandbox, then it answers.
const model = await ScriptedModel.start({
  responses: [
    execCommand("echo hello > hello.txt", { escalated: true, justification: "Create hello.txt" }),
    reply("I created hello.txt for you."),
  ],
});
await model.writeCodexHome(codexHome); // config.toml pointing codex at the scripted model

const codex = await AppServerClient.start({ codexHome, cwd: workdir });
try {
  codex.setRequestHandler("item/commandExecution/requestApproval", (request) => {
    console.log(`approval asked: ${request.command} (${request.reason})`);
    return { decision: "accept" };
  });
  codex.onNotification("item/agentMessage/delta", ({ delta }) => process.stdout.write(delta));
  const turnDone = new Promise<string>((resolve) =>
    codex.onNotification("turn/completed", ({ turn }) => resolve(turn.status)),
  );

  const { thread } = await codex.request("thread/start", { cwd: workdir });
  await codex.request("turn/start", {
    threadId: thread.id,
    input: [{ type: "text", text: "Create hello.txt", text_elements: [] }],
  });
  console.log(`\nturn ${await turnDone}`);
  console.log(`hello.txt: ${(await readFile(path.join(workdir, "hello.txt"), "utf8")).trim()}`);
} finally {
  await codex.close();
  await model.close();
  await rm(root, { recursive: true, force: true });
}
