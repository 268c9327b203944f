// A fleet worker: takes turns from the PostgreSQL queue (graphile-worker; one named queue per
// session, so a session's turns run one at a time, in order, on whichever worker is free) and
// runs each with runTurn in this machine's copy of the project.
import { EventEmitter } from "node:events";
import { hostname } from "node:os";
import path from "node:path";
import type { PoolClient } from "pg";
import { loadDriver } from "../channels/drivers.js";
import { CodexHarnessError } from "../errors.js";
import type { Approvals } from "../events/approval-types.js";
import type { RunResult } from "../session/agent-events.js";
import { runTurn } from "../session/run-turn.js";
import type { PermissionHandler } from "../session/unified-types.js";
import { codexHomeDir, installedHome, installTarget } from "../spaces/install.js";
import { prepareSessionHome } from "../spaces/session-home.js";
import { WorkerLease } from "./lease.js";
import { manifestHash, readRollout, writeRollout } from "./session-files.js";
import { type FleetEvent, FleetStore, type FleetTurnRequest } from "./store.js";

/** How long a silent worker keeps its turns, by default. */
export const DEFAULT_LEASE_MS = 30_000;

/** The graphile-worker task that runs one turn. */
export const TURN_TASK = "codex_harness_turn";

/** The named queue of a session: graphile-worker runs a queue's jobs one at a time, in order. */
export function sessionQueue(sessionId: string): string {
  return `codex-harness-session:${sessionId}`;
}

/** Queues the run's job inside the transaction that records the run. */
export async function enqueueTurn(client: PoolClient, request: FleetTurnRequest): Promise<void> {
  await client.query(
    "SELECT graphile_worker.add_job($1, $2::json, queue_name => $3, job_key => $4, max_attempts => $5)",
    [
      TURN_TASK,
      { runId: request.externalRunId },
      sessionQueue(request.externalSessionId),
      request.externalRunId,
      25,
    ],
  );
}

/** Creates graphile-worker's tables when missing (submitters and workers both need them). */
export async function migrateQueue(store: string): Promise<void> {
  const graphile = await loadDriver("graphile-worker", undefined, "The fleet");
  await graphile.runMigrations({ connectionString: store, logger: quietLogger(graphile) });
}

/** Options of {@link startFleetWorker}. */
export interface FleetWorkerOptions {
  /** The PostgreSQL URL of the fleet (`postgres://…`). */
  store: string;
  /** This machine's copy of the project (`asp-targets.toml`), the same on every worker. */
  project: string;
  /** How many turns this worker runs at once (default 1). */
  concurrency?: number;
  /** The worker's name in runs and events (default `host:pid`). */
  name?: string;
  /** Where session homes and records live here (default `<project>/.asp`). */
  aspHome?: string;
  codexPathOverride?: string;
  /** Decides command and file-change approvals the spaces' permissions leave open. */
  permissionHandler?: PermissionHandler;
  /** Answers the other requests (e.g. `channelsApprovals(…)`: a person, from the inbox). */
  approvals?: Approvals;
  /**
   * How long a worker may go without renewing its lease before its running turns are given to
   * other workers (ms, default 30 000).
   */
  leaseMs?: number;
  /** Receives a line for each turn taken and ended (default: nothing). */
  onLog?: (line: string) => void;
}

/** A running worker. */
export interface FleetWorker {
  readonly name: string;
  /** Stops taking turns, lets running ones finish, and closes its connections. */
  stop(): Promise<void>;
  /** Resolves when the worker stopped (by `stop()`, or because it lost the database). */
  readonly done: Promise<void>;
}

/** Starts a worker: it takes turns until stopped. */
export async function startFleetWorker(options: FleetWorkerOptions): Promise<FleetWorker> {
  const graphile = await loadDriver("graphile-worker", undefined, "The fleet worker");
  const store = await FleetStore.open(options.store);
  const name = options.name ?? `${hostname()}:${process.pid}`;
  const project = path.resolve(options.project);
  const log = options.onLog ?? (() => undefined);
  // The queue's ids of this worker's slots, for the lease (their jobs go back if we vanish).
  const events = new EventEmitter() as import("graphile-worker").WorkerEvents;
  const slots = new Set<string>();
  events.on("worker:create", ({ worker }) => slots.add(worker.workerId));
  let lost: Error | undefined;
  const lease = await WorkerLease.start({
    pool: store.pool,
    name,
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
    queueWorkerIds: () => [...slots],
    onLost: (error) => {
      lost ??= new CodexHarnessError(
        "store_lost",
        `worker ${name} lost the database for longer than its lease (${error.message}); it stops taking turns.`,
        { cause: error },
      );
      void runner.stop();
    },
  });
  const runner = await graphile.run({
    connectionString: options.store,
    concurrency: options.concurrency ?? 1,
    noHandleSignals: true,
    pollInterval: 1_000,
    events,
    logger: quietLogger(graphile),
    taskList: {
      [TURN_TASK]: async (payload) => {
        const { runId } = payload as { runId: string };
        await runFleetTurn(store, runId, { ...options, name, project, log });
      },
    },
  });
  // The slots exist now: the lease names them at once.
  await lease.renew();
  const done = runner.promise
    .finally(async () => {
      await lease.end();
      await store.close();
    })
    .then(() => {
      if (lost) throw lost;
    });
  return {
    name,
    done,
    async stop() {
      await runner.stop();
      await done.catch(() => undefined);
    },
  };
}

