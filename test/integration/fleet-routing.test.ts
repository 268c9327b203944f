// Who may answer a fleet run: `startedBy` and `routing.rules` go with the submission, the worker
// (`codex-harness worker --channels`) applies them to its channels approvals for that run, and the
// run's events say who approved. Real PostgreSQL, worker process, codex and ScriptedModel.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { ChannelsClient } from "../../src/channels/client.js";
import { ChannelsError } from "../../src/channels/errors.js";
import { startChannelsServer } from "../../src/channels/http-server.js";
import type { People } from "../../src/channels/people.js";
import { CodexHarnessError } from "../../src/errors.js";
import { FleetStore } from "../../src/fleet/store.js";
import { submitTurn } from "../../src/fleet/submit.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { eventually } from "../support/eventually.js";
import { fleetForFile } from "../support/fleet.js";

const { missing, url, testbed } = fleetForFile();

describe("routing of a fleet run", { skip: missing }, () => {
  it("the run's rule and startedBy reach the worker's approvals: not alice (not_self), two others", async () => {
    const model = await ScriptedModel.start({
      responses: [
        execCommand("echo shipped > shipped.txt", { escalated: true }),
        reply("Shipped."),
      ],
    });
    const channels = await startChannelsServer({
      dataDir: await testbed.tempDir("codex-harness-fleet-routing-"),
      port: 0,
    });
    try {
      const people = channels.people as People;
      for (const id of ["alice", "carol", "dave"]) {
        await people.add({ id, name: id[0]?.toUpperCase() + id.slice(1), groups: ["release"] });
      }
      await people.add({ id: "ci", kind: "program" });
      const as = async (id: string) =>
        new ChannelsClient({
          url: channels.url,
          token: (await people.issueToken(id, "read,answer")).token,
        });
      const [project] = await testbed.projectCopies(1, model);
      // The target's own rule (not this command's): a file of rules alone.
      await writeFile(
        path.join(project as string, "spaces/app/permissions.toml"),
        '[[routing]]\nname = "publish"\nexec = ["npm publish*"]\nanswer = ["group:release"]\n',
      );
      const worker = testbed.startWorker(
        url(),
        project as string,
        "routes",
        ["--channels", channels.url],
        {
          ...process.env,
          CODEX_HARNESS_TOKEN: (await people.issueToken("ci", "create,read,operate")).token,
        },
      );
      await testbed.taking(worker);
      const run = await submitTurn({
        store: url(),
        externalSessionId: "routing-session",
        externalRunId: "routing-run",
        target: "dev",
        prompt: "ship it",
        startedBy: "alice",
        routing: {
          rules: [
            {
              name: "ship",
              exec: ["echo shipped*"],
              answer: ["group:release"],
              approvals: 2,
              notSelf: true,
            },
          ],
        },
      });
      const alice = await as("alice");
      const asked = await eventually(
        "the request in the runtime",
        async () => (await alice.list({ status: ["pending", "delivered"] }))[0],
      );
      assert.deepEqual(asked.routing, {
        answer: ["group:release"],
        approvals: 2,
        notSelf: true,
        startedBy: "alice",
        rule: "ship",
      });
      await assert.rejects(
        alice.respond(asked.id, { action: "accept" }),
        (error: unknown) =>
          error instanceof ChannelsError && error.status === 403 && /notSelf/.test(error.message),
      );
      await (await as("carol")).respond(asked.id, { action: "accept" });
      await (await as("dave")).respond(asked.id, { action: "accept" });
      const said: string[] = [];
      for await (const { event } of run.events()) {
        if (event.type === "log" && event.fields?.code === "approval") said.push(event.message);
      }
      const result = await run.result();
      await run.close();
      assert.deepEqual(result, { success: true, finalOutput: "Shipped." });
      assert.deepEqual(said, ["approved by Carol, Dave in the channels runtime"]);
      assert.equal(
        (await readFile(path.join(project as string, "shipped.txt"), "utf8")).trim(),
        "shipped",
      );
      const store = await FleetStore.open(url());
      try {
        const stored = await store.getRun("routing-run");
        assert.equal(stored?.request.startedBy, "alice");
        assert.equal(stored?.request.routing?.rules[0]?.name, "ship");
      } finally {
        await store.close();
      }
    } finally {
      await testbed.stopWorkers();
      await channels.close();
      await model.close();
    }
  });

  it("a malformed routing is refused when submitted, naming the field", async () => {
    const submit = (routing: unknown) =>
      submitTurn({
        store: "postgres://127.0.0.1:1/none",
        externalSessionId: "s",
        externalRunId: "r",
        target: "dev",
        prompt: "p",
        routing: routing as never,
      });
    await assert.rejects(
      submit({ rules: [{ answer: ["Release Team"] }] }),
      (error: unknown) =>
        error instanceof CodexHarnessError &&
        error.code === "invalid_input" &&
        /^submitTurn: routing\.rules: routing\[0\] answer\[0\] is "Release Team"/.test(
          error.message,
        ),
    );
    await assert.rejects(
      submit({ rules: [], who: "me" }),
      (error: unknown) =>
        error instanceof CodexHarnessError &&
        /`routing` has only `rules`, not who/.test(error.message),
    );
  });
});
