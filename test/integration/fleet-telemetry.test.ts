// A fleet run as OpenTelemetry sees it (real PostgreSQL, real codex, ScriptedModel, in-memory
// exporters; the submitter and a worker in this process): one trace from submitTurn through the
// queue wait to the attempt and its turn, with its execute_tool and approval spans; no prompt in
// any span; the fleet's counters after a burst agree with the runs table.
import assert from "node:assert/strict";
import { after, afterEach, describe, it } from "node:test";
import { cancelFleetRun } from "../../src/fleet/cancel.js";
import { FleetConsoleQueries } from "../../src/fleet/console-queries.js";
import { FleetStore } from "../../src/fleet/store.js";
import { submitTurn } from "../../src/fleet/submit.js";
import { type FleetWorker, startFleetWorker } from "../../src/fleet/worker.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { fleetForFile, fleetRows } from "../support/fleet.js";
import {
  allAttributeText,
  counter,
  histogram,
  type InMemoryOtel,
  parentOf,
  registerInMemoryOtel,
  spansNamed,
} from "../support/otel.js";

const { missing, url, testbed } = fleetForFile();
const PROMPT = "PROMPT-fleet-4e1b: write the file";
const COMMAND = "echo CMD-fleet-77aa > written.txt";

let otel: InMemoryOtel | undefined;
let worker: FleetWorker | undefined;
const models: ScriptedModel[] = [];

afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await otel?.close();
  otel = undefined;
});
after(async () => {
  for (const model of models.splice(0)) await model.close();
});

async function workerOn(model: ScriptedModel, name: string): Promise<FleetWorker> {
  models.push(model);
  const [project] = await testbed.projectCopies(1, model);
  return startFleetWorker({
    store: url(),
    project: project as string,
    name,
    concurrency: 2,
    warmSessions: 0,
    // Every command the spaces leave open is accepted: the approval's wait is a span.
    permissionHandler: {
      requestPermission: async () => ({ allowed: true }),
      isAutoAllowed: () => false,
    },
  });
}

