// Runs two turns on one thread with the Codex / Thread API — the @openai/codex-sdk API plus
// streamed deltas — offline, on the real codex app-server and a ScriptedModel.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Codex } from "codex-harness";
import { applyPatch, reply, ScriptedModel } from "codex-harness/testing";

const root = await mkdtemp(path.join(tmpdir(), "codex-harness-example-"));
const workdir = path.join(root, "project");
await mkdir(workdir, { recursive: true });
const model = await ScriptedModel.start({
  responses: [
    applyPatch("*** Add File: notes.md\n+# Notes"),
    reply("I added notes.md."),
    reply("It has one heading."),
  ],
});
await model.writeCodexHome(path.join(root, "home"), {
  sandbox_mode: "workspace-write",
  approval_policy: "never",
});

// `events: "extended"`: deltas, approvals, turn ids and status (the default is the official events).
const codex = new Codex({ events: "extended", codexHome: path.join(root, "home") });
try {
  const thread = codex.startThread({ workingDirectory: workdir, skipGitRepoCheck: true }); // not a git repo

  // Stream a turn: official events plus item.delta, turn.diff.updated, …
  const { events } = await thread.runStreamed("Add a notes file");
  for await (const event of events) {
    if (event.type === "item.delta" && event.stream === "agent_message")
      process.stdout.write(event.delta);
    if (event.type === "item.completed" && event.item.type === "file_change") {
      console.log(
        `changed: ${event.item.changes.map((c) => `${c.kind} ${path.basename(c.path)}`).join(", ")}`,
      );
    }
    if (event.type === "turn.completed") console.log(`\n${event.usage.input_tokens} input tokens`);
  }

  // Or run it to the end: { items, finalResponse, usage } plus id, status, diff, plan, error.
  const result = await thread.run("What is in it?");
  console.log(
    `${result.status}: ${result.finalResponse} (thread ${thread.id === null ? "?" : "ok"})`,
  );
} finally {
  await codex.close();
  await model.close();
  await rm(root, { recursive: true, force: true });
}
