// Answers codex's approvals with a permissions.toml policy first and a "person" for the rest,
// offline on the real codex app-server and a ScriptedModel.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Codex, composeApprovals, fromPermissions } from "codex-harness";
import { execCommand, reply, ScriptedModel } from "codex-harness/testing";

const root = await mkdtemp(path.join(tmpdir(), "codex-harness-example-"));
const workdir = path.join(root, "project");
await mkdir(workdir, { recursive: true });
await writeFile(
  path.join(root, "permissions.toml"),
  '[exec]\ncommands = ["ls", "git"]\n\n[deny]\nexec = ["rm -rf *"]\n',
);
// The model asks for three commands outside the sandbox, then answers.
const model = await ScriptedModel.start({
  responses: [
    execCommand("ls", { escalated: true }),
    execCommand("rm -rf ./src", { escalated: true }),
    execCommand("curl https://example.com", { escalated: true }),
    reply("Done."),
  ],
});
await model.writeCodexHome(path.join(root, "home")); // read-only sandbox, approvals on request

const codex = new Codex({
  events: "extended", // approval.resolved events say who decided
  codexHome: path.join(root, "home"),
  approvals: composeApprovals(
    fromPermissions(path.join(root, "permissions.toml")), // decides what the file covers…
    { commandExecution: (request) => (request.script.includes("curl") ? "decline" : undefined) }, // …a "person" the rest
  ),
});
try {
  const { events } = await codex
    .startThread({ workingDirectory: workdir, skipGitRepoCheck: true })
    .runStreamed("Tidy up");
  const asked = new Map<string, string>();
  for await (const event of events) {
    if (event.type === "item.started" && event.item.type === "command_execution") {
      asked.set(event.item.id, event.item.command);
    }
    if (event.type === "approval.resolved") {
      console.log(`${asked.get(event.item_id ?? "")}: ${JSON.stringify(event.decision)}`);
    }
  }
} finally {
  await codex.close();
  await model.close();
  await rm(root, { recursive: true, force: true });
}
