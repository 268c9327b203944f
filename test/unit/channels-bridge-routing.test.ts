// The channels bridge routes each request by rules: the first rule that governs it gives its
// interaction's routing (with who the turn runs for), others get the static routing or none; the
// runtime's refusals and "no one allowed" decline with a reason. On a real runtime (port 0).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { routedApprovals, routingHooksOf } from "../../src/approvals/routed.js";
import type { RoutingRule } from "../../src/approvals/routing-rules.js";
import { channelsApprovals } from "../../src/channels/bridge.js";
import { ChannelsClient } from "../../src/channels/client.js";
import { ChannelsError } from "../../src/channels/errors.js";
import { startChannelsServer } from "../../src/channels/http-server.js";
import type { Interaction } from "../../src/channels/interaction-types.js";
import type { People } from "../../src/channels/people.js";
import type { Approvals, CommandExecutionRequest } from "../../src/events/approval-types.js";
import { channelsTestDirs } from "../support/channels-dirs.js";
import { eventually } from "../support/eventually.js";
import { commandRequest } from "../support/routing-fixtures.js";

const { dataDir, servers } = channelsTestDirs("channels-bridge-routing-test-");

const publish: RoutingRule = {
  name: "publish",
  origin: "spaces/release/permissions.toml:3",
  exec: ["npm publish"],
  answer: ["group:release"],
};

let ids = 0;
const command = (text: string): CommandExecutionRequest => {
  ids += 1;
  return commandRequest(text, {
    request_id: ids,
    thread_id: "thread",
    turn_id: "turn",
    item_id: `item-${ids}`,
  });
};

/** A runtime knowing alice and carol (release) and bob, with tokens; the bridge's is ci's. */
async function runtime() {
  const server = await startChannelsServer({ dataDir: dataDir(), port: 0 });
  servers.push(server);
  const people = server.people as People;
  await people.add({ id: "alice", name: "Alice", groups: ["release"] });
  await people.add({ id: "bob", name: "Bob" });
  await people.add({ id: "carol", name: "Carol", groups: ["release"] });
  await people.add({ id: "ci", kind: "program" });
  const client = async (id: string, scopes: string) =>
    new ChannelsClient({ url: server.url, token: (await people.issueToken(id, scopes)).token });
  return {
    url: server.url,
    ci: (await people.issueToken("ci", "create,read,operate")).token,
    bob: await client("bob", "read,answer"),
    carol: await client("carol", "read,answer"),
    admin: new ChannelsClient({ url: server.url, token: server.token }),
  };
}

/** Asks `approvals` about `text`; returns the decision, the reason, and the interaction made. */
function ask(approvals: Approvals, text: string, admin: ChannelsClient) {
  const reasons: string[] = [];
  const decision = (async () =>
    approvals.commandExecution?.(command(text), {
      signal: new AbortController().signal,
      explain: (reason) => reasons.push(reason),
    }))();
  const interaction = eventually("the interaction", async () =>
    (await admin.list()).find((candidate) => candidate.payload.command === text),
  );
  return { decision, reasons, interaction };
}

