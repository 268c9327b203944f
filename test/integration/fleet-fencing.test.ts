// Fencing on the real PostgreSQL and codex: a worker frozen (SIGSTOP) past its lease while it runs
// a turn wakes up to find its writes refused; the session's history is the one the fleet recorded.
// An attempt starts only under the worker's live lease, with the next attempt number.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { appendFencedEvents, startAttempt } from "../../src/fleet/fence.js";
import { WorkerLease } from "../../src/fleet/lease.js";
import { FleetStore } from "../../src/fleet/store.js";
import { submitTurn } from "../../src/fleet/submit.js";
import { inputTexts, type RecordedRequest } from "../../src/testing/recorded.js";
import { reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { eventually } from "../support/eventually.js";
import { fleetForFile, fleetRows, storedEvents } from "../support/fleet.js";

const { missing, url: postgresUrl, testbed } = fleetForFile();

describe("fencing", { skip: missing }, () => {
  it("a worker frozen past its lease mid-turn: its late writes are refused, the history stays the fleet's", async () => {
    const url = postgresUrl();
    // Every answer is numbered: the discarded one (the frozen worker's) is told apart.
    let answers = 0;
    const numbered = () => reply(`answer #${++answers}`);
    const model = await ScriptedModel.start({
      responses: Array.from({ length: 20 }, () => numbered),
    });
    try {
      // Both workers share one project folder (one machine): each attempt has its own codex home.
      const [project] = await testbed.projectCopies(1, model);
      const lease = ["--lease-ms", "3000", "--concurrency", "1"];
      const frozen = testbed.startWorker(url, project as string, "frozen", lease);
      await testbed.taking(frozen);
      const turn = async (n: number) => {
        const run = await submitTurn({
          store: url,
          externalSessionId: "fenced-session",
          externalRunId: `fenced-${n}`,
          target: "dev",
          prompt: `turn ${n}`,
        });
        return run;
      };
      const first = await turn(1);
      assert.equal((await first.result()).finalOutput, "answer #1");
      await first.close();

      const second = await turn(2);
      await model.waitForRequest(2, { timeoutMs: 30_000 });
      frozen.child.kill("SIGSTOP");
      const frozenAt = Date.now();
      const other = testbed.startWorker(url, project as string, "other", lease);
      // The run is taken over once the frozen worker's lease ran out: answer #2 is discarded.
      assert.equal((await second.result()).finalOutput, "answer #3");
      await second.close();
      const third = await turn(3);
      assert.equal((await third.result()).finalOutput, "answer #4");
      await third.close();
      assert.ok(frozen.child.exitCode === null, "the frozen worker is still there");
      const frozenForMs = Date.now() - frozenAt;
      frozen.child.kill("SIGCONT");
      await eventually(
        "the woken worker says its attempt lost the run",
        () =>
          /turn fenced-2 \(attempt 1\) stopped: .*no longer holds the run/.test(
            frozen.output.stderr,
          ),
        { timeoutMs: 30_000 },
      ).catch((error: Error) => {
        throw new Error(`${error.message}\nworker said: ${frozen.output.stderr}`);
      });
      await eventually(
        "the woken worker takes a new lease",
        () => /worker frozen is back: taking turns again/.test(frozen.output.stderr),
        { timeoutMs: 30_000 },
      );

      const fourth = await turn(4);
      assert.equal((await fourth.result()).finalOutput, "answer #5");
      await fourth.close();
      const last = model.requests.at(-1) as RecordedRequest;
      const asked = inputTexts(last).filter((text) => text.startsWith("turn "));
      assert.deepEqual(asked, ["turn 1", "turn 2", "turn 3", "turn 4"]);
      const answered = inputTexts(last, "assistant");
      assert.deepEqual(answered, ["answer #1", "answer #3", "answer #4"], "no discarded answer");

      const events = await storedEvents(url, "fenced-2");
      assert.equal(events.filter((event) => event.type === "complete").length, 1);
      assert.equal(events.at(-1)?.type, "complete", "nothing after the run's complete");
      const firstOfRetry = events.find((event) => event.attempt === 2)?.seq ?? 0;
      assert.ok(
        events.every((event) => event.attempt !== 1 || event.seq < firstOfRetry),
        `no event of the stale attempt after the retry began: ${JSON.stringify(events)}`,
      );
      const runs = await fleetRows(
        url,
        "SELECT run_id, status, attempts, worker FROM codex_harness_fleet_runs ORDER BY run_id",
      );
      assert.deepEqual(
        runs.map((row) => [row.run_id, row.status, row.attempts]),
        [
          ["fenced-1", "completed", 1],
          ["fenced-2", "completed", 2],
          ["fenced-3", "completed", 1],
          ["fenced-4", "completed", 1],
        ],
      );
      const sessions = await fleetRows(
        url,
        "SELECT version FROM codex_harness_fleet_sessions WHERE session_id = 'fenced-session'",
      );
      assert.equal(Number(sessions[0]?.version), 4, "one session version per recorded turn");
      assert.ok(other.child.exitCode === null);
      assert.ok(frozenForMs > 3_000, `frozen past its lease (${frozenForMs} ms)`);
    } finally {
      await testbed.stopWorkers();
      await model.close();
    }
  });
});

/** A store on the test server and a live lease of worker `name` (its timers stopped by the test). */
async function storeWithLease(
  name: string,
): Promise<{ url: string; store: FleetStore; lease: WorkerLease }> {
  const url = postgresUrl();
  const store = await FleetStore.open(url);
  const lease = await WorkerLease.start({
    pool: store.pool,
    name,
    leaseMs: 60_000,
    queueWorkerIds: () => [],
    onLost: () => undefined,
  });
  return { url, store, lease };
}

describe("starting an attempt", { skip: missing }, () => {
  it("numbers attempts under a live lease; refuses a lease that is not live; skips an ended run", async () => {
    const { url, store, lease } = await storeWithLease("starter");
    try {
      for (const [runId, status] of [
        ["start-queued", "queued"],
        ["start-ended", "completed"],
      ]) {
        await fleetRows(
          url,
          "INSERT INTO codex_harness_fleet_runs (run_id, session_id, request, status) VALUES ($1, 'start', '{}'::jsonb, $2)",
          [runId, status],
        );
      }
      const first = await startAttempt(store, "start-queued", "starter", lease.epoch);
      assert.deepEqual(first?.fence, {
        runId: "start-queued",
        attempt: 1,
        worker: "starter",
        epoch: lease.epoch,
      });
      assert.equal(first?.start.attempt, 1);
      assert.equal(first?.start.traceContext, null, "submitted untraced: no trace context");
      assert.ok(
        (first?.start.startedAtMs ?? 0) >= (first?.start.queuedAtMs ?? Number.NaN),
        "the queue wait is read on the database's clock",
      );
      const again = await startAttempt(store, "start-queued", "starter", lease.epoch);
      assert.equal(again?.fence.attempt, 2, "a retried job starts the next attempt");
      assert.equal(await startAttempt(store, "start-ended", "starter", lease.epoch), undefined);
      await assert.rejects(startAttempt(store, "start-queued", "starter", lease.epoch + 1), {
        code: "fenced",
        message: /lease is not live/,
      });
      await fleetRows(
        url,
        "UPDATE codex_harness_fleet_workers SET heartbeat_at = now() - interval '1 hour' WHERE name = 'starter'",
      );
      await assert.rejects(startAttempt(store, "start-queued", "starter", lease.epoch), {
        code: "fenced",
      });
      const [row] = await fleetRows(
        url,
        "SELECT status, attempts, worker FROM codex_harness_fleet_runs WHERE run_id = 'start-queued'",
      );
      assert.deepEqual(
        row,
        { status: "running", attempts: 2, worker: "starter" },
        "refusals change nothing",
      );
    } finally {
      lease.stopTimers();
      await store.close();
    }
  });
});

describe("appending an attempt's events", { skip: missing }, () => {
  it("appends in order while the attempt holds the run; refuses, writing nothing, once it does not", async () => {
    const { url, store, lease } = await storeWithLease("appender");
    const seen: string[] = [];
    const stopListening = await store.listen("events", (runId) => seen.push(runId));
    try {
      await fleetRows(
        url,
        "INSERT INTO codex_harness_fleet_runs (run_id, session_id, request) VALUES ('append-run', 'append', '{}'::jsonb)",
      );
      const old = (await startAttempt(store, "append-run", "appender", lease.epoch))?.fence;
      const fence = (await startAttempt(store, "append-run", "appender", lease.epoch))?.fence;
      assert.ok(old && fence);
      assert.deepEqual(await appendFencedEvents(store, fence, [{ n: 1 }, { n: 2 }]), [1, 2]);
      assert.deepEqual(await appendFencedEvents(store, fence, [{ n: 3 }]), [3]);
      assert.deepEqual(
        await appendFencedEvents(store, fence, []),
        [],
        "nothing to add is no refusal",
      );
      await eventually("both appends notified", () => seen.length === 2);
      assert.deepEqual(seen, ["append-run", "append-run"]);
      await assert.rejects(appendFencedEvents(store, old, [{ n: "old" }]), {
        code: "fenced",
        message: /now attempt 2/,
      });
      await assert.rejects(
        appendFencedEvents(store, { ...fence, epoch: lease.epoch + 1 }, [{ n: "epoch" }]),
        { code: "fenced" },
      );
      await fleetRows(
        url,
        "UPDATE codex_harness_fleet_workers SET heartbeat_at = now() - interval '1 hour' WHERE name = 'appender'",
      );
      await assert.rejects(appendFencedEvents(store, fence, [{ n: "expired" }]), {
        code: "fenced",
        message: /lease ran out/,
      });
      await fleetRows(
        url,
        "UPDATE codex_harness_fleet_workers SET heartbeat_at = now() WHERE name = 'appender'",
      );
      await fleetRows(
        url,
        "UPDATE codex_harness_fleet_runs SET status = 'completed' WHERE run_id = 'append-run'",
      );
      await assert.rejects(appendFencedEvents(store, fence, [{ n: "ended" }]), {
        code: "fenced",
        message: /recorded completed/,
      });
      assert.deepEqual(
        (await store.events("append-run")).map(({ seq, event }) => [seq, event]),
        [
          [1, { n: 1 }],
          [2, { n: 2 }],
          [3, { n: 3 }],
        ],
        "refusals write nothing",
      );
    } finally {
      await stopListening();
      lease.stopTimers();
      await store.close();
    }
  });
});
