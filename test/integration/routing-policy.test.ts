// Who may answer, from a space's permissions.toml: its `[[routing]]` rules reach the real codex's
// requests through runTurn and the channels bridge (a real runtime, ScriptedModel): only the group
// a rule names answers, two accepts from two people when it asks for two, and a policy that cannot
// hold (an unknown group, not_self for nobody, approvals that do not route) fails the run before
// the turn starts.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { channelsApprovals } from "../../src/channels/bridge.js";
import { ChannelsClient } from "../../src/channels/client.js";
import { ChannelsError } from "../../src/channels/errors.js";
import { startChannelsServer } from "../../src/channels/http-server.js";
import type { Interaction } from "../../src/channels/interaction-types.js";
import type { People } from "../../src/channels/people.js";
import type { Approvals } from "../../src/events/approval-types.js";
import type { AgentEvent } from "../../src/session/agent-events.js";
import { type RunTurnRequest, runTurn } from "../../src/session/run-turn.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { cleanTrees } from "../fixtures/spaces/helpers.js";
import { channelsTestDirs } from "../support/channels-dirs.js";
import { runCli } from "../support/cli.js";
import { eventually } from "../support/eventually.js";
import { releaseProject } from "../support/routing-fixtures.js";
import { runTargetArgs, useScriptedModel } from "../support/target-home.js";

after(() => cleanTrees());
const { dataDir, servers } = channelsTestDirs("routing-policy-test-");

const RELEASE_RULES = `# Who answers what this space's agent asks.
[[routing]]
name = "publish"
exec = ["npm publish*"]
answer = ["group:release"]

[[routing]]
name = "dist-tag"
exec = ["npm dist-tag*"]
answer = ["group:release"]
approvals = 2
`;

/** The release project with `rules` (by default {@link RELEASE_RULES}). */
const project = (rules = RELEASE_RULES) => releaseProject(rules);

/** A runtime knowing alice and carol (group release), bob (no group) and the ci program. */
async function runtime() {
  const server = await startChannelsServer({ dataDir: dataDir(), port: 0 });
  servers.push(server);
  const people = server.people as People;
  await people.add({ id: "alice", name: "Alice", groups: ["release"] });
  await people.add({ id: "bob", name: "Bob" });
  await people.add({ id: "carol", name: "Carol", groups: ["release"] });
  await people.add({ id: "ci", kind: "program" });
  const as = async (id: string) =>
    new ChannelsClient({
      url: server.url,
      token: (await people.issueToken(id, "read,answer")).token,
    });
  const ci = (await people.issueToken("ci", "create,read,operate")).token;
  return {
    url: server.url,
    ci,
    approvals: (): Approvals => channelsApprovals({ url: server.url, token: ci, source: "tests" }),
    alice: await as("alice"),
    bob: await as("bob"),
    carol: await as("carol"),
  };
}

function turn(
  dir: string,
  work: string,
  extra: Partial<RunTurnRequest>,
  events: AgentEvent[] = [],
) {
  return runTurn({
    externalSessionId: "s1",
    externalRunId: `r-${Math.random().toString(36).slice(2)}`,
    aspHome: path.join(dir, ".asp"),
    spec: { target: { targetName: "dev", targetDir: dir } },
    harness: "codex",
    cwd: work,
    env: { CODEX_HOME: path.join(dir, "user-codex-home") },
    prompt: "release it",
    callbacks: { onEvent: (event) => void events.push(event) },
    ...extra,
  });
}

/** The open interaction whose command includes `text`, as `client` sees it. */
function pending(client: ChannelsClient, text: string): Promise<Interaction> {
  return eventually(`the request to run ${text}`, async () =>
    (await client.list({ status: ["pending", "delivered"] })).find((interaction) =>
      String(interaction.payload.command).includes(text),
    ),
  );
}

