// `codex-harness acp --target` under the target's `[[routing]]` rules (real codex, ScriptedModel, a
// real channels runtime): a request a rule governs goes to the channels runtime only — the editor
// is told, never asked — and only whom the rule names answers it; other requests are asked in the
// editor as before; rules nothing would enforce stop the agent before it serves.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { ChannelsClient } from "../../src/channels/client.js";
import { ChannelsError } from "../../src/channels/errors.js";
import { startChannelsServer } from "../../src/channels/http-server.js";
import type { Interaction } from "../../src/channels/interaction-types.js";
import type { People } from "../../src/channels/people.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { cleanTrees } from "../fixtures/spaces/helpers.js";
import { editorOf, startAcpAgent } from "../support/acp-editor.js";
import { allow, openSession, promptOf } from "../support/acp-session.js";
import { channelsTestDirs } from "../support/channels-dirs.js";
import { eventually } from "../support/eventually.js";
import { releaseProject } from "../support/routing-fixtures.js";
import { useScriptedModel } from "../support/target-home.js";

after(() => cleanTrees());
const { dataDir, servers } = channelsTestDirs("acp-routing-test-");

const PUBLISH_RULE =
  '[[routing]]\nname = "publish"\nexec = ["npm publish*"]\nanswer = ["group:release"]\n';

/**
 * A project whose target `dev` composes the space `release` (routing rules only, `rules`), on
 * `model`, and a work folder with a stand-in `npm` (`./bin/npm`) that logs what it was asked.
 */
async function project(rules: string, model: ScriptedModel) {
  const { dir, work } = releaseProject(rules);
  await useScriptedModel(dir, model);
  const env = {
    ...process.env,
    CODEX_HOME: path.join(dir, "user-codex-home"),
    CODEX_HARNESS_TOKEN: "",
  };
  return { dir, work, env };
}

/** A runtime knowing carol (group release), bob (no group) and the ci program (its token file). */
async function runtime() {
  const server = await startChannelsServer({ dataDir: dataDir(), port: 0 });
  servers.push(server);
  const people = server.people as People;
  await people.add({ id: "bob", name: "Bob" });
  await people.add({ id: "carol", name: "Carol", groups: ["release"] });
  await people.add({ id: "ci", kind: "program" });
  const as = async (id: string) =>
    new ChannelsClient({
      url: server.url,
      token: (await people.issueToken(id, "read,answer")).token,
    });
  const tokenFile = path.join(dataDir(), "ci.token");
  writeFileSync(tokenFile, (await people.issueToken("ci", "create,read,operate")).token);
  return {
    flags: ["--channels", server.url, "--channels-token-file", tokenFile],
    bob: await as("bob"),
    carol: await as("carol"),
  };
}

/** The open interaction whose command includes `text`, as `client` sees it. */
function pending(client: ChannelsClient, text: string): Promise<Interaction> {
  return eventually(`the request to run ${text}`, async () =>
    (await client.list({ status: ["pending", "delivered"] })).find((interaction) =>
      String(interaction.payload.command).includes(text),
    ),
  );
}

/** The text of the thought chunks the editor was sent. */
function thoughts(editor: ReturnType<typeof editorOf>): string[] {
  return editor.updates.flatMap(({ update }) =>
    update.sessionUpdate === "agent_thought_chunk" && update.content.type === "text"
      ? [update.content.text]
      : [],
  );
}

