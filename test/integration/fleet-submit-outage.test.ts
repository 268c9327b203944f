// `codex-harness submit` through a dropped PostgreSQL connection (issue 37), on the real PostgreSQL
// and codex: a proxy between submit and the database cuts the connection as the run is queued —
// before the statement reaches the server, or after it committed with its answer lost. Either
// way the run is recorded and run once and submit exits 0. A database it cannot reach within
// --outage-timeout ends submit with one error saying what to check.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, it } from "node:test";
import { reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { runCli } from "../support/cli.js";
import { fleetForFile, fleetRows } from "../support/fleet.js";
import { type ProxyWatch, startTcpProxy } from "../support/tcp-proxy.js";

const { missing, url, testbed } = fleetForFile();

/** The name of the statement that records a run and queues its job (queue.ts). */
const QUEUE_STATEMENT = "codex-harness-queue-run";
/** PostgreSQL's ReadyForQuery when idle: the end of a statement's answer, after its commit. */
const READY_IDLE = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);

let model: ScriptedModel;

before(async () => {
  if (missing) return;
  model = await ScriptedModel.start({
    responses: Array.from({ length: 10 }, (_, n) => reply(`answer ${n + 1}`)),
  });
  const [project] = (await testbed.projectCopies(1, model)) as [string];
  // The worker reaches PostgreSQL directly: only submit goes through the proxies.
  await testbed.taking(testbed.startWorker(url(), project, "steady", ["--concurrency", "1"]));
});

after(async () => {
  await testbed.stopWorkers();
  await model?.close();
});

/** `url()` with its port replaced by `port`. */
function urlOnPort(port: number): string {
  const through = new URL(url());
  through.port = String(port);
  return through.href;
}

/** Submits `prompt` as run `runId` through a proxy watching with `watch`. */
async function submitThrough(runId: string, prompt: string, watch: ProxyWatch) {
  const target = new URL(url());
  const proxy = await startTcpProxy(
    { host: target.hostname, port: Number(target.port) },
    { watch },
  );
  try {
    return await runCli(
      [
        "submit",
        ...["--store", urlOnPort(proxy.port), "--target", "dev", "--session", runId],
        ...["--run-id", runId, "--outage-timeout", "60", prompt],
      ],
      { timeoutMs: 120_000 },
    );
  } finally {
    await proxy.close();
  }
}

/** The run as recorded, with how many rows and `complete` events it has. */
async function recorded(runId: string): Promise<Record<string, unknown>> {
  const rows = await fleetRows(
    url(),
    `SELECT r.status, r.attempts, (SELECT count(*) FROM codex_harness_fleet_runs WHERE run_id = $1)
         AS rows,
       (SELECT count(*) FROM codex_harness_fleet_events e
        WHERE e.run_id = r.run_id AND e.event->>'type' = 'complete') AS completes
     FROM codex_harness_fleet_runs r WHERE r.run_id = $1`,
    [runId],
  );
  assert.equal(rows.length, 1, `run ${runId} is recorded`);
  const row = rows[0] as Record<string, unknown>;
  return { ...row, rows: Number(row.rows), completes: Number(row.completes) };
}

describe("submit through a dropped connection", { skip: missing }, () => {
  it("cut as the run is queued, before the statement reaches PostgreSQL: queued once, exit 0", async () => {
    const requestsBefore = model.requests.length;
    let cuts = 0;
    const result = await submitThrough("cut-before", "first", (chunk, from) => {
      if (from === "client" && cuts === 0 && chunk.includes(QUEUE_STATEMENT)) {
        cuts++;
        return "cut";
      }
      return "forward";
    });
    assert.equal(cuts, 1, "the connection was cut as the run was queued");
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^answer \d+\n$/);
    assert.match(result.stderr, /waiting for the database/);
    assert.match(result.stderr, /run cut-before queued/);
    assert.deepEqual(await recorded("cut-before"), {
      status: "completed",
      attempts: 1,
      rows: 1,
      completes: 1,
    });
    assert.equal(model.requests.length - requestsBefore, 1, "the turn reached the model once");
  });

  it("cut after the run was queued and committed, its answer lost: recorded once, not twice, exit 0", async () => {
    const requestsBefore = model.requests.length;
    let armed: number | undefined;
    let cuts = 0;
    const result = await submitThrough("answer-lost", "second", (chunk, from, n) => {
      if (
        from === "client" &&
        cuts === 0 &&
        armed === undefined &&
        chunk.includes(QUEUE_STATEMENT)
      ) {
        armed = n;
        return "forward";
      }
      if (from === "server" && n === armed) {
        // Hold the answer back until all of it came (ReadyForQuery: committed), then cut.
        if (!chunk.subarray(-READY_IDLE.length).equals(READY_IDLE)) return "hold";
        armed = undefined;
        cuts++;
        return "cut";
      }
      return "forward";
    });
    assert.equal(cuts, 1, "the answer of the committed statement was lost");
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^answer \d+\n$/);
    assert.match(result.stderr, /waiting for the database/);
    // This submit's own first attempt queued it: not "submitted before".
    assert.match(result.stderr, /run answer-lost queued/);
    assert.doesNotMatch(result.stderr, /submitted before/);
    assert.deepEqual(await recorded("answer-lost"), {
      status: "completed",
      attempts: 1,
      rows: 1,
      completes: 1,
    });
    assert.equal(model.requests.length - requestsBefore, 1, "the turn reached the model once");
  });

  it("a database it cannot reach within --outage-timeout: one error saying what to check, exit 1", async () => {
    // A loopback port nothing listens on.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const startedAt = Date.now();
    const result = await runCli(
      [
        "submit",
        ...["--store", urlOnPort(port), "--target", "dev", "--session", "nowhere"],
        ...["--run-id", "nowhere-1", "--outage-timeout", "2", "hello"],
      ],
      { timeoutMs: 60_000 },
    );
    const tookMs = Date.now() - startedAt;
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, "");
    assert.ok(tookMs >= 2_000 && tookMs < 30_000, `gave up after ${tookMs} ms`);
    const lines = result.stderr.trim().split("\n");
    assert.equal(lines.length, 2, result.stderr);
    assert.match(
      lines[0] as string,
      /^waiting for the database \(connect ECONNREFUSED [\d.:]+\)…$/,
    );
    const at = `postgres://postgres@127\\.0\\.0\\.1:${port}/postgres`;
    assert.match(
      lines[1] as string,
      new RegExp(
        `^error: PostgreSQL was unreachable for \\d+ s \\(connect ECONNREFUSED [\\d.:]+\\); gave up\\. Check that the server at ${at} is up and reachable from here, then submit again with the same run id \\(--run-id nowhere-1\\): it is queued at most once\\.$`,
      ),
    );
  });
});
