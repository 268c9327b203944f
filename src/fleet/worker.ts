// A fleet worker: takes turns from the PostgreSQL queue (graphile-worker; one named queue per
// session, so a session's turns run one at a time, in order, on whichever worker is free) and
// runs each with runTurn in this machine's copy of the project. It works in generations: a lease
// (with its epoch) and a queue runner. When the database goes away for longer than the lease, or a
// queue slot dies, the generation ends — its turns stop, its jobs go back — and the worker
// reconnects with backoff and jitter and starts the next one: never alive but idle.

import { EventEmitter } from "node:events";
import { hostname } from "node:os";
import path from "node:path";
import { loadDriver } from "../channels/drivers.js";
import { CodexHarnessError } from "../errors.js";
import type { Approvals } from "../events/approval-types.js";
import { backoffDelay, settlesWithin, sleep } from "../rpc/retry.js";
import type { PermissionHandler } from "../session/unified-types.js";
import type { CodexOptions } from "../turns/options.js";
import { forgetWarm, sessionsToLeave } from "./affinity.js";
import { countLeaseLost } from "./fleet-telemetry.js";
import { WorkerLease } from "./lease.js";
import { migrateQueue, quietLogger, TURN_TASK } from "./queue.js";
import { FleetStore } from "./store.js";
import {
  type AttemptContext,
  RunCancelledSignal,
  runFleetAttempt,
  WorkerStoppingSignal,
} from "./turn.js";
import { DEFAULT_WARM, WarmSessions } from "./warm-sessions.js";

/** How long a silent worker keeps its turns, by default. */
export const DEFAULT_LEASE_MS = 30_000;

/** Options of {@link startFleetWorker}. */
export interface FleetWorkerOptions {
  /** The PostgreSQL URL of the fleet (`postgres://…`). */
  store: string;
  /** This machine's copy of the project (`asp-targets.toml`), the same on every worker. */
  project: string;
  /** How many turns this worker runs at once (default 1). */
  concurrency?: number;
  /** The worker's name in runs and events (default `host:pid`); one live worker per name. */
  name?: string;
  /** Where session homes and records live here (default `<project>/.asp`). */
  aspHome?: string;
  codexPathOverride?: string;
  /** More options of the Codex each turn runs on (its `telemetry`; `config` overrides). */
  codex?: Pick<CodexOptions, "telemetry" | "config">;
  /** Decides command and file-change approvals the spaces' permissions leave open. */
  permissionHandler?: PermissionHandler;
  /** Answers the other requests (e.g. `channelsApprovals(…)`: a person, from the inbox). */
  approvals?: Approvals;
  /**
   * How long a worker may go without renewing its lease before its running turns are given to
   * other workers (ms, default 30 000). Its writes are refused from then on.
   */
  leaseMs?: number;
  /**
   * How many sessions this worker keeps warm (default 4; 0 keeps none): after a turn it recorded,
   * the session's codex stays open, so the session's next turn, if it comes here before another
   * worker moved the session on, skips codex's start and the thread's resume.
   */
  warmSessions?: number;
  /** How long a warm session's codex stays open unused (ms, default 120 000). */
  warmIdleMs?: number;
  /**
   * How long `stop()` lets running turns finish before it stops them at codex (ms, default
   * 30 000). A turn stopped so is not recorded: its run is retried on another worker.
   */
  drainMs?: number;
  /** Receives a line for each turn taken and ended, and for each outage (default: nothing). */
  onLog?: (line: string) => void;
}

/** A running worker. */
export interface FleetWorker {
  readonly name: string;
  /**
   * Stops taking turns, lets running ones finish for `drainMs`, stops those still running at codex
   * (their runs go back to the queue), and closes its connections.
   */
  stop(): Promise<void>;
  /**
   * Resolves when the worker stopped by `stop()`; rejects when it cannot go on (e.g. another live
   * worker has its name). Losing the database is not such a reason: it reconnects.
   */
  readonly done: Promise<void>;
}

/** How a generation ended. */
type Ending = { kind: "stop" } | { kind: "trouble"; error: Error };

/** Errors a worker cannot wait out: it exits non-zero with them. */
const FATAL = new Set(["worker_name_taken", "invalid_store"]);

