// Warm sessions: a worker keeps a session's codex open after a turn it recorded, and the session's
// next turn here runs on it — unless another worker moved the session on, or the turn did not
// complete. A session's next turn goes back to the worker that keeps it warm while that worker is
// free, and to another when it is not (here: paused). Real PostgreSQL and the real codex; the
// attempts are run here, as a worker runs them, and by worker processes, some stopped (SIGTERM),
// killed (SIGKILL) or paused (SIGSTOP) with a session warm.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import {
  AFFINITY_MS,
  forgetWarm,
  sessionsToLeave,
  WARM_FIRST_MS,
} from "../../src/fleet/affinity.js";
import { WorkerLease } from "../../src/fleet/lease.js";
import { FleetStore } from "../../src/fleet/store.js";
import { submitTurn } from "../../src/fleet/submit.js";
import { type AttemptContext, runFleetAttempt } from "../../src/fleet/turn.js";
import { WarmSessions } from "../../src/fleet/warm-sessions.js";
import { sessionHomeDir } from "../../src/spaces/session-home.js";
import { inputTexts, type RecordedRequest } from "../../src/testing/recorded.js";
import { httpError, reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { codexGone, codexProcesses } from "../support/codex-processes.js";
import { eventually } from "../support/eventually.js";
import { FleetTestbed, fleetRows } from "../support/fleet.js";
import { postgresMissing, startPostgres, type TestPostgres } from "../support/postgres.js";

const missing = postgresMissing();
let postgres: TestPostgres | undefined;
let store: FleetStore | undefined;
const testbed = new FleetTestbed();
const leases: WorkerLease[] = [];
const warmSets: WarmSessions[] = [];

// Every turn answers with the session's user texts it was sent: the history shows in the answer.
const echo = (request: RecordedRequest) =>
  reply(
    `seen: ${inputTexts(request)
      .filter((text) => text.startsWith("turn"))
      .join(" | ")}`,
  );

before(async () => {
  if (missing) return;
  postgres = await startPostgres();
  store = await FleetStore.open(postgres.url);
});

after(async () => {
  for (const warm of warmSets) await warm.close();
  for (const lease of leases) await lease.end().catch(() => lease.stopTimers());
  await store?.close();
  await testbed.close();
  postgres?.stop();
});

/** A worker "machine": its project copy, a live lease and warm sessions (`idleMs` unused). */
async function machine(name: string, project: string, idleMs = 60_000): Promise<AttemptContext> {
  const lease = await WorkerLease.start({
    pool: (store as FleetStore).pool,
    name,
    leaseMs: 60_000,
    queueWorkerIds: () => [],
    onLost: () => undefined,
  });
  leases.push(lease);
  const warm = new WarmSessions(4, idleMs, () => undefined);
  warmSets.push(warm);
  return {
    name,
    project,
    aspHome: path.join(project, ".asp"),
    epoch: lease.epoch,
    leaseSignal: new AbortController().signal,
    running: new Map(),
    warm,
    log: () => undefined,
  };
}

/**
 * Submits turn `n` of `session` and runs it on `context` (as a worker runs an attempt), or leaves
 * it to the worker processes without one; resolves with its result once it ended.
 */
async function turn(session: string, n: number, context?: AttemptContext) {
  const run = await submitTurn({
    store: store as FleetStore,
    externalSessionId: session,
    externalRunId: `${session}-${n}`,
    target: "dev",
    prompt: `turn ${n}`,
  });
  try {
    if (context) await runFleetAttempt(store as FleetStore, run.runId, context);
    return await run.result();
  } finally {
    await run.close();
  }
}

const homeOf = (context: AttemptContext, session: string) =>
  sessionHomeDir(context.aspHome, session);

describe("warm sessions", { skip: missing }, () => {
  it("a session's next turn here runs on the codex its last turn left open", async () => {
    const model = await ScriptedModel.start({ responses: [echo, echo, echo] });
    try {
      const [project] = await testbed.projectCopies(1, model);
      const here = await machine("warm-a", project as string);
      const home = homeOf(here, "kept");
      assert.deepEqual(await turn("kept", 1, here), { success: true, finalOutput: "seen: turn 1" });
      const [pid] = await codexProcesses(home);
      assert.ok(pid, "the session's codex is still up after its turn");
      assert.equal((await turn("kept", 2, here)).finalOutput, "seen: turn 1 | turn 2");
      assert.equal((await turn("kept", 3, here)).finalOutput, "seen: turn 1 | turn 2 | turn 3");
      assert.deepEqual(await codexProcesses(home), [pid], "one codex ran all three turns");
      await here.warm?.close();
      assert.deepEqual(await codexGone(home, 5_000), [], "closing the warm sessions ends codex");
    } finally {
      await model.close();
    }
  });

  it("a session another worker moved on is not continued on the stale codex", async () => {
    const model = await ScriptedModel.start({ responses: [echo, echo, echo] });
    try {
      const [first, second] = await testbed.projectCopies(2, model);
      const a = await machine("warm-b1", first as string);
      const b = await machine("warm-b2", second as string);
      assert.equal((await turn("moved", 1, a)).finalOutput, "seen: turn 1");
      const [stale] = await codexProcesses(homeOf(a, "moved"));
      assert.ok(stale);
      assert.equal((await turn("moved", 2, b)).finalOutput, "seen: turn 1 | turn 2");
      // Back on the first machine: its codex knows only turn 1, so it must not run turn 3.
      assert.equal((await turn("moved", 3, a)).finalOutput, "seen: turn 1 | turn 2 | turn 3");
      const now = await codexProcesses(homeOf(a, "moved"));
      assert.equal(now.length, 1);
      assert.notEqual(now[0], stale, "the stale codex was closed and a new one resumed the thread");
      const versions = (await (store as FleetStore).getSession("moved"))?.version;
      assert.equal(versions, 3);
    } finally {
      await model.close();
    }
  });

  it("a failed turn keeps nothing open; an idle one is closed after its idle time", async () => {
    const model = await ScriptedModel.start({
      responses: [httpError(400, { message: "bad request" }), echo],
    });
    try {
      const [project] = await testbed.projectCopies(1, model);
      const here = await machine("warm-c", project as string, 300);
      const failed = await turn("idle", 1, here);
      assert.equal(failed.success, false);
      assert.deepEqual(
        await codexGone(homeOf(here, "idle"), 5_000),
        [],
        "no codex after a failure",
      );
      assert.equal((await turn("idle", 2, here)).success, true);
      assert.deepEqual(
        await codexGone(homeOf(here, "idle"), 5_000),
        [],
        "closed once idle for its idle time",
      );
    } finally {
      await model.close();
    }
  });
});

describe("warm sessions of a worker process", { skip: missing }, () => {
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    it(`a worker stopped by ${signal} leaves no warm codex behind`, async () => {
      const model = await ScriptedModel.start({ responses: [echo] });
      try {
        const [project] = await testbed.projectCopies(1, model);
        const url = (postgres as TestPostgres).url;
        const worker = testbed.startWorker(url, project as string, `warm-${signal}`);
        await testbed.taking(worker);
        assert.equal((await turn(`stopped-${signal}`, 1)).finalOutput, "seen: turn 1");
        const home = sessionHomeDir(path.join(project as string, ".asp"), `stopped-${signal}`);
        assert.equal((await codexProcesses(home)).length, 1, "the session is kept warm");
        worker.child.kill(signal);
        await worker.closed;
        assert.deepEqual(await codexGone(home, 10_000), [], "its codex ended with the worker");
      } finally {
        await model.close();
      }
    });
  }
});

