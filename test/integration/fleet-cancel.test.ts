// Cancelling fleet runs on the real PostgreSQL and codex (issue 24): a queued turn never reaches
// the model, a running one is interrupted at its worker and its command never runs on; bad inputs
// are refused before PostgreSQL; Ctrl-C on `codex-harness submit` stops following, not the run.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { ChannelsClient } from "../../src/channels/client.js";
import { startChannelsServer } from "../../src/channels/http-server.js";
import { CodexHarnessError } from "../../src/errors.js";
import { type FleetRun, followFleetRun, submitTurn } from "../../src/fleet/submit.js";
import { inputItems, inputTexts } from "../../src/testing/recorded.js";
import { execCommand, reply, response } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { runCli, startCli } from "../support/cli.js";
import { eventually } from "../support/eventually.js";
import { fleetForFile, fleetRows, storedEvents } from "../support/fleet.js";

const { missing, url, testbed } = fleetForFile();

/** A turn of `session` submitted to the test's PostgreSQL. */
function turn(session: string, runId: string, prompt: string): Promise<FleetRun> {
  return submitTurn({
    store: url(),
    externalSessionId: session,
    externalRunId: runId,
    target: "dev",
    prompt,
  });
}

/** Starts one worker on a project copy pointed at `model`; resolves with the project folder. */
async function workerFor(model: ScriptedModel, name: string, sandbox?: string): Promise<string> {
  const [project] = (await testbed.projectCopies(1, model)) as [string];
  if (sandbox) {
    const space = path.join(project, "spaces/app/space.toml");
    const toml = await readFile(space, "utf8");
    await writeFile(
      space,
      toml.replace('"sandbox_mode" = "read-only"', `"sandbox_mode" = "${sandbox}"`),
    );
  }
  await testbed.taking(testbed.startWorker(url(), project, name, ["--concurrency", "1"]));
  return project;
}

async function runRow(runId: string): Promise<Record<string, unknown> | undefined> {
  const rows = await fleetRows(
    url(),
    "SELECT status, attempts, result, cancel_requested_at FROM codex_harness_fleet_runs WHERE run_id = $1",
    [runId],
  );
  return rows[0];
}

const TURN_ABORTED =
  "<turn_aborted>\nThe user interrupted the previous turn on purpose. Any running unified exec processes may still be running in the background. If any tools/commands were aborted, they may have partially executed.\n</turn_aborted>";

/** One input item of a model request, in a line (a developer message by its first tag). */
function summary(item: Record<string, unknown>): string {
  if (item.type === "function_call") return `call ${item.call_id}: ${item.arguments}`;
  if (item.type === "function_call_output") {
    const output = String(item.output).replace(/Wall time: [\d.]+ seconds/, "Wall time: N seconds");
    return `output ${item.call_id}: ${output}`;
  }
  const texts = ((item.content ?? []) as { text?: string }[]).map((part) => part.text ?? "");
  const text = texts.join("|");
  return `${item.role}: ${item.role === "developer" ? (/^<[\w]+>/.exec(text)?.[0] ?? "") : text}`;
}

const cancelledBy = (when: string) => ({
  success: false,
  error: { message: `The run was cancelled ${when}.`, details: { cancelled: true } },
});

