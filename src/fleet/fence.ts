// Fencing: every write on behalf of a run attempt names the attempt (its number, the worker and the
// worker's lease epoch) and PostgreSQL takes it only while that attempt is the run's current one,
// the run is still running and the worker's lease is live by the database's clock. A worker that
// was paused past its lease finds its writes refused; it never trusts its own memory of the lease.

import type { PoolClient } from "pg";
import { CodexHarnessError } from "../errors.js";
import type { RunResult } from "../session/agent-events.js";
import { FENCE } from "./fence-sql.js";
import type { AttemptStart } from "./fleet-telemetry.js";
import { LIVE_LEASE } from "./lease.js";
import { type FleetSessionRow, type FleetStore, jsonForPostgres, type Queryable } from "./store.js";

/** One attempt of one run, as the worker running it knows it: the fencing token. */
export interface AttemptFence {
  runId: string;
  /** The run's attempt number (grows with every start). */
  attempt: number;
  worker: string;
  /** The worker's lease epoch (grows with every lease taken, in the whole fleet). */
  epoch: number;
}

/** A write refused because the attempt no longer holds its run (code `fenced`). */
export class FencedError extends CodexHarnessError {
  constructor(
    readonly fence: AttemptFence,
    reason: string,
  ) {
    super(
      "fenced",
      `attempt ${fence.attempt} of run ${fence.runId} on worker ${fence.worker} no longer holds the run: ${reason}; its writes are refused.`,
    );
  }
}

/**
 * Runs `work` in a transaction that first checks (and locks, until it commits) that `fence` still
 * holds its run: the run row is locked for update and the worker's lease row for share, so neither
 * a new attempt nor the reaper can come between the check and the writes. Throws
 * {@link FencedError} (nothing written) when it does not.
 */
export function fenced<T>(
  store: FleetStore,
  fence: AttemptFence,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  return store.transaction(async (client) => {
    const { rowCount } = await client.query(FENCE, [
      fence.runId,
      fence.attempt,
      fence.worker,
      fence.epoch,
    ]);
    if (rowCount !== 1) throw new FencedError(fence, await whyFenced(client, fence));
    return work(client);
  });
}

/** Says what took the run away from `fence`, for the worker's log. */
async function whyFenced(client: Queryable, fence: AttemptFence): Promise<string> {
  const { rows } = await client.query(
    `SELECT r.status, r.attempts, r.worker, r.lease_epoch, w.epoch AS live_epoch,
       EXTRACT(EPOCH FROM now() - w.heartbeat_at) * 1000 AS silent_ms, w.lease_ms
     FROM codex_harness_fleet_runs r
     LEFT JOIN codex_harness_fleet_workers w ON w.name = $2
     WHERE r.run_id = $1`,
    [fence.runId, fence.worker],
  );
  const row = rows[0];
  if (!row) return "the run is gone";
  if (row.attempts !== fence.attempt || row.worker !== fence.worker) {
    return `the run is now attempt ${row.attempts} on worker ${row.worker}`;
  }
  if (row.status !== "running") return `the run was recorded ${row.status}`;
  if (row.live_epoch === null || Number(row.live_epoch) !== fence.epoch) {
    return `the worker's lease (epoch ${fence.epoch}) ran out and was taken over`;
  }
  return `the worker's lease ran out (silent ${Math.round(Number(row.silent_ms))} ms, lease ${row.lease_ms} ms)`;
}

/** An attempt started: its fence, and what its tracing needs of the run (DB clock). */
export interface StartedAttempt {
  fence: AttemptFence;
  start: AttemptStart;
}

/**
 * Starts a new attempt of `runId` on `worker` under its lease `epoch`: the attempt number grows,
 * so every earlier attempt's writes are refused from now on. Undefined when the run already ended
 * (a repeated job). Throws {@link FencedError} when the worker's own lease is not live.
 */
