// A fleet run stops at any moment (issue 37), on the real PostgreSQL and codex: a cancel in the
// first moments of `running` (while the worker sets the turn up) was lost for good, and a worker
// whose run never ended ignored SIGTERM.
import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { cancelFleetRun } from "../../src/fleet/cancel.js";
import { FleetStore } from "../../src/fleet/store.js";
import { submitTurn } from "../../src/fleet/submit.js";
import { inputTexts, type RecordedRequest } from "../../src/testing/recorded.js";
import { execCommand, response } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import type { StartedCli } from "../support/cli.js";
import { eventually } from "../support/eventually.js";
import { fleetForFile, fleetRows } from "../support/fleet.js";

const { missing, url, testbed } = fleetForFile();

/** The model never stops: every answer is a command that logs its start and end for its run. */
async function endlessModel(): Promise<ScriptedModel> {
  const model = await ScriptedModel.start();
  model.enqueue(...Array.from({ length: 400 }, () => endless));
  return model;
}

function endless(request: RecordedRequest) {
  const run = /stop-(\w+)/.exec(inputTexts(request).join(" "))?.[1] ?? "x";
  return response(
    execCommand(
      `echo s $(date +%s%3N) >> marks-${run}.log; sleep 0.3; echo e $(date +%s%3N) >> marks-${run}.log`,
    ),
  );
}

/** A worker on a project copy (workspace-write) pointed at `model`, once it takes turns. */
async function workerFor(
  model: ScriptedModel,
  name: string,
  more: string[] = [],
): Promise<{ project: string; worker: StartedCli }> {
  const [project] = (await testbed.projectCopies(1, model)) as [string];
  const space = path.join(project, "spaces/app/space.toml");
  const toml = await readFile(space, "utf8");
  await writeFile(
    space,
    toml.replace('"sandbox_mode" = "read-only"', '"sandbox_mode" = "workspace-write"'),
  );
  const worker = testbed.startWorker(url(), project, name, ["--concurrency", "1", ...more]);
  await testbed.taking(worker);
  return { project, worker };
}

/** Marks of run `run` written after `since`. */
async function marksAfter(project: string, run: string, since: number): Promise<string[]> {
  const names = (await readdir(project)).filter((name) => name === `marks-${run}.log`);
  const lines =
    names.length === 0
      ? []
      : (await readFile(path.join(project, names[0] as string), "utf8")).trim().split("\n");
  return lines.filter((line) => Number(line.split(" ")[1]) > since);
}

async function statusOf(runId: string): Promise<string | undefined> {
  const rows = await fleetRows(
    url(),
    "SELECT status FROM codex_harness_fleet_runs WHERE run_id = $1",
    [runId],
  );
  return rows[0]?.status as string | undefined;
}

describe("a fleet run stops at any moment", { skip: missing }, () => {
  it("cancels 0-300 ms after a run became running are never lost: recorded cancelled, nothing runs on", async () => {
    const model = await endlessModel();
    const store = await FleetStore.open(url());
    try {
      const { project } = await workerFor(model, "early-cancel-worker");
      const offsets = [0, 30, 80, 150, 230, 300];
      for (const [k, offset] of offsets.entries()) {
        const runId = `early-${k}`;
        const run = await submitTurn({
          store: url(),
          externalSessionId: `early-session-${k}`,
          externalRunId: runId,
          target: "dev",
          prompt: `stop-${k} go on forever`,
        });
        await eventually("the run is running", async () => (await statusOf(runId)) === "running", {
          timeoutMs: 30_000,
          intervalMs: 5,
        });
        await sleep(offset);
        await cancelFleetRun(store, runId);
        const result = await Promise.race([run.result(), sleep(30_000).then(() => "hang")]);
        const answeredAt = Date.now();
        await run.close();
        assert.notEqual(result, "hang", `run ${runId} (cancel at +${offset} ms) was never stopped`);
        assert.equal(
          (result as { error?: { details?: { cancelled?: boolean } } }).error?.details?.cancelled,
          true,
          `run ${runId} (cancel at +${offset} ms): ${JSON.stringify(result)}`,
        );
        await sleep(800);
        assert.deepEqual(
          await marksAfter(project, String(k), answeredAt),
          [],
          `run ${runId} (cancel at +${offset} ms): commands ran after the cancel was recorded`,
        );
        const asked = model.requests.filter(
          (request) =>
            request.receivedAt > answeredAt &&
            inputTexts(request).some((text) => text.includes(`stop-${k} `)),
        );
        assert.equal(asked.length, 0, `run ${runId}: the model was asked after the cancel`);
      }
    } finally {
      await store.close();
      await testbed.stopWorkers();
      await model.close();
    }
  });

  it("SIGTERM to a worker whose turn never ends: it drains, stops the turn at codex and exits; the run is retried", async () => {
    const model = await endlessModel();
    try {
      const { project, worker } = await workerFor(model, "stuck-worker", ["--drain-ms", "500"]);
      const run = await submitTurn({
        store: url(),
        externalSessionId: "stuck-session",
        externalRunId: "stuck-1",
        target: "dev",
        prompt: "stop-stuck go on forever",
      });
      await eventually(
        "the run is running",
        async () => (await statusOf("stuck-1")) === "running",
        {
          timeoutMs: 30_000,
        },
      );
      await sleep(500);
      const sentAt = Date.now();
      worker.child.kill("SIGTERM");
      const exited = await Promise.race([
        worker.closed.then(() => true),
        sleep(20_000).then(() => false),
      ]);
      const exitedAt = Date.now();
      assert.ok(exited, `the worker did not exit after SIGTERM: ${worker.output.stderr}`);
      assert.ok(exitedAt - sentAt < 10_000, `the worker took ${exitedAt - sentAt} ms to exit`);
      await sleep(800);
      assert.deepEqual(
        await marksAfter(project, "stuck", exitedAt),
        [],
        "commands ran on after the worker left",
      );
      // Not recorded as anything: the run waits for another worker.
      assert.equal(await statusOf("stuck-1"), "running");
      await run.close();
    } finally {
      await testbed.stopWorkers();
      await model.close();
    }
  });
});