describe("cancelling fleet runs", { skip: missing }, () => {
  it("a queued turn cancelled: recorded at once, never reaches the model, the session goes on", async () => {
    const model = await ScriptedModel.start({
      responses: [response([reply("one done")], { delayMs: 4_000 }), reply("three done")],
    });
    try {
      await workerFor(model, "queued-worker");
      const first = await turn("queued-session", "q-1", "first prompt");
      await model.waitForRequest(1, { timeoutMs: 30_000 });
      const second = await turn("queued-session", "q-2", "second prompt");
      const asked = Date.now();
      assert.deepEqual(await second.cancel(), { status: "cancelled", alreadyEnded: false });
      const tookMs = Date.now() - asked;
      const row = await runRow("q-2");
      assert.equal(row?.status, "cancelled");
      assert.equal(row?.attempts, 0, "never started");
      assert.deepEqual(row?.result, cancelledBy("before it started"));
      assert.equal((await runRow("q-1"))?.status, "running", "recorded while turn 1 still runs");
      const events = [];
      for await (const recorded of second.events()) events.push(recorded.event);
      assert.deepEqual(
        events.map((event) => [event.type, (event as { result?: unknown }).result]),
        [["complete", cancelledBy("before it started")]],
      );
      assert.deepEqual(await second.result(), cancelledBy("before it started"));
      const jobs = await fleetRows(url(), "SELECT id FROM graphile_worker.jobs WHERE key = 'q-2'");
      assert.deepEqual(jobs, [], "its job is gone");
      await second.close();

      assert.deepEqual(await first.result(), { success: true, finalOutput: "one done" });
      await first.close();
      const third = await turn("queued-session", "q-3", "third prompt");
      assert.deepEqual(await third.result(), { success: true, finalOutput: "three done" });
      await third.close();
      assert.equal(model.modelRequests.length, 2, "turn 2 made no request");
      const prompts = model.modelRequests.map((request) =>
        inputTexts(request).filter((text) => text.endsWith(" prompt")),
      );
      assert.deepEqual(prompts, [["first prompt"], ["first prompt", "third prompt"]]);
      assert.deepEqual(inputTexts(model.modelRequests[1] as never, "assistant"), ["one done"]);
      assert.ok(tookMs < 3_000, `cancelled in ${tookMs} ms`);
    } finally {
      await testbed.stopWorkers();
      await model.close();
    }
  });

  it("codex-harness cancel of a running turn: interrupted mid-command, the command never runs on", async () => {
    const model = await ScriptedModel.start({
      responses: [
        execCommand("echo > started.txt; sleep 5; echo late > late.txt", { callId: "call_late" }),
        reply("next done"),
      ],
    });
    try {
      const project = await workerFor(model, "running-worker", "workspace-write");
      const run = await turn("running-session", "r-1", "run the slow command");
      await eventually("the command started", () => existsSync(path.join(project, "started.txt")), {
        timeoutMs: 30_000,
      });
      const startedAt = Date.now();
      const cancel = await runCli(["cancel", "r-1", "--store", url()]);
      const cancelMs = Date.now() - startedAt;
      assert.ok(cancelMs < 5_000, `cancelled ${cancelMs} ms after the command started`);
      assert.equal(cancel.code, 0, cancel.stderr);
      assert.equal(
        cancel.stderr,
        "run r-1 is running: its worker was asked to stop it…\nrun r-1 cancelled.\n",
      );
      assert.deepEqual(await run.result(), cancelledBy("while it ran"));
      await run.close();
      const row = await runRow("r-1");
      assert.deepEqual([row?.status, row?.attempts], ["cancelled", 1]);
      const events = await storedEvents(url(), "r-1");
      assert.equal(events.filter((event) => event.type === "complete").length, 1);
      assert.equal(events.at(-1)?.type, "complete", JSON.stringify(events));
      // Well past the command's 5 s: nothing of it ran on, nothing of it went to the model.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 7_000 - cancelMs)));
      assert.equal(existsSync(path.join(project, "late.txt")), false, "the command never ran on");
      assert.equal(model.modelRequests.length, 1);

      const next = await turn("running-session", "r-2", "the next turn");
      assert.deepEqual(await next.result(), { success: true, finalOutput: "next done" });
      await next.close();
      // What the next turn sends of the cancelled one: the call, codex's "aborted" output (none of
      // the command's) and its <turn_aborted> note. The session's codex home kept its path, so
      // codex does not send its skills list again.
      const items = inputItems(model.modelRequests[1] as never).map(summary);
      assert.deepEqual(items.slice(items.indexOf("user: run the slow command")), [
        "user: run the slow command",
        `call call_late: {"cmd":"echo > started.txt; sleep 5; echo late > late.txt"}`,
        "output call_late: Wall time: N seconds\naborted by user",
        `user: ${TURN_ABORTED}`,
        "user: the next turn",
      ]);
    } finally {
      await testbed.stopWorkers();
      await model.close();
    }
  });

  it("a frozen worker that does not record it in time: exit 1, saying so; recorded once it wakes", async () => {
    const model = await ScriptedModel.start({
      responses: [response([reply("never sent")], { delayMs: 60_000 })],
    });
    try {
      const [project] = (await testbed.projectCopies(1, model)) as [string];
      const worker = testbed.startWorker(url(), project, "frozen-worker", ["--concurrency", "1"]);
      await testbed.taking(worker);
      const run = await turn("frozen-session", "f-1", "a turn that waits");
      await model.waitForRequest(1, { timeoutMs: 30_000 });
      worker.child.kill("SIGSTOP");
      const cancel = await runCli(["cancel", "f-1", "--store", url(), "--timeout", "1"]);
      worker.child.kill("SIGCONT");
      assert.equal(cancel.code, 1, cancel.stderr);
      assert.equal(
        cancel.stderr,
        "run f-1 is running: its worker was asked to stop it…\nrun f-1 is not recorded cancelled yet (waited 1 s): its worker is still asked to stop it, and records it when it does. Run this again to see.\n",
      );
      assert.deepEqual(await run.result(), cancelledBy("while it ran"));
      await run.close();
    } finally {
      await testbed.stopWorkers();
      await model.close();
    }
  });

  it("a run waiting for its retry (its attempt failed) is cancelled at once, not after the backoff", async () => {
    const model = await ScriptedModel.start({
      responses: [reply("one done"), response([reply("two done")], { delayMs: 2_000 })],
    });
    try {
      await workerFor(model, "retry-worker");
      const first = await turn("retry-session", "t-1", "one");
      assert.equal((await first.result()).success, true);
      await first.close();
      const second = await turn("retry-session", "t-2", "two");
      await model.waitForRequest(2, { timeoutMs: 30_000 });
      // Another writer moves the session on: the attempt's save is refused, its job waits.
      await fleetRows(url(), "UPDATE codex_harness_fleet_sessions SET version = version + 1");
      const waiting = "SELECT 1 FROM graphile_worker.jobs WHERE key = 't-2' AND locked_at IS NULL";
      await eventually("the attempt failed", async () => (await fleetRows(url(), waiting)).length, {
        timeoutMs: 30_000,
      });
      assert.deepEqual(await second.cancel(), { status: "cancelled", alreadyEnded: false });
      assert.deepEqual(await second.result(), cancelledBy("while it waited to be retried"));
      await second.close();
      // Past graphile-worker's first retry (e ≈ 2.7 s): the turn was not run again.
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      assert.equal(model.modelRequests.length, 2);
      const events = await storedEvents(url(), "t-2");
      assert.equal(events.filter((event) => event.type === "complete").length, 1);
    } finally {
      await testbed.stopWorkers();
      await model.close();
    }
  });

  it("a run waiting for a person's approval is cancelled: the request withdrawn, nothing runs", async () => {
    const model = await ScriptedModel.start({
      responses: [execCommand("echo late > asked.txt", { escalated: true }), reply("done")],
    });
    const dataDir = await testbed.tempDir("codex-harness-fleet-cancel-asks-");
    const channels = await startChannelsServer({ dataDir, port: 0, storeUrl: url() });
    try {
      const [project] = (await testbed.projectCopies(1, model)) as [string];
      await testbed.taking(
        testbed.startWorker(url(), project, "asks", ["--channels", channels.url], {
          ...process.env,
          CODEX_HARNESS_TOKEN: channels.token,
        }),
      );
      const run = await turn("asks-session", "a-1", "write it");
      const person = new ChannelsClient({ url: channels.url, token: channels.token });
      const asked = await eventually(
        "the approval in the inbox",
        async () => (await person.list({ status: ["pending", "delivered"] }))[0],
        { timeoutMs: 30_000 },
      );
      assert.deepEqual(await run.cancel(), { status: "cancelling", alreadyEnded: false });
      assert.deepEqual(await run.result(), cancelledBy("while it ran"));
      await run.close();
      // The request is no longer open to an answer, and an accept sent anyway runs nothing.
      await eventually(
        "the request withdrawn",
        async () => !["pending", "delivered"].includes((await person.get(asked.id)).status),
      );
      await person.respond(asked.id, { action: "accept" }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      assert.equal(existsSync(path.join(project, "asked.txt")), false, "the command never ran");
      assert.equal(model.modelRequests.length, 1, "the model was asked nothing more");
    } finally {
      await testbed.stopWorkers();
      await channels.close();
      await model.close();
    }
  });
});

// Uses the runs of the first test: q-1 completed, q-2 cancelled.
describe("bad fleet inputs", { skip: missing }, () => {
  it("submitTurn refuses bad fields before PostgreSQL; cancel of an unknown or ended run says so", async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["bad-1", { prompt: "a\u0000b" }, /`prompt` contains a NUL character/],
      ["bad-2", { externalSessionId: "s\u0000" }, /`externalSessionId` contains a NUL character/],
      [
        "bad-3",
        { externalSessionId: "s".repeat(5_000) },
        /`externalSessionId` is 5000 characters; the limit is 100\./,
      ],
      ["bad-4", { target: 42 }, /submitTurn needs a non-empty string `target`\./],
      [
        "bad-5",
        { prompt: "p".repeat(5_000_000) },
        /`prompt` is 5000000 characters; the limit is 4000000\./,
      ],
    ];
    for (const [runId, fields, says] of cases) {
      const request = {
        store: url(),
        externalSessionId: "bad",
        externalRunId: runId,
        target: "dev",
      };
      await assert.rejects(
        submitTurn({ ...request, prompt: "x", ...fields } as never),
        (error: unknown) => {
          assert.ok(error instanceof CodexHarnessError, String(error));
          assert.equal(error.code, "invalid_input");
          assert.match(error.message, says);
          return true;
        },
      );
    }
    const ids = cases.map(([runId]) => runId);
    const runs = await fleetRows(
      url(),
      "SELECT run_id FROM codex_harness_fleet_runs WHERE run_id = ANY($1)",
      [ids],
    );
    const jobs = await fleetRows(url(), "SELECT id FROM graphile_worker.jobs WHERE key = ANY($1)", [
      ids,
    ]);
    assert.deepEqual([runs, jobs], [[], []], "nothing was created");

    const unknown = await runCli(["cancel", "no-such-run", "--store", url()]);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, 'error: No fleet run "no-such-run" in the store.\n');
    const ended = await runCli(["cancel", "q-1", "--store", url()]);
    assert.equal(ended.code, 1);
    assert.equal(ended.stderr, "run q-1 had already ended: completed.\n");
    const again = await runCli(["cancel", "q-2", "--store", url()]);
    assert.equal(again.code, 0);
    assert.equal(again.stderr, "run q-2 had already ended: cancelled.\n");
  });
});

