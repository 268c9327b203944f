// codex on "another machine": the pinned codex app-server listening on WebSocket with a token (what
// `codex-harness host` starts), and a Codex in this program connected to it — offline, on loopback,
// with a ScriptedModel serving the host's codex.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Codex } from "codex-harness";
import { startHost } from "codex-harness/app-server";
import { reply, ScriptedModel } from "codex-harness/testing";

const root = await mkdtemp(path.join(tmpdir(), "codex-harness-remote-"));
const model = await ScriptedModel.start({ responses: [reply("Hello from the build box.")] });
await model.writeCodexHome(path.join(root, "host-home"));

// The machine that runs codex: any free port, a token written to <codex home>/app-server-token.
const host = await startHost({
  listen: "ws://127.0.0.1:0",
  codexHome: path.join(root, "host-home"),
});
console.log(`codex listens on ${host.url}`);

// This program: only the address and the token; paths are the host's.
const codex = new Codex({ remote: { url: host.url, tokenFile: host.secretFile } });
try {
  const thread = codex.startThread({ workingDirectory: root, skipGitRepoCheck: true });
  const result = await thread.run("Say hello");
  console.log(`codex: ${result.finalResponse}`);
} finally {
  await codex.close();
  await host.close();
  await model.close();
  await rm(root, { recursive: true, force: true });
}