describe("[[routing]] in a space's permissions.toml, through runTurn and the channels bridge", () => {
  it("only the release group answers npm publish; two of them answer npm dist-tag", async () => {
    const { dir, work } = project();
    const model = await ScriptedModel.start({
      responses: [
        execCommand("./bin/npm publish", { escalated: true, callId: "publish" }),
        execCommand("./bin/npm dist-tag add app@1.2.0 latest", { escalated: true, callId: "tag" }),
        reply("Released."),
      ],
    });
    try {
      await useScriptedModel(dir, model);
      const rt = await runtime();
      const events: AgentEvent[] = [];
      const running = turn(dir, work, { approvals: rt.approvals(), startedBy: "alice" }, events);

      const publish = await pending(rt.bob, "npm publish");
      assert.deepEqual(publish.routing, {
        answer: ["group:release"],
        startedBy: "alice",
        rule: "publish",
      });
      await assert.rejects(
        rt.bob.respond(publish.id, { action: "accept" }),
        (error: unknown) =>
          error instanceof ChannelsError && error.status === 403 && error.code === "not_allowed",
      );
      assert.equal(
        (await rt.carol.get(publish.id)).status,
        "pending",
        "bob's answer changed nothing",
      );
      await rt.carol.respond(publish.id, { action: "accept" });

      const tag = await pending(rt.carol, "npm dist-tag");
      assert.equal(tag.routing?.approvals, 2);
      await rt.alice.respond(tag.id, { action: "accept" });
      assert.equal((await rt.carol.get(tag.id)).status, "pending", "one of two approvals");
      await rt.carol.respond(tag.id, { action: "accept" });

      const response = await running;
      assert.equal(response.result.success, true, JSON.stringify(response.result));
      assert.equal(response.result.finalOutput, "Released.");
      assert.deepEqual(readFileSync(path.join(work, "npm.log"), "utf8").trim().split("\n"), [
        "npm publish",
        "npm dist-tag add app@1.2.0 latest",
      ]);
      // Who answered is in the run's events (the fleet stores the same).
      const said = events.flatMap((event) =>
        event.type === "log" && event.fields?.code === "approval" ? [event.message] : [],
      );
      assert.deepEqual(said, [
        "approved by Carol in the channels runtime",
        "approved by Alice, Carol in the channels runtime",
      ]);
    } finally {
      await model.close();
    }
  });

  it("a policy that cannot hold fails the run before the turn starts", async () => {
    const model = await ScriptedModel.start({ responses: [reply("never asked")] });
    try {
      const rt = await runtime();
      const unknown = project(
        '[[routing]]\nname = "publish"\nexec = ["npm publish*"]\nanswer = ["group:relase"]\n',
      );
      await useScriptedModel(unknown.dir, model);
      const refused = await turn(unknown.dir, unknown.work, {
        approvals: rt.approvals(),
        startedBy: "alice",
      });
      assert.equal(refused.result.success, false);
      assert.equal(refused.result.error?.code, "routing_refused");
      assert.deepEqual(refused.result.error?.details, {
        codeOfCodex: "unknown_principal",
        rule: "publish",
        origin: `${unknown.rulesFile}:1`,
      });
      assert.match(
        refused.result.error?.message ?? "",
        /"group:relase", whom this runtime does not know/,
      );

      const self = project('[[routing]]\nanswer = ["group:release"]\nnot_self = true\n');
      await useScriptedModel(self.dir, model);
      const nobody = await turn(self.dir, self.work, { approvals: rt.approvals() });
      assert.equal(nobody.result.error?.code, "routing_refused");
      assert.equal(nobody.result.error?.details?.codeOfCodex, "not_self_without_started_by");

      const unrouted = await turn(self.dir, self.work, {
        approvals: { commandExecution: () => "accept" },
        startedBy: "alice",
      });
      assert.equal(unrouted.result.error?.code, "routing_refused");
      assert.equal(unrouted.result.error?.details?.codeOfCodex, "routing_unenforced");

      assert.equal(model.requests.length, 0, "no turn reached the model");
      assert.ok(!existsSync(path.join(unknown.work, "npm.log")));
    } finally {
      await model.close();
    }
  });

  it("run --target: --channels checks the rules first; at the terminal they are only a warning", async () => {
    const model = await ScriptedModel.start({ responses: [reply("Nothing to release.")] });
    try {
      const rt = await runtime();
      const { dir, work } = project(
        '[[routing]]\nname = "publish"\nexec = ["npm publish*"]\nanswer = ["group:relase"]\n',
      );
      await useScriptedModel(dir, model);
      const env = { ...process.env, CODEX_HOME: path.join(dir, "user-codex-home") };
      const tokenFile = path.join(dir, "ci.token");
      writeFileSync(tokenFile, rt.ci);
      const channels = await runCli(
        runTargetArgs(dir, work, "--channels", rt.url, "--channels-token-file", tokenFile, "go"),
        { env },
      );
      assert.equal(channels.code, 1, channels.stdout + channels.stderr);
      assert.match(
        channels.stderr,
        /error: The routing rules could not be checked .*Routing rule "publish" \(.*permissions\.toml:1\): The routing names "group:relase"/,
      );
      const terminal = await runCli(runTargetArgs(dir, work, "go"), { env });
      assert.equal(terminal.code, 0, terminal.stdout + terminal.stderr);
      assert.match(
        terminal.stderr,
        /warning: the target's \[\[routing\]\] rules say who may answer \(publish\); answers at this terminal are not checked/,
      );
      assert.match(terminal.stdout, /Nothing to release\./);
      assert.equal(model.requests.length, 1, "only the terminal's turn ran");
    } finally {
      await model.close();
    }
  });

  it("run --target --channels --started-by: whom a not_self rule excludes; without it the run fails first", async () => {
    const model = await ScriptedModel.start({ responses: [reply("Nothing to release.")] });
    try {
      const rt = await runtime();
      const { dir, work } = project(
        '[[routing]]\nname = "publish"\nexec = ["npm publish*"]\nanswer = ["group:release"]\nnot_self = true\n',
      );
      await useScriptedModel(dir, model);
      const env = { ...process.env, CODEX_HOME: path.join(dir, "user-codex-home") };
      const tokenFile = path.join(dir, "ci.token");
      writeFileSync(tokenFile, rt.ci);
      const channels = ["--channels", rt.url, "--channels-token-file", tokenFile];
      const nobody = await runCli(runTargetArgs(dir, work, ...channels, "go"), { env });
      assert.equal(nobody.code, 1, nobody.stdout + nobody.stderr);
      assert.match(nobody.stderr, /has not_self: .*this run names nobody/);
      const alone = await runCli(["run", "--started-by", "alice", "go"], { env });
      assert.equal(alone.code, 1);
      assert.match(alone.stderr, /--started-by needs --channels/);
      const alice = await runCli(
        runTargetArgs(dir, work, ...channels, "--started-by", "alice", "go"),
        { env },
      );
      assert.equal(alice.code, 0, alice.stdout + alice.stderr);
      assert.match(alice.stdout, /Nothing to release\./);
      assert.equal(model.requests.length, 1, "only alice's run reached codex");
    } finally {
      await model.close();
    }
  });
});