describe("codex-harness acp --target: [[routing]] rules (real codex, channels runtime)", () => {
  it("a governed command goes to channels only, answered by the rule's group; others are asked in the editor", async () => {
    const model = await ScriptedModel.start({
      responses: [
        execCommand("mkdir asked", { escalated: true, callId: "mkdir" }),
        execCommand("./bin/npm publish", { escalated: true, callId: "publish" }),
        reply("Published."),
      ],
    });
    const rt = await runtime();
    const { dir, work, env } = await project(PUBLISH_RULE, model);
    const agent = startAcpAgent(["--target", "dev", "--project", dir, ...rt.flags], env);
    try {
      // An editor that allows whatever it is asked: had it been asked about npm publish, it ran.
      const { editor, sessionId } = await openSession(agent, work, allow("allow_once"));
      const prompt = promptOf(editor, sessionId)("Publish it");

      const publish = await pending(rt.bob, "npm publish");
      assert.deepEqual(publish.routing, { answer: ["group:release"], rule: "publish" });
      await assert.rejects(
        rt.bob.respond(publish.id, { action: "accept" }),
        (error: unknown) =>
          error instanceof ChannelsError && error.status === 403 && error.code === "not_allowed",
      );
      assert.equal((await rt.carol.get(publish.id)).status, "pending", "bob changed nothing");
      assert.ok(!existsSync(path.join(work, "npm.log")), "nothing ran on bob's word");
      await rt.carol.respond(publish.id, { action: "accept" });

      assert.equal((await prompt).stopReason, "end_turn");
      assert.deepEqual(
        editor.asked.map((request) => request.toolCall.title),
        ["mkdir asked"],
        "the editor is asked what no rule governs, never npm publish",
      );
      assert.ok(existsSync(path.join(work, "asked")), "mkdir ran on the editor's answer");
      assert.equal(readFileSync(path.join(work, "npm.log"), "utf8"), "npm publish\n");
      const told = thoughts(editor);
      assert.ok(
        told.includes(
          "./bin/npm publish: waiting for group:release (rule publish) in the channels runtime; it cannot be answered in the editor.\n",
        ),
        JSON.stringify(told),
      );
      assert.ok(
        told.includes("Approved by Carol in the channels runtime.\n"),
        JSON.stringify(told),
      );
      assert.deepEqual(agent.invalid, [], "stdout stayed the protocol's");
    } finally {
      agent.child.stdin.end();
      await agent.closed;
      await model.close();
    }
  });

  it("rules nothing would enforce stop acp before it serves: no --channels, not_self without --started-by, an unknown group", async () => {
    const model = await ScriptedModel.start({ responses: [] });
    try {
      const rt = await runtime();
      /** acp on a target with `rules` and `flags`: stdin stays open, it must exit by itself. */
      const refused = async (rules: string, ...flags: string[]) => {
        const { dir, env } = await project(rules, model);
        const agent = startAcpAgent(["--target", "dev", "--project", dir, ...flags], env);
        let timer: NodeJS.Timeout | undefined;
        const code = await Promise.race([
          agent.closed,
          new Promise((resolve) => {
            timer = setTimeout(resolve, 30_000, "still running");
          }),
        ]).finally(() => clearTimeout(timer));
        if (code === "still running") agent.child.kill("SIGKILL");
        assert.equal(code, 1, agent.stderr());
        assert.deepEqual(agent.sent, [], "nothing on stdout");
        return agent.stderr();
      };
      assert.match(
        await refused(PUBLISH_RULE),
        /acp: The target's \[\[routing\]\] rules say who may answer \(publish\), .*Add --channels URL .*or remove the rules\./,
      );
      const notSelf = `${PUBLISH_RULE}not_self = true\n`;
      assert.match(
        await refused(notSelf, ...rt.flags),
        /acp: Routing rule "publish" \(.*permissions\.toml:1\) has not_self: .*Pass --started-by <id>/,
      );
      assert.match(
        await refused(PUBLISH_RULE.replace("group:release", "group:relase"), ...rt.flags),
        /acp: The routing rules could not be checked .*"group:relase", whom this runtime does not know/,
      );
      assert.match(
        await refused(PUBLISH_RULE, "--started-by", "carol"),
        /acp: --started-by needs --channels/,
      );

      // Named, the same not_self rule is served.
      const { dir, env } = await project(notSelf, model);
      const agent = startAcpAgent(
        ["--target", "dev", "--project", dir, ...rt.flags, "--started-by", "bob"],
        env,
      );
      try {
        const editor = editorOf(agent, allow("reject_once"));
        const ready = await editor.agent.request("initialize", {
          protocolVersion: PROTOCOL_VERSION,
        });
        assert.equal(ready.protocolVersion, PROTOCOL_VERSION);
      } finally {
        agent.child.stdin.end();
        await agent.closed;
      }
      assert.equal(model.requests.length, 0, "no turn reached the model");
    } finally {
      await model.close();
    }
  });
});