describe("channelsApprovals with rules", () => {
  it("gives a governed request its rule's routing with startedBy; a non-member is refused, a member answers", async () => {
    const rt = await runtime();
    const approvals = channelsApprovals({
      url: rt.url,
      token: rt.ci,
      rules: [publish],
      startedBy: "alice",
      routing: { channel: "#releases" },
    });
    const asked = ask(approvals, "npm publish --tag next", rt.admin);
    const interaction = await asked.interaction;
    assert.deepEqual(interaction.routing, {
      channel: "#releases",
      answer: ["group:release"],
      startedBy: "alice",
      rule: "publish",
    });
    await assert.rejects(
      rt.bob.respond(interaction.id, { action: "accept" }),
      (error: unknown) =>
        error instanceof ChannelsError && error.status === 403 && error.code === "not_allowed",
    );
    assert.equal((await rt.admin.get(interaction.id)).status, "pending");
    await rt.carol.respond(interaction.id, { action: "accept" });
    assert.equal(await asked.decision, "accept");
    assert.deepEqual(asked.reasons, ["approved by Carol in the channels runtime"]);
  });

  it("leaves a request no rule governs to the static routing, or to anyone", async () => {
    const rt = await runtime();
    const plain = ask(
      channelsApprovals({ url: rt.url, token: rt.ci, rules: [publish] }),
      "ls",
      rt.admin,
    );
    const interaction: Interaction = await plain.interaction;
    assert.equal(interaction.routing, undefined);
    await rt.bob.respond(interaction.id, { action: "accept" });
    assert.equal(await plain.decision, "accept");
  });

  it("declines, saying why, when the runtime will not ask (a rule naming an unknown group)", async () => {
    const rt = await runtime();
    const approvals = channelsApprovals({
      url: rt.url,
      token: rt.ci,
      rules: [{ name: "ops", answer: ["group:nope"] }],
    });
    const reasons: string[] = [];
    const decision = await approvals.commandExecution?.(command("make deploy"), {
      signal: new AbortController().signal,
      explain: (reason) => reasons.push(reason),
    });
    assert.equal(decision, "decline");
    assert.match(
      reasons[0] ?? "",
      /^declined: the channels runtime refused to ask \(unknown_principal: .*"group:nope"/,
    );
  });

  it("declines a request nobody allowed could answer by its timeout, saying so", async () => {
    const rt = await runtime();
    const approvals = channelsApprovals({
      url: rt.url,
      token: rt.ci,
      timeoutMs: 300,
      rules: [{ name: "self", answer: ["alice"], notSelf: true }],
      startedBy: "alice",
    });
    const reasons: string[] = [];
    const decision = await approvals.commandExecution?.(command("npm version patch"), {
      signal: new AbortController().signal,
      explain: (reason) => reasons.push(reason),
    });
    assert.equal(decision, "decline");
    assert.deepEqual(reasons, ["declined: no one allowed to answer (alice, not alice)"]);
  });

  it("derives a copy for a run: more rules after its own, who the turn runs for; checks principals", async () => {
    const rt = await runtime();
    const base = channelsApprovals({ url: rt.url, token: rt.ci, rules: [publish] });
    const hooks = routingHooksOf(base);
    assert.ok(hooks);
    assert.deepEqual(hooks.rules, [publish]);
    const run = routedApprovals(base, {
      rules: [{ name: "everything", answer: ["bob"] }],
      startedBy: "carol",
    });
    assert.deepEqual(
      routingHooksOf(run)?.rules.map((rule) => rule.name),
      ["publish", "everything"],
    );
    assert.equal(routingHooksOf(run)?.startedBy, "carol");
    const first = ask(run, "npm publish", rt.admin);
    assert.equal((await first.interaction).routing?.rule, "publish", "its own rule first");
    await rt.carol.respond((await first.interaction).id, { action: "decline" });
    assert.equal(await first.decision, "decline");
    const other = ask(run, "rm -rf build", rt.admin);
    assert.deepEqual((await other.interaction).routing, {
      answer: ["bob"],
      startedBy: "carol",
      rule: "everything",
    });
    await rt.bob.respond((await other.interaction).id, { action: "accept" });
    assert.equal(await other.decision, "accept");

    await hooks.check();
    await assert.rejects(
      hooks.check([{ ...publish, answer: ["group:release", "group:nope"] }]),
      (error: unknown) =>
        error instanceof ChannelsError &&
        error.code === "unknown_principal" &&
        error.message.startsWith(
          'Routing rule "publish" (spaces/release/permissions.toml:3): The routing names "group:nope"',
        ),
    );
  });

  it("refuses a malformed rule when made", async () => {
    assert.throws(
      () =>
        channelsApprovals({
          url: "http://127.0.0.1:1",
          token: "t",
          rules: [{ name: "x", answer: ["Bad Name"] }],
        }),
      (error: unknown) =>
        error instanceof Error &&
        (error as { code?: string }).code === "invalid_option" &&
        /channelsApprovals: rules: routing\[0\] answer\[0\] is "Bad Name"/.test(error.message),
    );
  });
});

describe("ChannelsClient.checkRouting", () => {
  it("resolves for known principals, refuses unknown ones with 422", async () => {
    const rt = await runtime();
    await rt.admin.checkRouting({ answer: ["group:release", "bob"], see: ["carol"] });
    await assert.rejects(
      rt.admin.checkRouting({ answer: ["dave"] }),
      (error: unknown) =>
        error instanceof ChannelsError &&
        error.status === 422 &&
        error.code === "unknown_principal",
    );
  });
});