type TurnContext = FleetWorkerOptions & {
  name: string;
  project: string;
  log: (line: string) => void;
};

/** Runs one queued turn here; a run that already ended (a repeated job) is left as it is. */
async function runFleetTurn(store: FleetStore, runId: string, context: TurnContext): Promise<void> {
  const run = await store.startRun(runId, context.name);
  if (!run) return;
  const request = run.request;
  const stamp = (event: object) => ({
    ...(event as FleetEvent["event"]),
    attempt: run.attempts,
    worker: context.name,
  });
  // `complete` is stored after the result: a follower that sees it can read the result.
  let complete: object | undefined;
  const emit = async (event: object): Promise<void> => {
    if ((event as { type?: string }).type === "complete") complete = event;
    else await store.addEvent(runId, stamp(event));
  };
  context.log(`turn ${runId} of session ${request.externalSessionId} (attempt ${run.attempts})`);
  if (run.attempts > 1) {
    await emit({
      type: "log",
      level: "warn",
      message: `The run was retried (attempt ${run.attempts}) on worker ${context.name}: the worker that ran it before stopped.`,
    });
  }
  let result: RunResult;
  try {
    result = await turnHere(store, request, context, emit);
  } catch (error) {
    result = { success: false, error: { message: (error as Error).message } };
    complete = { type: "complete", result };
  }
  await store.finishRun(runId, result);
  await store.addEvent(runId, stamp(complete ?? { type: "complete", result }));
  context.log(`turn ${runId} ${result.success ? "completed" : "failed"}`);
}

async function turnHere(
  store: FleetStore,
  request: FleetTurnRequest,
  context: TurnContext,
  emit: (event: object) => Promise<void>,
): Promise<RunResult> {
  const aspHome = path.resolve(context.aspHome ?? path.join(context.project, ".asp"));
  const { homeDir } = await installedHome(
    () => installTarget(context.project, request.target),
    codexHomeDir(context.project, request.target),
  );
  const hash = await manifestHash(homeDir);
  const session = await store.getSession(request.externalSessionId);
  if (session?.manifestHash && session.manifestHash !== hash) {
    throw new CodexHarnessError(
      "target_mismatch",
      `Target "${request.target}" is installed differently on worker ${context.name} than where session ${request.externalSessionId} ran before (manifest ${hash.slice(0, 12)} vs ${session.manifestHash.slice(0, 12)}): install the same project on every worker (codex-harness install).`,
    );
  }
  const { home } = await prepareSessionHome({
    templateHome: homeDir,
    aspHome,
    sessionId: request.externalSessionId,
  });
  // The thread as the last turn left it, wherever that ran.
  if (session?.rollout && session.rolloutPath) {
    await writeRollout(home, session.rolloutPath, session.rollout);
  }
  const response = await runTurn({
    externalSessionId: request.externalSessionId,
    externalRunId: request.externalRunId,
    aspHome,
    spec: { target: { targetName: request.target, targetDir: context.project } },
    harness: "codex",
    cwd: request.cwd ?? context.project,
    prompt: request.prompt,
    ...(request.model ? { model: request.model } : {}),
    ...(session?.threadId ? { harnessSessionId: session.threadId } : {}),
    ...(context.codexPathOverride ? { codexPathOverride: context.codexPathOverride } : {}),
    ...(context.permissionHandler ? { permissionHandler: context.permissionHandler } : {}),
    ...(context.approvals ? { approvals: context.approvals } : {}),
    callbacks: { onEvent: (event) => emit(event) },
  });
  const threadId = response.harnessSessionId;
  const rollout = threadId ? await readRollout(home, threadId) : undefined;
  if (threadId && rollout) {
    await store.saveSession({
      sessionId: request.externalSessionId,
      threadId,
      model: response.model ?? null,
      rolloutPath: rollout.relativePath,
      rollout: rollout.gzipped,
      manifestHash: hash,
    });
  }
  return response.result;
}

/** graphile-worker's log, kept off stdout (stdout is data only). */
function quietLogger(graphile: typeof import("graphile-worker")) {
  return new graphile.Logger(() => (level: string, message: string) => {
    if (level === "error") process.stderr.write(`graphile-worker: ${message}\n`);
  });
}
