// The fleet through database outages and crowded starts, on the real PostgreSQL and codex: turns in
// flight outlive a short outage, workers cut off longer reconnect by themselves, followers
// (`codex-harness submit`) wait for the database, and workers starting at once on a fresh database
// all start.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { submitTurn } from "../../src/fleet/submit.js";
import { inputTexts, type RecordedRequest } from "../../src/testing/recorded.js";
import { reply, response } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { runCli } from "../support/cli.js";
import { eventually } from "../support/eventually.js";
import { FleetTestbed, fleetRows } from "../support/fleet.js";
import { postgresMissing, startPostgres, type TestPostgres } from "../support/postgres.js";

const missing = postgresMissing();
const testbed = new FleetTestbed();
const servers: TestPostgres[] = [];

after(async () => {
  await testbed.close();
  for (const server of servers) server.stop();
});

async function freshPostgres(): Promise<TestPostgres> {
  const server = await startPostgres();
  servers.push(server);
  return server;
}

/** A model whose answers show the session's history (prompts starting with "o"), after `delayMs`. */
async function historyModel(delayMs: number): Promise<ScriptedModel> {
  const answer = (request: RecordedRequest) =>
    response(
      [
        reply(
          `seen: ${inputTexts(request)
            .filter((text) => text.startsWith("o"))
            .join(" | ")}`,
        ),
      ],
      { delayMs },
    );
  return ScriptedModel.start({ responses: Array.from({ length: 40 }, () => answer) });
}

