// Benchmark: the fleet on a real PostgreSQL (Debian's, started like the tests') — turns per second
// with 1, 2, 4 and 8 worker processes on a model that takes a second per answer (as real ones do),
// and what the queue itself adds to a turn: submit -> start, and result -> seen by submitTurn. The
// scaling's floor is the same burst with no queue at all (fleet-floor.ts), in the same rounds.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { FleetStore } from "../src/fleet/store.js";
import { submitTurn } from "../src/fleet/submit.js";
import { runTurn } from "../src/session/run-turn.js";
import { reply, response, type ScriptedMessage } from "../src/testing/script.js";
import { ScriptedModel } from "../src/testing/scripted-model.js";
import { type StartedCli, startCli } from "../test/support/cli.js";
import { postgresMissing, startPostgres } from "../test/support/postgres.js";
import { scriptedProjectCopies } from "../test/support/scripted-project.js";
import { floorPhase } from "./fleet-floor.js";
import { type PhaseResult, timePhase } from "./phase.js";
import type { Row, Section } from "./report.js";
import { formatFactor, formatMs, formatRatio, median, pairedRatio, since } from "./stats.js";

const SESSIONS = 8;
const TURNS = 2;
/** How long the scripted model takes to answer, as a real model does (seconds per response). */
const MODEL_LATENCY_MS = 1_000;
const WORKER_COUNTS = [1, 2, 4, 8];
/** How many sessions at a time the floor runs (no queue: codex processes driven directly). */
const FLOOR_LANES = [1, 4, 8];
/** Targets: 4 workers >= 3.5x one, 8 >= 6x one; the queue's own overhead <= 20 ms at p99. */
const SCALING_TARGETS = new Map([
  [4, 3.5],
  [8, 6],
]);
const OVERHEAD_TARGET_MS = 20;
const LATENCY_TURNS = 20;
/**
 * Turns submitted after a pause longer than pg's default idle timeout (10 s), as a person's next
 * turn comes: their time in the queue includes whatever reconnecting costs.
 */
const IDLE_TURNS = 3;
const IDLE_MS = 11_000;

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

/**
 * SESSIONS x TURNS turns submitted at once: turns per second over `count` workers, and how busy
 * the machine's CPUs were meanwhile (0–1; undefined where unknown).
 */
async function throughput(
  url: string,
  root: string,
  count: number,
  round: string,
): Promise<PhaseResult> {
  const model = await ScriptedModel.start({
    responses: Array.from({ length: SESSIONS * TURNS }, () =>
      response(reply("ok"), { delayMs: MODEL_LATENCY_MS }),
    ),
  });
  const workers = await startWorkers(
    url,
    await scriptedProjectCopies(path.join(root, round), model, count),
  );
  const store = await FleetStore.open(url);
  try {
    return await timePhase(SESSIONS * TURNS, async () => {
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
    });
  } finally {
    await store.close();
    await stopWorkers(workers);
    await model.close();
  }
}

/** An answer the model streams as this many deltas (a turn's events are mostly such deltas). */
const STREAMED_DELTAS = 400;
const STREAMED_TURNS = 5;

/**
 * One session's turns (`turns`, each answered with `answer`), one after another: each turn's
 * latency through the fleet, and directly.
 */