describe("Ctrl-C on codex-harness submit", { skip: missing }, () => {
  it("stops following, says how to cancel, exits 130; the run goes on and completes", async () => {
    const model = await ScriptedModel.start({
      responses: [response([reply("slow done")], { delayMs: 4_000 })],
    });
    try {
      await workerFor(model, "ctrl-c-worker");
      const submit = startCli([
        ...["submit", "--store", url(), "--target", "dev", "--session", "ctrl-c-session"],
        ...["--run-id", "c-1", "a slow turn"],
      ]);
      submit.child.stdin.end();
      await model.waitForRequest(1, { timeoutMs: 30_000 });
      await eventually("submit follows", () =>
        /running \[ctrl-c-worker\]/.test(submit.output.stderr),
      );
      const interruptedAt = Date.now();
      submit.child.kill("SIGINT");
      assert.equal(await submit.closed, 130, submit.output.stderr);
      const exitMs = Date.now() - interruptedAt;
      assert.match(
        submit.output.stderr,
        /stopped following run c-1; it goes on in the fleet\. Cancel it with: codex-harness cancel c-1 --store <url>\n$/,
      );
      assert.equal(submit.output.stdout, "");
      assert.equal((await runRow("c-1"))?.status, "running", "still running after Ctrl-C");
      const run = await followFleetRun(url(), "c-1");
      assert.deepEqual(await run.result(), { success: true, finalOutput: "slow done" });
      await run.close();
      const row = await runRow("c-1");
      assert.equal(row?.status, "completed");
      assert.equal(row?.cancel_requested_at, null);
      assert.ok(exitMs < 3_000, `exited ${exitMs} ms after SIGINT`);
    } finally {
      await testbed.stopWorkers();
      await model.close();
    }
  });
});