describe("a session's next turn and its warm worker", { skip: missing }, () => {
  /** Three worker processes (one turn at a time each), taking turns. */
  async function threeWorkers(model: ScriptedModel, prefix: string) {
    const url = (postgres as TestPostgres).url;
    const projects = await testbed.projectCopies(3, model);
    const workers = projects.map((project, n) =>
      testbed.startWorker(url, project, `${prefix}-${n}`, ["--concurrency", "1"]),
    );
    for (const worker of workers) await testbed.taking(worker);
    return workers;
  }

  const workerOf = async (runId: string) =>
    (
      await fleetRows(
        (postgres as TestPostgres).url,
        "SELECT worker FROM codex_harness_fleet_runs WHERE run_id = $1",
        [runId],
      )
    )[0]?.worker as string;

  it("goes back to the worker that keeps it warm, though others are free", async () => {
    const model = await ScriptedModel.start({ responses: [echo, echo, echo, echo] });
    try {
      await threeWorkers(model, "back");
      assert.equal((await turn("back", 1)).finalOutput, "seen: turn 1");
      const first = await workerOf("back-1");
      for (const n of [2, 3, 4]) {
        // The warm worker is free again (its last job done), as the other two are: on a loaded
        // machine it may still be finishing the last turn past the moment a turn is kept for it.
        await eventually(
          "the last turn's job done",
          async () =>
            (
              await fleetRows(
                (postgres as TestPostgres).url,
                "SELECT 1 FROM graphile_worker.jobs WHERE key = $1",
                [`back-${n - 1}`],
              )
            ).length === 0,
        );
        assert.equal((await turn("back", n)).success, true);
        // Three free workers race for each turn: without affinity, all three land on the first
        // one's worker by chance about once in 27.
        assert.equal(await workerOf(`back-${n}`), first, `turn ${n} ran where the session is warm`);
      }
      const [session] = await fleetRows(
        (postgres as TestPostgres).url,
        "SELECT warm_worker FROM codex_harness_fleet_sessions WHERE session_id = 'back'",
      );
      assert.equal(session?.warm_worker, first);
    } finally {
      await testbed.stopWorkers();
      await model.close();
    }
  });

  it("goes to another worker, soon, when the warm one is paused", async () => {
    const model = await ScriptedModel.start({ responses: [echo, echo] });
    try {
      const workers = await threeWorkers(model, "paused");
      assert.equal((await turn("paused", 1)).finalOutput, "seen: turn 1");
      const warm = await workerOf("paused-1");
      const index = Number(warm.split("-").at(-1));
      workers[index]?.child.kill("SIGSTOP");
      const started = performance.now();
      const second = await turn("paused", 2);
      const waited = performance.now() - started;
      assert.equal(second.finalOutput, "seen: turn 1 | turn 2", "resumed from the stored thread");
      assert.notEqual(await workerOf("paused-2"), warm);
      // Kept for the warm worker 0.5 s, then taken at the next fetch (a poll a second): the turn
      // itself takes a cold codex start besides.
      assert.ok(waited < 8_000, `the turn ended ${Math.round(waited)} ms after it was submitted`);
    } finally {
      await testbed.stopWorkers();
      await model.close();
    }
  });
});