async function latency(
  url: string,
  root: string,
  name: string,
  turns: number,
  answer: () => ScriptedMessage,
  idleTurns = 0,
): Promise<{ fleet: number[]; direct: number[]; queue: number[]; seen: number[]; idle: number[] }> {
  const model = await ScriptedModel.start({
    responses: Array.from({ length: turns * 2 + idleTurns }, answer),
  });
  const [workerProject, directProject] = await scriptedProjectCopies(
    path.join(root, name),
    model,
    2,
  );
  const workers = await startWorkers(url, [workerProject as string]);
  const store = await FleetStore.open(url);
  const fleet: number[] = [];
  const direct: number[] = [];
  /** When submitTurn's result arrived, by run id (epoch ms, this machine's clock as PostgreSQL's). */
  const seenAt = new Map<string, number>();
  try {
    for (let t = 0; t < turns; t++) {
      const start = performance.now();
      const run = await submitTurn({
        store,
        externalSessionId: name,
        externalRunId: `${name}-${t}`,
        target: "dev",
        prompt: "go",
      });
      if (!(await run.result()).success) throw new Error("fleet turn failed");
      seenAt.set(`${name}-${t}`, Date.now());
      fleet.push(since(start));
      const begin = performance.now();
      const response = await runTurn({
        externalSessionId: `${name}-direct`,
        externalRunId: `${name}-direct-${t}`,
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
    for (let t = 0; t < idleTurns; t++) {
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      const run = await submitTurn({
        store,
        externalSessionId: name,
        externalRunId: `${name}-idle-${t}`,
        target: "dev",
        prompt: "go",
      });
      if (!(await run.result()).success) throw new Error("fleet turn failed");
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query(
      `SELECT run_id, extract(epoch FROM started_at - created_at) * 1000 AS queued,
              extract(epoch FROM finished_at) * 1000 AS finished
       FROM codex_harness_fleet_runs WHERE session_id = $1`,
      [name],
    );
    await client.end();
    const busy = rows.filter((row) => seenAt.has(row.run_id));
    return {
      fleet,
      direct,
      queue: busy.map((row) => Number(row.queued)),
      seen: busy.map((row) => (seenAt.get(row.run_id) as number) - Number(row.finished)),
      idle: rows.filter((row) => !seenAt.has(row.run_id)).map((row) => Number(row.queued)),
    };
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

/** The fleet's rows: `rounds` rounds of the 1, 2, 4 and 8 worker phases, then the queue's latency. */
export async function benchFleet(rounds: number): Promise<Section> {
  const missing = postgresMissing();
  if (missing) return { rows: [], notes: [`fleet: skipped (${missing})`] };
  const postgres = await startPostgres();
  const root = await mkdtemp(path.join(tmpdir(), "codex-harness-bench-fleet-"));
  try {
    // Each round runs every worker count once, in a rotated order: a phase of 16 turns is one
    // sample of a bursty schedule (which turns find their session warm), so one round says little.
    const rates = new Map(WORKER_COUNTS.map((count) => [count, [] as PhaseResult[]]));
    const floor = new Map(FLOOR_LANES.map((lanes) => [lanes, [] as PhaseResult[]]));
    const rotated = <T>(items: T[], round: number) => {
      const shift = round % items.length;
      return [...items.slice(shift), ...items.slice(0, shift)];
    };
    for (let round = 0; round < rounds; round++) {
      for (const count of rotated(WORKER_COUNTS, round)) {
        const phase = await throughput(postgres.url, root, count, `r${count}-${round}`);
        rates.get(count)?.push(phase);
      }
      for (const lanes of rotated(FLOOR_LANES, round)) {
        floor.get(lanes)?.push(await floorPhase(lanes, SESSIONS, TURNS, MODEL_LATENCY_MS));
      }
    }
    const { fleet, direct, queue, seen, idle } = await latency(
      postgres.url,
      root,
      "latency",
      LATENCY_TURNS,
      () => reply("ok"),
      IDLE_TURNS,
    );
    const words = Array.from({ length: STREAMED_DELTAS }, (_, n) => `w${n} `);
    const streamed = await latency(postgres.url, root, "streamed", STREAMED_TURNS, () =>
      reply(words.join(""), { deltas: words }),
    );
    const rateOf = (phases: PhaseResult[]) => phases.map((phase) => phase.rate);
    const busyOf = (phases: PhaseResult[]) => {
      const busy = phases.flatMap((phase) => (phase.busy === undefined ? [] : [phase.busy]));
      return busy.length === 0 ? "" : `CPU ${Math.round(median(busy) * 100)}% busy`;
    };
    const one = rateOf(rates.get(1) ?? []);
    const floorOne = rateOf(floor.get(1) ?? []);
    const benchmark = `fleet, ${SESSIONS} sessions x ${TURNS} turns, model ${MODEL_LATENCY_MS / 1000} s`;
    const rows: Row[] = [...rates].map(([count, phases]) => {
      const target = SCALING_TARGETS.get(count);
      const scaling = pairedRatio(rateOf(phases), one);
      const lanes = floor.get(count);
      const floorScaling = lanes
        ? ` (no queue: ${formatFactor(pairedRatio(rateOf(lanes), floorOne))})`
        : "";
      return {
        benchmark,
        variant: `${count} worker${count === 1 ? "" : "s"}`,
        median: `${median(rateOf(phases)).toFixed(2)} turns/s`,
        best: busyOf(phases),
        vsFloor: formatFactor(scaling),
        target: target === undefined ? "" : `>= ${target}x one worker${floorScaling}`,
        pass: target === undefined ? undefined : scaling >= target,
      };
    });
    rows.push(
      ...[...floor].map(
        ([lanes, phases]): Row => ({
          benchmark,
          variant: `no queue: ${lanes} session${lanes === 1 ? "" : "s"} at a time, codex driven directly (floor)`,
          median: `${median(rateOf(phases)).toFixed(2)} turns/s`,
          best: busyOf(phases),
          vsFloor: formatFactor(pairedRatio(rateOf(phases), floorOne)),
          target: "",
          pass: undefined,
        }),
      ),
    );
    const overhead = (name: string, samples: number[]): Row => ({
      benchmark: "fleet queue overhead",
      variant: name,
      median: `${formatMs(median(samples))} ms`,
      best: `p99 ${formatMs(p99(samples))} ms`,
      vsFloor: "",
      target: `p99 <= ${OVERHEAD_TARGET_MS} ms`,
      pass: p99(samples) <= OVERHEAD_TARGET_MS,
    });
    /** A turn through the queue against the same turn run directly. */
    const oneTurn = (benchmark: string, through: number[], floor: number[]): Row[] => [
      {
        benchmark,
        variant: "submitTurn -> result (1 worker)",
        median: `${formatMs(median(through))} ms`,
        best: "",
        vsFloor: formatRatio(median(through), median(floor)),
        target: "",
        pass: undefined,
      },
      {
        benchmark,
        variant: "runTurn, direct (floor)",
        median: `${formatMs(median(floor))} ms`,
        best: "",
        vsFloor: "1.00x",
        target: "",
        pass: undefined,
      },
    ];
    rows.push(
      overhead("submit -> started by a worker", queue),
      overhead("result recorded -> seen by submitTurn", seen),
      overhead(`submit -> started, after ${IDLE_MS / 1000} s idle (${IDLE_TURNS} turns)`, idle),
      ...oneTurn("fleet, one turn", fleet, direct),
      ...oneTurn(
        `fleet, one turn, answer in ${STREAMED_DELTAS} deltas`,
        streamed.fleet,
        streamed.direct,
      ),
    );
    const list = (samples: number[]) => samples.map((ms) => formatMs(ms)).join(", ");
    const notes = [
      `fleet: turns/s by round ${[...rates].map(([count, phases]) => `${count} workers ${phases.map((phase) => phase.rate.toFixed(2)).join(" / ")}`).join(", ")} (each answer takes the model ${MODEL_LATENCY_MS} ms)`,
      `fleet floor (no queue): turns/s by round ${[...floor].map(([lanes, phases]) => `${lanes} at a time ${phases.map((phase) => phase.rate.toFixed(2)).join(" / ")}`).join(", ")}`,
      `fleet: one turn through the queue ${list(fleet)} ms; direct runTurn ${list(direct)} ms`,
      `fleet: submit -> start ${list(queue)} ms; result -> seen ${list(seen)} ms; after ${IDLE_MS / 1000} s idle ${list(idle)} ms`,
      `fleet: a ${STREAMED_DELTAS}-delta answer through the queue ${list(streamed.fleet)} ms; direct ${list(streamed.direct)} ms`,
    ];
    return { rows, notes };
  } finally {
    postgres.stop();
    await rm(root, { recursive: true, force: true });
  }
}
