// The fleet's job queue on graphile-worker: one job per run, in one named queue per session (so a
// session's turns run one at a time, in order), and its tables made once however many start at once.
import { loadDriver } from "../channels/drivers.js";
import { withClient } from "../channels/pg-pool.js";
import type { TraceCarrier } from "../telemetry/carrier.js";
import { sessionFlag } from "./affinity.js";
import type { FleetStore, FleetTurnRequest } from "./store.js";

/** The graphile-worker task that runs one turn. */
export const TURN_TASK = "codex_harness_turn";

/** Held while graphile-worker's tables are made: its own first steps race without it. */
const QUEUE_SCHEMA_LOCK = 4_317_017;

/** The named queue of a session: graphile-worker runs a queue's jobs one at a time, in order. */
export function sessionQueue(sessionId: string): string {
  return `codex-harness-session:${sessionId}`;
}

/**
 * Records the run and queues its job, in one statement (one round trip, atomic), unless the run id
 * is known: then nothing is queued (a known run keeps its first trace context). Resolves whether
 * the run is new. `traceContext` is the submit's W3C context; `retryOf` names the run it retries
 * (the operator console's Retry).
 */
export async function queueRun(
  store: FleetStore,
  request: FleetTurnRequest,
  { traceContext, retryOf }: { traceContext?: TraceCarrier | undefined; retryOf?: string } = {},
): Promise<boolean> {
  const { rowCount } = await store.pool.query({
    name: "codex-harness-queue-run",
    text: `WITH inserted AS (
         INSERT INTO codex_harness_fleet_runs (run_id, session_id, request, trace_context, retry_of)
         VALUES ($1, $2, $3, $8, $9)
         ON CONFLICT (run_id) DO NOTHING RETURNING run_id)
       SELECT graphile_worker.add_job($4, json_build_object('runId', run_id), queue_name => $5,
         job_key => run_id, max_attempts => $6, flags => ARRAY[$7::text])
       FROM inserted`,
    values: [
      request.externalRunId,
      request.externalSessionId,
      request,
      TURN_TASK,
      sessionQueue(request.externalSessionId),
      25,
      sessionFlag(request.externalSessionId),
      traceContext ?? null,
      retryOf ?? null,
    ],
  });
  return rowCount === 1;
}

/**
 * Whether the run is recorded with this very request: after a {@link queueRun} whose answer was
 * lost (the connection dropped), whether that attempt committed.
 */
export async function queuedAs(store: FleetStore, request: FleetTurnRequest): Promise<boolean> {
  const { rows } = await store.pool.query(
    "SELECT request = $2::jsonb AS same FROM codex_harness_fleet_runs WHERE run_id = $1",
    [request.externalRunId, request],
  );
  return rows[0]?.same === true;
}

/**
 * Creates or updates graphile-worker's tables (submitters and workers both need them), under an
 * advisory lock: graphile-worker's first step (`create schema if not exists`) fails with a
 * duplicate key when several processes run it at once on a fresh database. `forSubmits` also has
 * the connection plan `add_job` (in a transaction rolled back: nothing is queued), which a
 * connection does once, 10–20 ms: not inside the first submit's transaction, where it counted as
 * that turn's time in the queue.
 */
export async function migrateQueue(store: FleetStore, forSubmits = false): Promise<void> {
  const graphile = await loadDriver("graphile-worker", undefined, "The fleet");
  await withClient(store.pool, async (client) => {
    await client.query("SELECT pg_advisory_lock($1)", [QUEUE_SCHEMA_LOCK]);
    try {
      await graphile.runMigrations({ connectionString: store.url, logger: quietLogger(graphile) });
    } finally {
      await client
        .query("SELECT pg_advisory_unlock($1)", [QUEUE_SCHEMA_LOCK])
        .catch(() => undefined);
    }
    if (!forSubmits) return;
    await client.query("BEGIN");
    try {
      await client.query("SELECT graphile_worker.add_job($1, '{}'::json, queue_name => $2)", [
        TURN_TASK,
        sessionQueue("codex-harness-plan-only"),
      ]);
    } finally {
      await client.query("ROLLBACK");
    }
  });
}

/**
 * graphile-worker's log, kept off stdout (stdout is data only): the first line of each error goes
 * to stderr (its stack traces say nothing the worker's own log line does not).
 */
export function quietLogger(graphile: typeof import("graphile-worker")) {
  return new graphile.Logger(() => (level: string, message: string) => {
    if (level === "error") process.stderr.write(`graphile-worker: ${message.split("\n")[0]}\n`);
  });
}