/** The queue runner's connections, at least (graphile-worker's default). */
const QUEUE_POOL_SIZE = 10;

/** How long a queue runner in trouble is given to stop (its database may be gone). */
const STOP_MS = 15_000;

/** How long a stopping worker lets its running turns finish, by default. */
export const DEFAULT_DRAIN_MS = 30_000;

const RECONNECT = { maxRetries: Number.POSITIVE_INFINITY, initialDelayMs: 500, maxDelayMs: 10_000 };

/**
 * Starts a worker: it takes turns until stopped. Throws `store_failed` when PostgreSQL cannot be
 * used at start (a wrong URL is not waited out); later outages are ridden out.
 */
export async function startFleetWorker(options: FleetWorkerOptions): Promise<FleetWorker> {
  const warmSessions = options.warmSessions ?? DEFAULT_WARM.sessions;
  const warmIdleMs = options.warmIdleMs ?? DEFAULT_WARM.idleMs;
  WarmSessions.check(warmSessions, warmIdleMs);
  const graphile = await loadDriver("graphile-worker", undefined, "The fleet worker");
  const store = await FleetStore.open(options.store);
  const name = options.name ?? `${hostname()}:${process.pid}`;
  const project = path.resolve(options.project);
  const log = options.onLog ?? (() => undefined);
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS;
  const running = new Map<string, AbortController>();
  let requestStop: () => void = () => undefined;
  const stopRequested = new Promise<Ending>((resolve) => {
    requestStop = () => resolve({ kind: "stop" });
  });
  let stopping = false;

  /**
   * Starts one generation: a lease and a queue runner. Resolves once it takes turns; `ended`
   * resolves when it was stopped or ran into trouble, after its turns stopped and its jobs went.
   */
  async function startGeneration(): Promise<{ ended: Promise<Ending> }> {
    await migrateQueue(store);
    const slots = new Set<string>();
    const events = new EventEmitter() as import("graphile-worker").WorkerEvents;
    events.on("worker:create", ({ worker }) => slots.add(worker.workerId));
    let trouble: (error: Error) => void = () => undefined;
    const troubled = new Promise<Ending>((resolve) => {
      trouble = (error) => resolve({ kind: "trouble", error });
    });
    events.on("worker:fatalError", ({ error }) =>
      trouble(
        new CodexHarnessError(
          "queue_failed",
          `a queue slot of worker ${name} could not release its job (${(error as Error).message})`,
          { cause: error },
        ),
      ),
    );
    const leaseLost = new AbortController();
    const lease = await WorkerLease.start({
      pool: store.pool,
      name,
      leaseMs,
      queueWorkerIds: () => [...slots],
      ...(leaseEpoch === undefined ? {} : { previousEpoch: leaseEpoch }),
      onLost: (error) => {
        countLeaseLost();
        leaseLost.abort(error);
        trouble(error);
      },
      onRenewed: () => void stopCancelledRuns(store, name, lease.epoch, running),
    });
    // Remembered at once: a generation that fails to start after this may leave the row behind.
    leaseEpoch = lease.epoch;
    // A generation's own: what it kept warm is closed when it ends.
    const warm = new WarmSessions(warmSessions, warmIdleMs, log, (sessionId) =>
      forgetWarm(store, name, sessionId),
    );
    const context: AttemptContext = {
      name,
      project,
      aspHome: path.resolve(options.aspHome ?? path.join(project, ".asp")),
      epoch: lease.epoch,
      leaseSignal: leaseLost.signal,
      running,
      warm,
      log,
      ...(options.codexPathOverride ? { codexPathOverride: options.codexPathOverride } : {}),
      ...(options.codex ? { codex: options.codex } : {}),
      ...(options.permissionHandler ? { permissionHandler: options.permissionHandler } : {}),
      ...(options.approvals ? { approvals: options.approvals } : {}),
    };
    let stopListening: () => Promise<void> = async () => undefined;
    let runner: import("graphile-worker").Runner | undefined;
    // The runner's own pool, its connections kept between turns as the store's are (graphile-worker
    // would close them after 10 s idle, and the next turn would reconnect and re-plan get_job).
    const concurrency = options.concurrency ?? 1;
    const queuePool = store.newPool(Math.max(QUEUE_POOL_SIZE, concurrency + 2));
    try {
      // A generation starts with none warm: sessions the store still names as warm here are not.
      await forgetWarm(store, name);
      stopListening = await store.listen("cancels", (runId) =>
        running.get(runId)?.abort(new RunCancelledSignal(runId)),
      );
      runner = await graphile.run({
        pgPool: queuePool,
        concurrency,
        // Asked before each fetch: a session warm on another idle worker is left to it a moment.
        forbiddenFlags: () => sessionsToLeave(store, name),
        noHandleSignals: true,
        pollInterval: 1_000,
        events,
        logger: quietLogger(graphile),
        taskList: {
          [TURN_TASK]: async (payload) => {
            await runFleetAttempt(store, (payload as { runId: string }).runId, context);
          },
        },
      });
      // The slots exist now: the lease names them at once.
      await lease.renew();
    } catch (error) {
      leaseLost.abort(error);
      await stopListening();
      if (runner) await settlesWithin(runner.stop(), STOP_MS);
      await settlesWithin(queuePool.end(), STOP_MS);
      await warm.close();
      await lease.end().catch(() => lease.stopTimers());
      throw error;
    }
    const queue = runner;
    queue.promise.then(
      () => trouble(new CodexHarnessError("queue_failed", "the queue runner ended")),
      (error: Error) => trouble(error),
    );
    const ended = (async () => {
      const ending = await Promise.race([troubled, stopRequested]);
      if (ending.kind === "trouble") leaseLost.abort(ending.error);
      // Graceful on stop (running turns finish, for drainMs; then they are stopped at codex and
      // their runs go back to the queue); bounded otherwise: the database may be gone.
      const stopped = queue.stop();
      if (ending.kind === "stop" && !(await settlesWithin(stopped, drainMs))) {
        for (const [runId, turn] of running) turn.abort(new WorkerStoppingSignal(name, runId));
      }
      await settlesWithin(stopped, STOP_MS);
      await settlesWithin(queuePool.end(), STOP_MS);
      await warm.close();
      await stopListening();
      await lease.end().catch(() => lease.stopTimers());
      return ending;
    })();
    return { ended };
  }

  /** The epoch of the last lease this worker took: its own row, to take over after trouble. */
  let leaseEpoch: number | undefined;
  const first = await startGeneration().catch(async (error) => {
    await store.close();
    throw error;
  });
  const done = (async () => {
    let ending = await first.ended;
    let failures = 0;
    try {
      while (ending.kind === "trouble" && !stopping) {
        if (failures % 10 === 0) {
          log(
            `worker ${name}: ${ending.error.message}; it stopped taking turns and reconnects (waiting for the database).`,
          );
        }
        await Promise.race([sleep(backoffDelay(Math.min(failures, 10), RECONNECT)), stopRequested]);
        if (stopping) return;
        try {
          const next = await startGeneration();
          failures = 0;
          log(`worker ${name} is back: taking turns again.`);
          ending = await next.ended;
        } catch (error) {
          // Only what waiting cannot mend ends the worker: anything else (the database coming
          // back up, half-started) is tried again.
          if (error instanceof CodexHarnessError && FATAL.has(error.code)) throw error;
          failures += 1;
          ending = { kind: "trouble", error: error as Error };
        }
      }
    } finally {
      await store.close();
    }
  })();
  done.catch(() => undefined);
  return {
    name,
    done,
    async stop() {
      stopping = true;
      requestStop();
      await done.catch(() => undefined);
    },
  };
}

/** Asks the turns running here whose runs were cancelled to stop (when a NOTIFY was missed). */
async function stopCancelledRuns(
  store: FleetStore,
  name: string,
  epoch: number,
  running: Map<string, AbortController>,
): Promise<void> {
  if (running.size === 0) return;
  const { rows } = await store.pool
    .query(
      `SELECT run_id FROM codex_harness_fleet_runs
       WHERE worker = $1 AND lease_epoch = $2 AND status = 'running' AND cancel_requested_at IS NOT NULL`,
      [name, epoch],
    )
    .catch(() => ({ rows: [] as { run_id: string }[] }));
  for (const row of rows) running.get(row.run_id)?.abort(new RunCancelledSignal(row.run_id));
}
