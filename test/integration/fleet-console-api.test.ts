// The fleet's operator console API (`serve --fleet-store`, `/v1/fleet/…`) on a real PostgreSQL:
// keyset pages of 1,000 runs and 20 workers (complete, in order, each fast), cancel, retry, the
// scopes (read views, operate acts), the live stream, and a real run's events through a worker
// (real codex, ScriptedModel) resumed with Last-Event-ID.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import type { People } from "../../src/channels/people.js";
import { FleetConsoleQueries } from "../../src/fleet/console-queries.js";
import { migrateQueue } from "../../src/fleet/queue.js";
import { FleetStore } from "../../src/fleet/store.js";
import { submitTurn } from "../../src/fleet/submit.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { whileServing } from "../support/cli.js";
import { eventually } from "../support/eventually.js";
import { fleetForFile, fleetRows } from "../support/fleet.js";
import { openSse } from "../support/sse-messages.js";

const { missing, url, testbed } = fleetForFile();
let queries: FleetConsoleQueries;
let server: ChannelsServer;

/** `GET`/`POST` of the console's API as `token` (the runtime's by default). */
async function call(
  method: "GET" | "POST",
  path: string,
  token = server.token,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const STATUSES = ["queued", "running", "completed", "failed", "cancelled"];

/**
 * 1,000 runs in 40 sessions, three to a creation time (ties the keyset must break by run id),
 * statuses in turn; and 20 workers, the last 5 with lapsed leases.
 */
async function syntheticFleet(): Promise<void> {
  await fleetRows(
    url(),
    `INSERT INTO codex_harness_fleet_runs
       (run_id, session_id, request, status, attempts, worker, created_at, started_at, finished_at)
     SELECT 'run-' || lpad(i::text, 4, '0'), 'session-' || (i % 40),
       jsonb_build_object('externalSessionId', 'session-' || (i % 40), 'externalRunId', 'run-' || lpad(i::text, 4, '0'),
         'target', 'dev', 'prompt', 'prompt ' || i),
       (ARRAY['queued','running','completed','failed','cancelled'])[i % 5 + 1],
       CASE WHEN i % 5 = 0 THEN 0 ELSE 1 END,
       CASE WHEN i % 5 = 0 THEN NULL ELSE 'worker-' || lpad((i % 20)::text, 2, '0') END,
       timestamptz '2026-01-01 00:00:00+00' + (i / 3) * interval '1 second',
       CASE WHEN i % 5 = 0 THEN NULL ELSE timestamptz '2026-01-01 00:00:00+00' + (i / 3) * interval '1 second' + interval '2.5 seconds' END,
       CASE WHEN i % 5 IN (2, 3, 4) THEN timestamptz '2026-01-01 00:00:00+00' + (i / 3) * interval '1 second' + interval '10 seconds' END
     FROM generate_series(1, 1000) AS i;
     INSERT INTO codex_harness_fleet_workers (name, epoch, lease_ms, heartbeat_at)
     SELECT 'worker-' || lpad(n::text, 2, '0'), n, 30000,
       CASE WHEN n >= 15 THEN now() - interval '5 minutes' ELSE now() END
     FROM generate_series(0, 19) AS n;
     UPDATE codex_harness_fleet_runs r SET lease_epoch = w.epoch
     FROM codex_harness_fleet_workers w WHERE r.worker = w.name;
     INSERT INTO codex_harness_fleet_sessions (session_id, harness, thread_id, updated_at)
     SELECT 'session-' || n, 'codex', 'thread-' || n, timestamptz '2026-01-02 00:00:00+00' + (n / 2) * interval '1 minute'
     FROM generate_series(0, 39) AS n;
     ANALYZE codex_harness_fleet_runs; ANALYZE codex_harness_fleet_sessions`,
  );
}

/** Every page of `path` (a list with `items` and `nextCursor`), each timed. */
async function allPages(path: string): Promise<{ items: Record<string, unknown>[]; ms: number[] }> {
  const items: Record<string, unknown>[] = [];
  const ms: number[] = [];
  let cursor: string | undefined;
  do {
    const started = performance.now();
    const page = await call(
      "GET",
      `${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    ms.push(performance.now() - started);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    items.push(...(page.body.items as Record<string, unknown>[]));
    cursor = page.body.nextCursor as string | undefined;
  } while (cursor);
  return { items, ms };
}

describe("the fleet console's API", { skip: missing }, () => {
  before(async () => {
    if (missing) return;
    queries = await FleetConsoleQueries.open(url());
    const store = await FleetStore.open(url());
    await migrateQueue(store);
    await store.close();
    server = await startChannelsServer({
      dataDir: await testbed.tempDir("codex-harness-console-api-"),
      port: 0,
      fleetConsole: queries,
      sseHeartbeatMs: 1_000,
    });
  });

  after(async () => {
    await server?.close();
    await queries?.close();
  });

  beforeEach(async () => {
    if (missing) return;
    await fleetRows(
      url(),
      `TRUNCATE codex_harness_fleet_runs, codex_harness_fleet_workers, codex_harness_fleet_sessions CASCADE;
       DELETE FROM graphile_worker._private_jobs`,
    );
  });

  it("pages 1,000 runs and 20 workers by keyset: every run once, newest first, each page fast", async (t) => {
    await syntheticFleet();
    const expected = (
      await fleetRows(
        url(),
        "SELECT run_id FROM codex_harness_fleet_runs ORDER BY created_at DESC, run_id DESC",
      )
    ).map((row) => row.run_id);
    const all = await allPages("/v1/fleet/runs?limit=50");
    assert.equal(all.ms.length, 20, "20 pages of 50");
    assert.deepEqual(
      all.items.map((run) => run.runId),
      expected,
    );
    // Timed through HTTP on a machine busy with other test files: the median, and a loose bound.
    const sorted = [...all.ms].sort((a, b) => a - b);
    const median = sorted[10] as number;
    const slowest = sorted[19] as number;
    assert.ok(median < 60, `the median page took ${median.toFixed(1)} ms`);
    assert.ok(slowest < 1_000, `the slowest page took ${slowest.toFixed(1)} ms`);
    t.diagnostic(
      `pages of 50 of 1,000 runs: median ${median.toFixed(1)} ms, slowest ${slowest.toFixed(1)} ms`,
    );

    const failed = await allPages("/v1/fleet/runs?status=failed&limit=50");
    assert.deepEqual(
      failed.items.map((run) => run.runId),
      expected.filter((id) => Number(String(id).slice(4)) % 5 === 3),
    );
    assert.ok(failed.items.every((run) => run.status === "failed"));
    const first = failed.items[0] as Record<string, unknown>;
    assert.equal(first.waitMs, 2_500, "wait: queued until the attempt started (the DB's times)");
    assert.equal(first.durationMs, 7_500, "duration: started to finished");
    const session = await allPages("/v1/fleet/runs?session=session-7&limit=7");
    assert.equal(session.items.length, 25);
    assert.ok(session.items.every((run) => run.sessionId === "session-7"));

    // A late page of a status starts in the index at its cursor: it reads the rows after the cursor
    // (here 36), not the 164 of the pages before.
    const [plan] = await fleetRows(
      url(),
      `EXPLAIN (ANALYZE, FORMAT JSON) SELECT run_id FROM codex_harness_fleet_runs r
       WHERE r.status = 'failed' AND (r.created_at, r.run_id) < ('2026-01-01 00:01:00+00', 'run-0180')
       ORDER BY r.created_at DESC, r.run_id DESC LIMIT 51`,
    );
    const shown = JSON.stringify(plan);
    assert.match(shown, /"Index Name":"codex_harness_fleet_runs_by_status"/, "the keyset index");
    assert.match(
      shown,
      /"Index Cond":"\(\(status = 'failed'::text\) AND \(ROW\(created_at, run_id\) </,
    );
    const scanned =
      /"Index Name":"codex_harness_fleet_runs_by_status"[^}]*?"Actual Rows":(\d+)/.exec(shown);
    assert.ok(Number(scanned?.[1]) <= 102, `the index scan read ${scanned?.[1]} entries`);

    const summary = await call("GET", "/v1/fleet/summary");
    assert.deepEqual(summary.body.runs, Object.fromEntries(STATUSES.map((s) => [s, 200])));
    assert.equal(summary.body.workersAlive, 15);
    assert.ok((summary.body.oldestQueuedMs as number) > 0);

    const { body } = await call("GET", "/v1/fleet/workers");
    const workers = body.workers as {
      name: string;
      alive: boolean;
      running: string[];
      heartbeatAgeMs: number;
    }[];
    assert.equal(workers.length, 20);
    assert.deepEqual(
      workers.filter((w) => !w.alive).map((w) => w.name),
      ["worker-15", "worker-16", "worker-17", "worker-18", "worker-19"],
    );
    assert.ok(workers.filter((w) => !w.alive).every((w) => w.heartbeatAgeMs >= 299_000));
    assert.equal(
      workers.reduce((sum, w) => sum + w.running.length, 0),
      200,
      "each running run under its worker",
    );
    assert.ok((workers[1] as { running: string[] }).running.includes("run-0001"));

    const sessions = await allPages("/v1/fleet/sessions?limit=15");
    assert.equal(sessions.ms.length, 3);
    const expectedSessions = (
      await fleetRows(
        url(),
        "SELECT session_id FROM codex_harness_fleet_sessions ORDER BY updated_at DESC, session_id DESC",
      )
    ).map((row) => row.session_id);
    assert.deepEqual(
      sessions.items.map((s) => s.sessionId),
      expectedSessions,
    );
    const last = sessions.items.find((s) => s.sessionId === "session-7") as Record<string, unknown>;
    assert.deepEqual([last.lastRunId, last.lastRunStatus], ["run-0967", "completed"]);
    const detail = await call("GET", "/v1/fleet/sessions/session-7");
    assert.equal(detail.body.threadId, "thread-7");
    assert.equal((detail.body.runs as unknown[]).length, 25);
    assert.deepEqual(detail.body.approvals, []);

    assert.equal((await call("GET", "/v1/fleet/runs?cursor=nonsense")).status, 400);
    assert.equal((await call("GET", "/v1/fleet/runs?status=lost")).status, 400);
    assert.equal((await call("GET", "/v1/fleet/runs/none")).status, 404);
    assert.equal((await call("GET", "/v1/fleet/sessions/none")).status, 404);
  });

  it("cancels a queued run, retries failed and cancelled ones as <id>.retry-<n>; a read-only token may only look", async () => {
    await syntheticFleet();
    const people = server.people as People;
    await people.add({ id: "viewer", name: "Viewer" }).catch(() => undefined);
    const reader = (await people.issueToken("viewer", "read")).token;
    assert.equal((await call("GET", "/v1/fleet/summary", reader)).status, 200);
    const refused = await call("POST", "/v1/fleet/runs/run-0005/cancel", reader);
    assert.equal(refused.status, 403);
    assert.equal((refused.body.error as { code: string }).code, "missing_scope");
    assert.equal((await call("POST", "/v1/fleet/runs/run-0003/retry", reader)).status, 403);
    assert.equal((await call("GET", "/v1/fleet/summary", "bad-token")).status, 401);

    const cancelled = await call("POST", "/v1/fleet/runs/run-0005/cancel");
    assert.deepEqual(cancelled.body, { status: "cancelled", alreadyEnded: false });
    assert.equal((await call("GET", "/v1/fleet/runs/run-0005")).body.status, "cancelled");
    assert.deepEqual((await call("POST", "/v1/fleet/runs/run-0002/cancel")).body, {
      status: "completed",
      alreadyEnded: true,
    });
    assert.equal((await call("POST", "/v1/fleet/runs/nope/cancel")).status, 404);

    const retried = await call("POST", "/v1/fleet/runs/run-0003/retry");
    assert.equal(retried.status, 201);
    assert.deepEqual(
      [retried.body.runId, retried.body.status, retried.body.retryOf, retried.body.prompt],
      ["run-0003.retry-1", "queued", "run-0003", "prompt 3"],
    );
    const again = await call("POST", "/v1/fleet/runs/run-0003/retry");
    assert.equal(again.body.runId, "run-0003.retry-2");
    assert.equal(
      (await call("POST", "/v1/fleet/runs/run-0005/retry")).body.runId,
      "run-0005.retry-1",
    );
    const jobs = await fleetRows(url(), "SELECT key FROM graphile_worker.jobs ORDER BY key");
    assert.deepEqual(
      jobs.map((job) => job.key),
      ["run-0003.retry-1", "run-0003.retry-2", "run-0005.retry-1"],
      "each retry is queued for the workers",
    );
    const stored = await fleetRows(
      url(),
      "SELECT request->>'externalRunId' AS id FROM codex_harness_fleet_runs WHERE run_id = 'run-0003.retry-1'",
    );
    assert.equal(stored[0]?.id, "run-0003.retry-1");
    const notEnded = await call("POST", "/v1/fleet/runs/run-0002/retry");
    assert.equal(notEnded.status, 409);
    assert.equal((notEnded.body.error as { code: string }).code, "not_retryable");
    assert.equal((await call("POST", "/v1/fleet/runs/run-0001/retry")).status, 409, "running");
  });

  it("streams run changes (coalesced ids and statuses) and worker diffs", async () => {
    const stream = await openSse(`${server.url}/v1/fleet/stream`, {
      authorization: `Bearer ${server.token}`,
    });
    try {
      assert.equal(stream.status, 200);
      await fleetRows(
        url(),
        `INSERT INTO codex_harness_fleet_workers (name, epoch, lease_ms, heartbeat_at) VALUES ('short', 1, 1500, now())`,
      );
      await fleetRows(
        url(),
        `INSERT INTO codex_harness_fleet_runs (run_id, session_id, request)
         SELECT 'live-' || i, 's', '{}' FROM generate_series(1, 30) AS i`,
      );
      await fleetRows(
        url(),
        "UPDATE codex_harness_fleet_runs SET status = 'running' WHERE run_id = 'live-7'",
      );
      const running = await stream.waitFor(
        "live-7 running",
        (message) =>
          message.event === "run" &&
          (message.data as { run_id: string; status: string }[]).some(
            (run) => run.run_id === "live-7" && run.status === "running",
          ),
      );
      assert.ok(running);
      const runMessages = stream.received.filter((message) => message.event === "run");
      assert.ok(runMessages.length <= 3, `31 changes in ${runMessages.length} messages`);
      const seen = new Set(
        runMessages.flatMap((m) => (m.data as { run_id: string }[]).map((r) => r.run_id)),
      );
      assert.equal(seen.size, 30, "every queued run named");
      await stream.waitFor(
        "the worker appears",
        (message) =>
          message.event === "workers" &&
          (message.data as { changed: string[] }).changed.includes("short"),
      );
      await fleetRows(url(), "DELETE FROM codex_harness_fleet_workers WHERE name = 'short'");
      await stream.waitFor(
        "the worker is gone",
        (message) =>
          message.event === "workers" &&
          (message.data as { gone: string[] }).gone.includes("short"),
      );
    } finally {
      stream.close();
    }
  });

  it("a stream whose token is revoked ends at its next ping", async () => {
    const people = server.people as People;
    await people.add({ id: "watcher", name: "Watcher" });
    const issued = await people.issueToken("watcher", "read");
    const auth = { authorization: `Bearer ${issued.token}` };
    await fleetRows(
      url(),
      "INSERT INTO codex_harness_fleet_runs (run_id, session_id, request) VALUES ('watched', 's', '{}')",
    );
    const live = await openSse(`${server.url}/v1/fleet/stream`, auth);
    const events = await openSse(`${server.url}/v1/fleet/runs/watched/events`, auth);
    assert.deepEqual([live.status, events.status], [200, 200]);
    await people.revoke(issued.record.id);
    const revoked = Date.now();
    await Promise.all([live.ended(5_000), events.ended(5_000)]);
    assert.ok(Date.now() - revoked < 2_500, "within a heartbeat (1 s here)");
  });

  it("a real run's events stream with their sequence as id, and resume after Last-Event-ID", async () => {
    const model = await ScriptedModel.start({
      responses: [execCommand("echo console", { callId: "call_console" }), reply("All done.")],
    });
    try {
      const [project] = await testbed.projectCopies(1, model);
      await testbed.taking(testbed.startWorker(url(), project as string, "console-worker"));
      const live = await openSse(`${server.url}/v1/fleet/stream`, {
        authorization: `Bearer ${server.token}`,
      });
      const run = await submitTurn({
        store: url(),
        externalSessionId: "real-session",
        externalRunId: "real-run",
        target: "dev",
        prompt: "say it",
      });
      assert.deepEqual(await run.result(), { success: true, finalOutput: "All done." });
      await run.close();
      await live.waitFor(
        "the run's completion on the stream",
        (message) =>
          message.event === "run" &&
          (message.data as { run_id: string; status: string }[]).some(
            (one) => one.run_id === "real-run" && one.status === "completed",
          ),
      );
      live.close();
      const auth = { authorization: `Bearer ${server.token}` };
      const whole = await openSse(`${server.url}/v1/fleet/runs/real-run/events`, auth);
      await whole.ended();
      const seqs = whole.received.map((message) => Number(message.id));
      assert.deepEqual(
        seqs,
        seqs.map((_, i) => i + 1),
        "ids are the sequences, all of them",
      );
      const types = whole.received.map(
        (message) => (message.data as { event: { type: string } }).event.type,
      );
      assert.ok(types.includes("tool_call"));
      assert.equal(types.at(-1), "complete", "the stream ends with the run");
      const resumed = await openSse(`${server.url}/v1/fleet/runs/real-run/events`, {
        ...auth,
        "last-event-id": "2",
      });
      await resumed.ended();
      assert.deepEqual(
        resumed.received.map((message) => Number(message.id)),
        seqs.slice(2),
      );
      const detail = await call("GET", "/v1/fleet/runs/real-run");
      assert.deepEqual(
        [detail.body.status, detail.body.worker, detail.body.attempts],
        ["completed", "console-worker", 1],
      );
      assert.equal((await call("GET", "/v1/fleet/runs/nope/events")).status, 404);
    } finally {
      await testbed.stopWorkers();
      await model.close();
    }
  });

  it("a run's 3 MB of events are sent at the pace the client reads, on one connection", async () => {
    await fleetRows(
      url(),
      `INSERT INTO codex_harness_fleet_runs (run_id, session_id, request, status)
       VALUES ('big-run', 's', '{}', 'completed');
       INSERT INTO codex_harness_fleet_events (run_id, seq, event)
       SELECT 'big-run', n, CASE WHEN n = 3001 THEN '{"type":"complete","result":{"success":true}}'::jsonb
         ELSE jsonb_build_object('type', 'log', 'level', 'info', 'message', repeat('x', 1000)) END
       FROM generate_series(1, 3001) AS n`,
    );
    const stream = await openSse(`${server.url}/v1/fleet/runs/big-run/events`, {
      authorization: `Bearer ${server.token}`,
    });
    await stream.ended(30_000);
    assert.equal(stream.received.length, 3001, "not cut off past its 1 MiB bound");
    assert.equal(stream.received.at(-1)?.id, "3001");
  });

  it("codex-harness serve --fleet-store serves the console's page and API beside the inbox", async () => {
    const dataDir = await testbed.tempDir("codex-harness-console-cli-");
    const output = await whileServing(
      ["serve", "--port", "0", "--data-dir", dataDir, "--fleet-store", url()],
      process.env,
      async ({ url: served, token, output }) => {
        // Printed after the token line, which is all `whileServing` waits for: it may come later.
        const printed = await eventually(
          "the fleet console's line",
          () => /fleet console: (\S+)/.exec(output.stdout)?.[1],
        );
        assert.equal(printed, `${served}/fleet#token=${encodeURIComponent(token)}`);
        const page = await fetch(`${served}/fleet`);
        assert.equal(page.status, 200);
        assert.match(page.headers.get("content-security-policy") ?? "", /script-src 'self'/);
        assert.equal(page.headers.get("cache-control"), "no-store");
        assert.match(await page.text(), /<script src="\/fleet.js" defer>/);
        const script = await fetch(`${served}/fleet.js`);
        assert.match(script.headers.get("content-type") ?? "", /javascript/);
        const summary = await fetch(`${served}/v1/fleet/summary`, {
          headers: { authorization: `Bearer ${token}` },
        });
        assert.equal(summary.status, 200);
        assert.equal(((await summary.json()) as { workersAlive: number }).workersAlive, 0);
      },
    );
    assert.equal(output.stderr, "");
  });

  it("without --fleet-store there is no console", async () => {
    const server = await startChannelsServer({
      dataDir: await testbed.tempDir("codex-harness-console-none-"),
      port: 0,
    });
    try {
      assert.equal(server.fleetConsoleUrl, undefined);
      assert.equal((await fetch(`${server.url}/fleet`)).status, 404);
      const api = await fetch(`${server.url}/v1/fleet/summary`, {
        headers: { authorization: `Bearer ${server.token}` },
      });
      assert.equal(api.status, 404);
      assert.match(JSON.stringify(await api.json()), /--fleet-store/);
    } finally {
      await server.close();
    }
  });
});
