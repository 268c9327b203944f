// Who answers what: a space's [[routing]] rules decide who may answer each request. Here a release
// script needs two people of group:release, and not alice, for whom the turn runs. Offline, from
// the repository's root: the runtime, the real codex app-server and a ScriptedModel.
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  ChannelsClient,
  type ChannelsError,
  Codex,
  channelsApprovals,
  checkRoutingRules,
  readRoutingRules,
} from "codex-harness";
import { startChannelsServer } from "codex-harness/channels";
import { execCommand, reply, ScriptedModel } from "codex-harness/testing";

const root = await mkdtemp(path.join(tmpdir(), "codex-harness-routing-"));
const workdir = path.join(root, "project");
await mkdir(workdir);
await writeFile(path.join(workdir, "release.sh"), '#!/bin/sh\necho "released $1" > released.txt\n');
await chmod(path.join(workdir, "release.sh"), 0o755);
const model = await ScriptedModel.start({
  responses: [execCommand("./release.sh 1.2.0", { escalated: true }), reply("Released 1.2.0.")],
});
await model.writeCodexHome(path.join(root, "home"));
const runtime = await startChannelsServer({ dataDir: path.join(root, "channels"), port: 0 });
const { url, people } = runtime;
if (!people) throw new Error("the built-in stores keep people");

// Who is who: what `codex-harness people add …` does.
await people.add({ id: "alice", name: "Alice", groups: ["release", "eng"] });
await people.add({ id: "bob", name: "Bob", groups: ["eng"] });
await people.add({ id: "carol", name: "Carol", groups: ["release"] });
await people.add({ id: "dave", name: "Dave", groups: ["release"] });
await people.add({ id: "erin", name: "Erin", groups: ["ops"] });
await people.add({ id: "ci", kind: "program" });
const client = async (id: string) =>
  new ChannelsClient({ url, token: (await people.issueToken(id, "read,answer")).token });

// The rules of a space's permissions.toml (runTurn reads its spaces' own), for alice's turn.
const approvals = channelsApprovals({
  url,
  token: (await people.issueToken("ci", "create,read,operate")).token,
  rules: readRoutingRules("examples/routing/permissions.toml"),
  startedBy: "alice",
});
await checkRoutingRules(approvals); // everyone they name is known: else it throws, naming the rule
const codex = new Codex({ codexHome: path.join(root, "home"), approvals, events: "extended" });

const watching = new AbortController();
const answering = (async () => {
  const carol = await client("carol");
  for await (const change of carol.events({ signal: watching.signal })) {
    if (change.type !== "approval_request") continue;
    const { id, title, routing } = change.interaction;
    console.log(
      `asked: ${title} (rule ${routing?.rule}: ${routing?.answer}, ${routing?.approvals} approvals)`,
    );
    for (const who of ["alice", "bob"]) {
      await (await client(who))
        .respond(id, { action: "accept" })
        .catch((error: ChannelsError) => console.log(`${who}: ${error.status} ${error.code}`));
    }
    const once = await carol.respond(id, { action: "accept" });
    console.log(`carol: ${once.approvals?.length} of ${once.routing?.approvals} approvals`);
    await (await client("dave")).respond(id, { action: "accept" });
  }
})().catch(() => undefined);

try {
  const thread = codex.startThread({ workingDirectory: workdir, skipGitRepoCheck: true });
  const { events } = await thread.runStreamed("Release 1.2.0");
  for await (const event of events) {
    if (event.type === "approval.resolved") console.log(`✓ ${event.reason}`);
    if (event.type === "item.completed" && event.item.type === "agent_message") {
      console.log(`codex: ${event.item.text}`);
    }
  }
  console.log((await readFile(path.join(workdir, "released.txt"), "utf8")).trim());
} finally {
  watching.abort();
  await answering;
  await codex.close();
  await runtime.close();
  await model.close();
  await rm(root, { recursive: true, force: true });
}