describe("the fleet through outages", { skip: missing }, () => {
  it("PostgreSQL down for 6 s under running turns: every run completes once, every submit exits 0", async () => {
    const server = await freshPostgres();
    const model = await historyModel(1_500);
    try {
      const projects = await testbed.projectCopies(2, model);
      const workers = projects.map((project, n) =>
        testbed.startWorker(server.url, project, `steady-${n + 1}`, ["--lease-ms", "10000"]),
      );
      for (const worker of workers) await testbed.taking(worker);
      // Followed by real `submit` processes, each given 150 s (the whole suite shares 2 cores).
      const submit = (session: string, prompt: string) =>
        runCli(
          [
            "submit",
            ...["--store", server.url, "--target", "dev", "--session", session],
            ...["--run-id", `${session}:${prompt}`, prompt],
          ],
          { timeoutMs: 150_000 },
        );
      const sessions = ["a", "b", "c", "d"];
      const firsts = sessions.map((session) => submit(`out-${session}`, `o1 ${session}`));
      await model.waitForRequest(2, { timeoutMs: 30_000 });
      server.down();
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      server.up();
      const backAt = Date.now();
      const results = await Promise.all(firsts);
      const recoveredMs = Date.now() - backAt;
      for (const [k, result] of results.entries()) {
        const session = sessions[k] as string;
        assert.equal(
          result.code,
          0,
          `${result.stderr}\nworkers said:\n${workers.map((worker) => worker.output.stderr).join("\n")}`,
        );
        assert.equal(result.stdout, `seen: o1 ${session}\n`);
      }
      assert.ok(
        results.some((result) => /waiting for the database/.test(result.stderr)),
        "a follower said it waits for the database",
      );
      // A turn submitted after the outage runs, on the history recorded through it.
      const second = await submit("out-a", "o2 a");
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.stdout, "seen: o1 a | o2 a\n");
      const runs = await fleetRows(
        server.url,
        `SELECT r.run_id, r.status, r.attempts,
           (SELECT count(*) FROM codex_harness_fleet_events e
            WHERE e.run_id = r.run_id AND e.event->>'type' = 'complete') AS completes
         FROM codex_harness_fleet_runs r ORDER BY r.run_id`,
      );
      assert.equal(runs.length, 5);
      for (const run of runs) {
        assert.equal(run.status, "completed", JSON.stringify(run));
        assert.equal(Number(run.completes), 1, JSON.stringify(run));
      }
      for (const worker of workers) {
        assert.equal(worker.child.exitCode, null, `workers stay up: ${worker.output.stderr}`);
      }
      process.stderr.write(
        `# outage 6 s: submits done ${recoveredMs} ms after the database was back; attempts ${runs.map((run) => run.attempts).join(",")}\n`,
      );
    } finally {
      await testbed.stopWorkers();
      await model.close();
    }
  });

  it("a worker cut off longer than its lease stops its turns, then reconnects: its turn runs again, once", async () => {
    const server = await freshPostgres();
    const model = await historyModel(1_500);
    try {
      const [project] = await testbed.projectCopies(1, model);
      const worker = testbed.startWorker(server.url, project as string, "cut-off", [
        "--lease-ms",
        "2000",
      ]);
      await testbed.taking(worker);
      // A turn in flight when the database goes: its attempt is stopped, and the run goes on.
      const cut = await submitTurn({
        store: server.url,
        externalSessionId: "cut-session",
        externalRunId: "cut-1",
        target: "dev",
        prompt: "o cut",
        outageGiveUpMs: 120_000,
      });
      await model.waitForRequest(1, { timeoutMs: 30_000 });
      server.down();
      await eventually(
        "the worker says it lost the database",
        () =>
          /worker cut-off: .*could not renew its lease .*; it stopped taking turns and reconnects \(waiting for the database\)/.test(
            worker.output.stderr,
          ),
        { timeoutMs: 15_000 },
      ).catch((error: Error) => {
        throw new Error(`${error.message}\nworker said: ${worker.output.stderr}`);
      });
      server.up();
      await eventually(
        "the worker is back",
        () => /worker cut-off is back: taking turns again/.test(worker.output.stderr),
        { timeoutMs: 30_000 },
      );
      assert.deepEqual(await cut.result(), { success: true, finalOutput: "seen: o cut" });
      await cut.close();
      const cutRuns = await fleetRows(
        server.url,
        `SELECT status, attempts, (SELECT count(*) FROM codex_harness_fleet_events
           WHERE run_id = 'cut-1' AND event->>'type' = 'complete') AS completes
         FROM codex_harness_fleet_runs WHERE run_id = 'cut-1'`,
      );
      assert.equal(cutRuns[0]?.status, "completed");
      assert.equal(Number(cutRuns[0]?.completes), 1);
      assert.ok(Number(cutRuns[0]?.attempts) >= 2, "the stopped attempt was run again");
      const run = await submitTurn({
        store: server.url,
        externalSessionId: "after-outage",
        externalRunId: "after-outage-1",
        target: "dev",
        prompt: "o after",
      });
      assert.deepEqual(await run.result(), { success: true, finalOutput: "seen: o after" });
      await run.close();
      assert.equal(worker.child.exitCode, null, worker.output.stderr);
      const held = await fleetRows(
        server.url,
        "SELECT name FROM codex_harness_fleet_workers ORDER BY name",
      );
      assert.deepEqual(held, [{ name: "cut-off" }], "one lease: the old one was given up");
    } finally {
      await testbed.stopWorkers();
      await model.close();
    }
  });

  it("8 workers started at once on a fresh database all start", async () => {
    const server = await freshPostgres();
    const model = await historyModel(0);
    try {
      const [project] = await testbed.projectCopies(1, model);
      const workers = Array.from({ length: 8 }, (_, n) =>
        testbed.startWorker(server.url, project as string, `crowd-${n + 1}`, [
          "--concurrency",
          "1",
        ]),
      );
      for (const worker of workers) await testbed.taking(worker, 60_000);
      const run = await submitTurn({
        store: server.url,
        externalSessionId: "crowd",
        externalRunId: "crowd-1",
        target: "dev",
        prompt: "o crowd",
      });
      assert.equal((await run.result()).finalOutput, "seen: o crowd");
      await run.close();
      const live = await fleetRows(
        server.url,
        "SELECT count(*) AS n FROM codex_harness_fleet_workers",
      );
      assert.equal(Number(live[0]?.n), 8);
      // A second worker under a live worker's name is refused, not silently sharing its lease.
      const twin = testbed.startWorker(server.url, project as string, "crowd-1");
      assert.equal(await twin.closed, 1);
      assert.match(
        twin.output.stderr,
        /A live worker is already named "crowd-1": give each worker its own --name/,
      );
    } finally {
      await testbed.stopWorkers();
      await model.close();
    }
  });
});
