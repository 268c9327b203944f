// Two agent-spaces turns of one session with runTurn: the space is installed as a codex home,
// the session gets its own home, and the second turn resumes the first turn's thread — offline, on
// the real codex app-server and a ScriptedModel.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type AgentEvent, runTurn } from "codex-harness";
import { execCommand, reply, ScriptedModel } from "codex-harness/testing";

const project = await mkdtemp(path.join(tmpdir(), "codex-harness-session-"));
const model = await ScriptedModel.start({
  responses: [execCommand("ls"), reply("The folder is empty."), reply("I said it was empty.")],
});
// A project with one space; its [codex.config] points codex at the ScriptedModel.
const providerConfig = model
  .configOverrides()
  .map((line) => line.replace(/^([^=]+)=/, '"$1" = '))
  .join("\n");
await mkdir(path.join(project, "spaces/app"), { recursive: true });
await mkdir(path.join(project, "work"));
await writeFile(
  path.join(project, "asp-targets.toml"),
  'schema = 1\n[targets.dev]\ncompose = ["space:path:./spaces/app"]\n',
);
await writeFile(
  path.join(project, "spaces/app/space.toml"),
  `schema = 1\nid = "app"\nversion = "1.0.0"\n[codex.config]\n${providerConfig}\n`,
);
await writeFile(path.join(project, "spaces/app/AGENTS.md"), "Be brief.");

const show = (event: AgentEvent) => {
  if (event.type === "tool_call") console.log(`#${event.seq} tool_call ${event.toolName}`);
  if (event.type === "message") console.log(`#${event.seq} ${event.role}: ${event.content}`);
  if (event.type === "complete") console.log(`#${event.seq} complete: ${event.result.success}`);
};
try {
  const request = {
    externalSessionId: "chat-42",
    aspHome: path.join(project, ".asp"),
    spec: { target: { targetName: "dev", targetDir: project } },
    harness: "codex",
    cwd: path.join(project, "work"),
    callbacks: { onEvent: show },
  };
  const first = await runTurn({ ...request, externalRunId: "run-1", prompt: "What is here?" });
  const second = await runTurn({ ...request, externalRunId: "run-2", prompt: "And before?" });
  console.log(`same thread: ${first.harnessSessionId === second.harnessSessionId}`);
  console.log(`final output: ${second.result.finalOutput}`);
} finally {
  await model.close();
  await rm(project, { recursive: true, force: true });
}
