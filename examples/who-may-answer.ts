// Who may answer: people and programs get tokens of their own, with scopes. A program asks, a
// person who may only read is refused, a person who may answer does — and the runtime records who
// she is, not the name her client wrote. Offline: the runtime alone, on a free port.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ChannelsClient, ChannelsError } from "codex-harness";
import { startChannelsServer } from "codex-harness/channels";

const root = await mkdtemp(path.join(tmpdir(), "codex-harness-people-"));
const runtime = await startChannelsServer({ dataDir: root, port: 0 });
const { url, people } = runtime;
if (!people) throw new Error("the built-in stores keep people");

try {
  // What `codex-harness people add …` and `codex-harness people token …` do.
  await people.add({ id: "deploy-bot", kind: "program" });
  await people.add({ id: "alice", name: "Alice", groups: ["release"] });
  await people.add({ id: "bob", name: "Bob" });
  const bot = await people.issueToken("deploy-bot", "create,read");
  const alice = await people.issueToken("alice", "read,answer");
  const bob = await people.issueToken("bob", "read");

  const asked = await new ChannelsClient({ url, token: bot.token }).create({
    kind: "approval_request",
    source: { name: "deploy-bot" },
    payload: { command: "npm publish", reason: "release 1.2.0" },
  });
  console.log(`asked: ${asked.title}`);

  try {
    await new ChannelsClient({ url, token: bob.token }).respond(asked.id, { action: "accept" });
  } catch (error) {
    if (!(error instanceof ChannelsError)) throw error;
    console.log(`bob: ${error.status} ${error.code}`);
  }

  const asAlice = new ChannelsClient({ url, token: alice.token });
  const answered = await asAlice.respond(asked.id, {
    action: "accept",
    metadata: { answeredBy: "mallory" }, // a claim: kept, never trusted
  });
  const { response } = answered;
  console.log(`answered by ${response?.answeredBy} (claimed: ${response?.metadata?.claimedBy})`);

  // What `codex-harness people revoke <token-id>` does: refused from the next request on.
  await people.revoke(alice.record.id);
  await asAlice.list().catch((error: ChannelsError) => console.log(`revoked: ${error.status}`));
} finally {
  await runtime.close();
  await rm(root, { recursive: true, force: true });
}