describe("a fleet run's trace and the fleet's metrics", { skip: missing }, () => {
  it("one trace: submit → queue wait → attempt → invoke_agent → execute_tool and approval", async () => {
    otel = registerInMemoryOtel();
    const model = await ScriptedModel.start({
      responses: [execCommand(COMMAND, { escalated: true }), reply("Written.")],
    });
    worker = await workerOn(model, "traced");
    const run = await submitTurn({
      store: url(),
      externalSessionId: "traced-session",
      externalRunId: "traced-run",
      target: "dev",
      prompt: PROMPT,
    });
    const result = await run.result();
    await run.close();
    assert.equal(result.success, true, JSON.stringify(result));
    await worker.stop();
    worker = undefined;

    const spans = otel.spans();
    const one = (name: string) => {
      const found = spansNamed(spans, name);
      assert.equal(found.length, 1, `one ${name} span (got ${spans.map((s) => s.name)})`);
      return found[0] as (typeof found)[number];
    };
    const submit = one("codex_harness.fleet.submit");
    const wait = one("codex_harness.fleet.queue_wait");
    const attempt = one("codex_harness.fleet.attempt");
    const turn = one("invoke_agent");
    const tool = one("execute_tool");
    const approval = one("approval");
    assert.equal(submit.kind, 3, "the submit is a PRODUCER span");
    assert.equal(attempt.kind, 4, "the attempt is a CONSUMER span");
    assert.equal(parentOf(submit), undefined, "the submit is the root (nothing active here)");
    assert.equal(parentOf(wait), submit.spanContext().spanId);
    assert.equal(parentOf(attempt), submit.spanContext().spanId);
    assert.equal(parentOf(turn), attempt.spanContext().spanId);
    assert.equal(parentOf(tool), turn.spanContext().spanId);
    // codex asks before the command's item starts: the wait is the turn's child, beside the tool.
    assert.equal(parentOf(approval), turn.spanContext().spanId);
    const traceId = submit.spanContext().traceId;
    for (const span of [wait, attempt, turn, tool, approval]) {
      assert.equal(span.spanContext().traceId, traceId, `${span.name} is in the submit's trace`);
    }
    assert.equal(submit.attributes["codex_harness.fleet.created"], true);
    assert.equal(submit.attributes["codex_harness.fleet.run.id"], "traced-run");
    assert.equal(attempt.attributes["codex_harness.fleet.attempt"], 1);
    assert.equal(attempt.attributes["codex_harness.fleet.worker"], "traced");
    assert.equal(attempt.attributes["codex_harness.fleet.attempt.outcome"], "recorded");
    assert.equal(attempt.attributes["codex_harness.fleet.run.status"], "completed");
    assert.equal(attempt.attributes["codex_harness.fleet.session.id"], "traced-session");
    assert.equal(attempt.status.code, 1, "OK: the outcome was recorded");
    assert.ok(
      wait.endTime[0] * 1e9 + wait.endTime[1] >= wait.startTime[0] * 1e9 + wait.startTime[1],
      "the queue wait ends after it starts",
    );
    assert.match(String(approval.attributes["codex_harness.approval.decision"]), /^accept/);
    const [stored] = await fleetRows(
      url(),
      "SELECT trace_context FROM codex_harness_fleet_runs WHERE run_id = 'traced-run'",
    );
    assert.match(
      String((stored?.trace_context as { traceparent?: string } | undefined)?.traceparent),
      new RegExp(`^00-${traceId}-${submit.spanContext().spanId}-0[01]$`),
      "the run's row carries the submit's context",
    );
    for (const text of allAttributeText(spans)) {
      assert.ok(!text.includes("PROMPT-fleet"), `no prompt in telemetry: ${text}`);
      assert.ok(!text.includes("CMD-fleet"), `no command in telemetry: ${text}`);
    }
  });

  it("after a burst, the counters agree with the runs table; untraced runs still run", async () => {
    // A run submitted before telemetry is on has no trace context: its attempt is a root.
    const untraced = await submitTurn({
      store: url(),
      externalSessionId: "burst-untraced",
      externalRunId: "burst-untraced",
      target: "dev",
      prompt: "untraced",
    });
    otel = registerInMemoryOtel();
    const store = await FleetStore.open(url());
    const runs = [untraced];
    try {
      for (let n = 0; n < 6; n++) {
        runs.push(
          await submitTurn({
            store,
            externalSessionId: `burst-${n % 3}`,
            externalRunId: `burst-${n}`,
            target: "dev",
            prompt: `turn ${n}`,
          }),
        );
      }
      // Known already: not queued again, counted as such.
      await submitTurn({
        store,
        externalSessionId: "burst-0",
        externalRunId: "burst-0",
        target: "dev",
        prompt: "turn 0",
      });
      // Cancelled while queued (no worker yet): recorded by the cancel, not by an attempt.
      assert.deepEqual(await cancelFleetRun(store, "burst-5"), {
        status: "cancelled",
        alreadyEnded: false,
      });
      const model = await ScriptedModel.start({
        responses: Array.from({ length: 10 }, (_, n) => reply(`burst answer ${n}`)),
      });
      worker = await workerOn(model, "bursting");
      for (const run of runs) await run.result();
      await worker.stop();
      worker = undefined;

      const metrics = await otel.metrics();
      const sums = (name: string, key: string) => {
        const byValue = new Map<unknown, number>();
        for (const point of counter(metrics.get(name))) {
          const value = point.attributes[key];
          byValue.set(value, (byValue.get(value) ?? 0) + point.value);
        }
        return byValue;
      };
      const submitted = sums("codex_harness.fleet.runs.submitted", "codex_harness.fleet.created");
      assert.equal(submitted.get(true), 6, "six runs queued while traced");
      assert.equal(submitted.get(false), 1, "one known run submitted again");
      const finished = sums("codex_harness.fleet.runs.finished", "codex_harness.fleet.run.status");
      const rows = await fleetRows(
        url(),
        "SELECT status, count(*)::int AS n FROM codex_harness_fleet_runs WHERE run_id LIKE 'burst-%' GROUP BY status",
      );
      assert.deepEqual(
        Object.fromEntries(finished),
        Object.fromEntries(rows.map((row) => [row.status, row.n])),
        "runs finished, by status, as the table has them",
      );
      assert.deepEqual(Object.fromEntries(finished), { completed: 6, cancelled: 1 });
      const attempts = sums("codex_harness.fleet.attempts", "codex_harness.fleet.attempt.outcome");
      assert.deepEqual(Object.fromEntries(attempts), { recorded: 6 });
      const waits = histogram(metrics.get("codex_harness.fleet.queue.wait"));
      assert.equal(
        waits.reduce((all, point) => all + point.value.count, 0),
        6,
        "one queue wait per first attempt",
      );
      const spans = otel.spans();
      const attemptSpans = spansNamed(otel.spans(), "codex_harness.fleet.attempt");
      assert.equal(attemptSpans.length, 6);
      const rootAttempt = attemptSpans.filter((span) => parentOf(span) === undefined);
      assert.deepEqual(
        rootAttempt.map((span) => span.attributes["codex_harness.fleet.run.id"]),
        ["burst-untraced"],
        "the untraced run's attempt is a root",
      );
      const cancel = spansNamed(spans, "codex_harness.fleet.cancel");
      assert.equal(cancel.length, 1, "the cancel is a point in the run's trace");
      const submitOf5 = spansNamed(spans, "codex_harness.fleet.submit").find(
        (span) => span.attributes["codex_harness.fleet.run.id"] === "burst-5",
      );
      assert.equal(parentOf(cancel[0] as (typeof cancel)[number]), submitOf5?.spanContext().spanId);
    } finally {
      for (const run of runs) await run.close();
      await store.close();
    }
  });

  it("the console's server observes the fleet's gauges; its retry is a traced submit", async () => {
    otel = registerInMemoryOtel();
    const queries = await FleetConsoleQueries.open(url());
    try {
      const retried = await queries.retry("burst-5");
      assert.equal(retried.runId, "burst-5.retry-1");
      const [submit] = spansNamed(otel.spans(), "codex_harness.fleet.submit");
      assert.equal(submit?.attributes["codex_harness.fleet.run.id"], "burst-5.retry-1");
      const [stored] = await fleetRows(
        url(),
        "SELECT trace_context, retry_of FROM codex_harness_fleet_runs WHERE run_id = 'burst-5.retry-1'",
      );
      assert.equal(stored?.retry_of, "burst-5");
      assert.match(
        String((stored?.trace_context as { traceparent?: string } | undefined)?.traceparent),
        new RegExp(`^00-${submit?.spanContext().traceId}-`),
      );
      const metrics = await otel.metrics();
      const gauge = (name: string) => counter(metrics.get(name));
      const rows = await fleetRows(
        url(),
        "SELECT status, count(*)::int AS n FROM codex_harness_fleet_runs GROUP BY status",
      );
      const byStatus = Object.fromEntries(rows.map((row) => [row.status, row.n]));
      const observed = Object.fromEntries(
        gauge("codex_harness.fleet.runs")
          .filter((point) => point.value > 0)
          .map((point) => [point.attributes["codex_harness.fleet.run.status"], point.value]),
      );
      assert.deepEqual(observed, byStatus, "runs by status, as the table has them");
      assert.equal(gauge("codex_harness.fleet.queue.depth")[0]?.value, byStatus.queued);
      assert.equal(byStatus.queued, 1, "the retry waits: no worker runs now");
      assert.equal(gauge("codex_harness.fleet.workers.alive")[0]?.value, 0);
    } finally {
      await queries.close();
    }
  });
});