export async function startAttempt(
  store: FleetStore,
  runId: string,
  worker: string,
  epoch: number,
): Promise<StartedAttempt | undefined> {
  // One statement (one round trip): the lease row is held (FOR SHARE) until it commits.
  const { rows } = await store.pool.query({
    name: "codex-harness-start-attempt",
    text: `WITH lease AS (
         SELECT 1 FROM codex_harness_fleet_workers w WHERE w.name = $2 AND w.epoch = $3 AND ${LIVE_LEASE}
         FOR SHARE OF w),
       started AS (
         UPDATE codex_harness_fleet_runs SET status = 'running', attempts = attempts + 1,
           worker = $2, lease_epoch = $3, started_at = now()
         WHERE run_id = $1 AND status IN ('queued', 'running') AND EXISTS (SELECT 1 FROM lease)
         RETURNING attempts, trace_context, extract(epoch FROM created_at) * 1000 AS queued_ms,
           extract(epoch FROM started_at) * 1000 AS started_ms)
       SELECT EXISTS (SELECT 1 FROM lease) AS live, s.attempts, s.trace_context, s.queued_ms,
         s.started_ms
       FROM (SELECT 1) one LEFT JOIN started s ON true`,
    values: [runId, worker, epoch],
  });
  if (!rows[0]?.live) {
    throw new FencedError({ runId, attempt: 0, worker, epoch }, "the worker's lease is not live");
  }
  const row = rows[0];
  const attempts = row.attempts as number | null;
  if (attempts === null) return undefined;
  return {
    fence: { runId, attempt: attempts, worker, epoch },
    start: {
      attempt: attempts,
      traceContext: row.trace_context,
      queuedAtMs: Number(row.queued_ms),
      startedAtMs: Number(row.started_ms),
    },
  };
}

/**
 * Appends events of the attempt to its run, in order, in one round trip. Throws
 * {@link FencedError} (nothing written) when refused.
 */
export async function appendFencedEvents(
  store: FleetStore,
  fence: AttemptFence,
  events: object[],
): Promise<number[]> {
  const seqs = await store.appendFencedEvents(fence, events);
  if (seqs === undefined) throw new FencedError(fence, await whyFenced(store.pool, fence));
  return seqs;
}

/** How an attempt ended, recorded at once with {@link finishAttempt}. */
export interface AttemptOutcome {
  status: "completed" | "failed" | "cancelled";
  result: RunResult;
  /** The run's `complete` event. */
  complete: object;
  /**
   * The session as the turn left it, the version the turn started from, and the worker that keeps
   * its codex warm after it (none: undefined).
   */
  session?: { row: Omit<FleetSessionRow, "version">; fromVersion: number; warmOn?: string };
}

/**
 * Records the end of an attempt in one fenced transaction: the session's new state (compare-and-set
 * on the version the turn started from, so it never moves backwards), the run's status and result,
 * and its `complete` event — all of it, or nothing. Throws {@link FencedError}, or
 * `session_conflict` when the session moved on since the turn started.
 */
export function finishAttempt(
  store: FleetStore,
  fence: AttemptFence,
  outcome: AttemptOutcome,
): Promise<void> {
  return fenced(store, fence, async (client) => {
    if (outcome.session) await saveSession(client, outcome.session);
    await client.query(
      `UPDATE codex_harness_fleet_runs SET status = $2, result = $3::jsonb, finished_at = now()
       WHERE run_id = $1`,
      [fence.runId, outcome.status, jsonForPostgres(outcome.result)],
    );
    await store.appendEvent(client, fence.runId, outcome.complete);
  });
}

async function saveSession(
  client: PoolClient,
  { row: session, fromVersion, warmOn }: NonNullable<AttemptOutcome["session"]>,
): Promise<void> {
  const { rowCount } = await client.query(
    `INSERT INTO codex_harness_fleet_sessions AS s
       (session_id, harness, thread_id, model, rollout_path, rollout, manifest_hash, version,
        warm_worker, updated_at)
     VALUES ($1, 'codex', $2, $3, $4, $5, $6, $7 + 1, $8, now())
     ON CONFLICT (session_id) DO UPDATE SET thread_id = $2, model = $3, rollout_path = $4,
       rollout = $5, manifest_hash = $6, version = $7 + 1, warm_worker = $8, updated_at = now()
     WHERE s.version = $7`,
    [
      session.sessionId,
      session.threadId,
      session.model,
      session.rolloutPath,
      session.rollout,
      session.manifestHash,
      fromVersion,
      warmOn ?? null,
    ],
  );
  if (rowCount !== 1) {
    throw new CodexHarnessError(
      "session_conflict",
      `session ${session.sessionId} moved on since this turn started from version ${fromVersion}; its state is not saved.`,
    );
  }
}
