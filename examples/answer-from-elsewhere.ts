// A command approval answered through the channels runtime instead of by the process running the
// turn: the runtime, codex and the "person" (a ChannelsClient watching the runtime's events) meet
// over HTTP — offline, on the real codex app-server and a ScriptedModel.
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ChannelsClient, Codex, channelsApprovals } from "codex-harness";
import { startChannelsServer } from "codex-harness/channels";
import { execCommand, reply, ScriptedModel } from "codex-harness/testing";

const root = await mkdtemp(path.join(tmpdir(), "codex-harness-channels-"));
const workdir = path.join(root, "project");
await mkdir(workdir);
const model = await ScriptedModel.start({
  responses: [
    execCommand("echo shipped > release.txt", {
      escalated: true,
      justification: "Tag the release",
    }),
    reply("Released."),
  ],
});
await model.writeCodexHome(path.join(root, "home"));
// The runtime (what `codex-harness serve` runs), on any free port.
const runtime = await startChannelsServer({ dataDir: path.join(root, "channels"), port: 0 });
const { url, token } = runtime;

const codex = new Codex({
  codexHome: path.join(root, "home"),
  approvals: channelsApprovals({ url, token }),
});

// Somewhere else: a person's client answers what shows up. With the runtime's own token the answer
// is by "admin"; people get tokens of their own (see "Who may answer" in docs/channels.md).
const person = new ChannelsClient({ url, token });
const watching = new AbortController();
const answering = (async () => {
  for await (const change of person.events({ signal: watching.signal })) {
    if (change.type !== "approval_request") continue;
    console.log(`asked: ${change.interaction.title} (${change.interaction.payload.reason})`);
    await person.respond(change.interaction.id, { action: "accept", metadata: { via: "example" } });
  }
})().catch(() => undefined);

try {
  const result = await codex
    .startThread({ workingDirectory: workdir, skipGitRepoCheck: true })
    .run("Ship it");
  console.log(`codex: ${result.finalResponse}`);
  console.log(`release.txt: ${(await readFile(path.join(workdir, "release.txt"), "utf8")).trim()}`);
  const [answered] = await person.list({ status: ["resolved"] });
  console.log(`answered by ${answered?.response?.answeredBy}: ${answered?.response?.action}`);
} finally {
  watching.abort();
  await answering;
  await codex.close();
  await runtime.close();
  await model.close();
  await rm(root, { recursive: true, force: true });
}
