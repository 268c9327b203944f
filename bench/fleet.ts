// Benchmark: the fleet on a real PostgreSQL (Debian's, started like the tests') — turns per second
// with 1, 2 and 4 worker processes, and what the queue adds to a turn against a direct runTurn.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { FleetStore } from "../src/fleet/store.js";
import { submitTurn } from "../src/fleet/submit.js";
import { runTurn } from "../src/session/run-turn.js";
import { reply } from "../src/testing/script.js";
import { ScriptedModel } from "../src/testing/scripted-model.js";
import { type StartedCli, startCli } from "../test/support/cli.js";
import { postgresMissing, startPostgres } from "../test/support/postgres.js";
import { scriptedProjectCopies } from "../test/support/scripted-project.js";
import type { Row, Section } from "./report.js";
import { formatMs, formatRatio, median, since } from "./stats.js";

const SESSIONS = 8;
const TURNS = 2;
const LATENCY_TURNS = 6;

async function startWorkers(url: string, dirs: string[]): Promise<StartedCli[]> {
  const workers = dirs.map((dir, n) =>
    startCli(["worker", "--store", url, "--project", dir, "--name", `bench-${n}`]),
  );
  for (const worker of workers) {
    while (!/is taking turns/.test(worker.output.stderr)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return workers;
}

async function stopWorkers(workers: StartedCli[]): Promise<void> {
  for (const worker of workers) worker.child.kill("SIGTERM");
  await Promise.all(workers.map((worker) => worker.closed));
}

/** SESSIONS x TURNS turns submitted at once: turns per second over `count` workers. */
async function throughput(
  url: string,
  root: string,
  count: number,
  round: string,
): Promise<number> {
  const model = await ScriptedModel.start({
    responses: Array.from({ length: SESSIONS * TURNS }, () => reply("ok")),
  });
  const workers = await startWorkers(
    url,
    await scriptedProjectCopies(path.join(root, round), model, count),
  );
  const store = await FleetStore.open(url);
  try {
    const start = performance.now();
    await Promise.all(
      Array.from({ length: SESSIONS }, async (_, s) => {
        for (let t = 0; t < TURNS; t++) {
          const run = await submitTurn({
            store,
            externalSessionId: `${round}-s${s}`,
            externalRunId: `${round}-s${s}-t${t}`,
            target: "dev",
            prompt: "go",
          });
          const result = await run.result();
          if (!result.success) throw new Error(`fleet turn failed: ${result.error?.message}`);
        }
      }),
    );
    return (SESSIONS * TURNS) / (since(start) / 1000);
  } finally {
    await store.close();
    await stopWorkers(workers);
    await model.close();
  }
}

/** One session's turns, one after another: each turn's latency through the fleet, and directly. */
async function latency(
  url: string,
  root: string,
): Promise<{ fleet: number[]; direct: number[]; queue: number[] }> {
  const model = await ScriptedModel.start({
    responses: Array.from({ length: LATENCY_TURNS * 2 }, () => reply("ok")),
  });
  const [workerProject, directProject] = await scriptedProjectCopies(
    path.join(root, "latency"),
    model,
    2,
  );
  const workers = await startWorkers(url, [workerProject as string]);
  const store = await FleetStore.open(url);
  const fleet: number[] = [];
  const direct: number[] = [];
  try {
    for (let t = 0; t < LATENCY_TURNS; t++) {
      const start = performance.now();
      const run = await submitTurn({
        store,
        externalSessionId: "latency",
        externalRunId: `latency-${t}`,
        target: "dev",
        prompt: "go",
      });
      await run.result();
      fleet.push(since(start));
      const begin = performance.now();
      const response = await runTurn({
        externalSessionId: "direct",
        externalRunId: `direct-${t}`,
        aspHome: path.join(directProject as string, ".asp"),
        spec: { target: { targetName: "dev", targetDir: directProject as string } },
        harness: "codex",
        cwd: directProject as string,
        prompt: "go",
        callbacks: { onEvent: () => undefined },
      });
      if (!response.result.success) throw new Error("direct turn failed");
      direct.push(since(begin));
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query(
      `SELECT extract(epoch FROM started_at - created_at) * 1000 AS ms FROM codex_harness_fleet_runs
       WHERE run_id LIKE 'latency-%'`,
    );
    await client.end();
    return { fleet, direct, queue: rows.map((row) => Number(row.ms)) };
  } finally {
    await store.close();
    await stopWorkers(workers);
    await model.close();
  }
}

function p99(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] as number;
}

export async function benchFleet(): Promise<Section> {
  const missing = postgresMissing();
  if (missing) return { rows: [], notes: [`fleet: skipped (${missing})`] };
  const postgres = await startPostgres();
  const root = await mkdtemp(path.join(tmpdir(), "codex-harness-bench-fleet-"));
  try {
    const rates = new Map<number, number>();
    for (const count of [1, 2, 4])
      rates.set(count, await throughput(postgres.url, root, count, `r${count}`));
    const { fleet, direct, queue } = await latency(postgres.url, root);
    const one = rates.get(1) as number;
    const rows: Row[] = [...rates].map(([count, rate]) => ({
      benchmark: `fleet, ${SESSIONS} sessions x ${TURNS} turns`,
      variant: `${count} worker${count === 1 ? "" : "s"}`,
      median: `${rate.toFixed(2)} turns/s`,
      best: "",
      vsFloor: formatRatio(rate, one),
      target: "",
      pass: undefined,
    }));
    rows.push(
      {
        benchmark: "fleet, one turn",
        variant: "submitTurn -> result (1 worker)",
        median: `${formatMs(median(fleet))} ms`,
        best: `queue wait: median ${formatMs(median(queue))} ms, p99 ${formatMs(p99(queue))} ms`,
        vsFloor: formatRatio(median(fleet), median(direct)),
        target: "",
        pass: undefined,
      },
      {
        benchmark: "fleet, one turn",
        variant: "runTurn, direct (floor)",
        median: `${formatMs(median(direct))} ms`,
        best: "",
        vsFloor: "1.00x",
        target: "",
        pass: undefined,
      },
    );
    const notes = [
      `fleet: turns/s ${[...rates].map(([count, rate]) => `${count} workers ${rate.toFixed(2)}`).join(", ")} (2 CPUs: more workers than cores only queue)`,
      `fleet: one turn through the queue ${fleet.map((ms) => formatMs(ms)).join(", ")} ms; direct runTurn ${direct.map((ms) => formatMs(ms)).join(", ")} ms; submit -> start ${queue.map((ms) => formatMs(ms)).join(", ")} ms`,
    ];
    return { rows, notes };
  } finally {
    postgres.stop();
    await rm(root, { recursive: true, force: true });
  }
}
