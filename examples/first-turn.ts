// The README's example: one turn of the Codex / Thread API (@openai/codex-sdk's, over a long-lived
// codex app-server) — offline, the real codex against a ScriptedModel that writes a file, then answers.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Codex } from "codex-harness";
import { applyPatch, reply, ScriptedModel } from "codex-harness/testing";

const root = await mkdtemp(path.join(tmpdir(), "codex-harness-first-"));
const model = await ScriptedModel.start({
  responses: [applyPatch("*** Add File: hello.txt\n+hello"), reply("I wrote hello.txt.")],
});
await model.writeCodexHome(path.join(root, "home"), { sandbox_mode: "workspace-write" });

const codex = new Codex({ codexHome: path.join(root, "home") });
const thread = codex.startThread({ workingDirectory: root, skipGitRepoCheck: true });
const result = await thread.run("Write hello.txt");
console.log(result.finalResponse); // I wrote hello.txt.
console.log(await readFile(path.join(root, "hello.txt"), "utf8")); // hello
await codex.close();
await model.close();
await rm(root, { recursive: true, force: true });