describe("which sessions a worker leaves to the one that keeps them warm", {
  skip: missing,
}, () => {
  const sql = (query: string, params: unknown[] = []) =>
    fleetRows((postgres as TestPostgres).url, query, params);
  /** The sessions named `prefix`... that `worker` is to leave alone in its next fetch. */
  const leftAlone = async (worker: string, prefix = "aff-") =>
    (await sessionsToLeave(store as FleetStore, worker))
      .map((flag) => flag.replace("codex-harness-session:", ""))
      .filter((session) => session.startsWith(prefix))
      .sort();
  const run = (runId: string, session: string, status: string, worker: string | null, age = 0) =>
    sql(
      `INSERT INTO codex_harness_fleet_runs (run_id, session_id, request, status, worker, created_at)
       VALUES ($1, $2, '{}'::jsonb, $3, $4, now() - $5 * interval '1 millisecond')`,
      [runId, session, status, worker, age],
    );

  it("names sessions, so a turn queued after it asked is covered; a turn that waited is not", async () => {
    await machine("aff-warm", "/nowhere");
    await machine("aff-me", "/nowhere");
    await machine("aff-gone", "/nowhere");
    await sql(
      "UPDATE codex_harness_fleet_workers SET heartbeat_at = now() - interval '1 hour' WHERE name = 'aff-gone'",
    );
    for (const [session, worker] of [
      ["aff-nothing-queued", "aff-warm"],
      ["aff-young", "aff-warm"],
      ["aff-waited", "aff-warm"],
      ["aff-mine", "aff-me"],
      ["aff-on-gone", "aff-gone"],
    ]) {
      await sql(
        "INSERT INTO codex_harness_fleet_sessions (session_id, harness, warm_worker) VALUES ($1, 'codex', $2)",
        [session, worker],
      );
    }
    // Stamped a minute ahead: young for the whole test, however slow the machine is.
    await run("aff-young-1", "aff-young", "queued", null, -60_000);
    await run("aff-waited-1", "aff-waited", "queued", null, AFFINITY_MS + 500);
    assert.deepEqual(await leftAlone("aff-me"), ["aff-nothing-queued", "aff-young"]);
    assert.deepEqual(await leftAlone("aff-warm"), ["aff-mine"], "its own are its to take");

    // A turn running on the warm worker: its session stays there; the warm worker's others go
    // to whoever is free, as it is busy.
    await run("aff-running-1", "aff-running", "running", "aff-warm");
    assert.deepEqual(await leftAlone("aff-me"), ["aff-running"]);
    await sql(
      "UPDATE codex_harness_fleet_runs SET status = 'completed' WHERE run_id = 'aff-running-1'",
    );

    await forgetWarm(store as FleetStore, "aff-warm", "aff-nothing-queued");
    assert.deepEqual(await leftAlone("aff-me"), ["aff-young"]);
    await forgetWarm(store as FleetStore, "aff-me", "aff-young");
    assert.deepEqual(
      await leftAlone("aff-me"),
      ["aff-young"],
      "only rows naming the worker change",
    );
    await forgetWarm(store as FleetStore, "aff-warm");
    assert.deepEqual(await leftAlone("aff-me"), []);
    const [mine] = await sql(
      "SELECT warm_worker FROM codex_harness_fleet_sessions WHERE session_id = 'aff-mine'",
    );
    assert.equal(mine?.warm_worker, "aff-me");
  });

  it("lets a worker take its warm session's waiting turn before other young ones, not old ones", async () => {
    await machine("pref-me", "/nowhere");
    await machine("pref-other", "/nowhere");
    await sql(
      "INSERT INTO codex_harness_fleet_sessions (session_id, harness, warm_worker) VALUES ('pref-mine', 'codex', 'pref-me')",
    );
    await run("pref-cold-1", "pref-cold", "queued", null, 100);
    await run("pref-old-1", "pref-old", "queued", null, WARM_FIRST_MS + 1_000);
    assert.deepEqual(await leftAlone("pref-me", "pref-"), [], "no turn of its own waits");
    await run("pref-mine-2", "pref-mine", "queued", null);
    assert.deepEqual(await leftAlone("pref-me", "pref-"), ["pref-cold"]);
    assert.deepEqual(await leftAlone("pref-other", "pref-"), ["pref-mine"], "kept for pref-me");
    // The session's turn before it runs elsewhere: the waiting one cannot be taken yet, so
    // nothing else waits for it (and the session is now pref-other's to go on with).
    await run("pref-mine-1", "pref-mine", "running", "pref-other");
    assert.deepEqual(await leftAlone("pref-me", "pref-"), ["pref-mine"]);
  });
});
