// The operator console's view of the fleet, as SQL on its store: the summary, the workers with their
// lease's liveness, runs and sessions keyset-paged on their indexes, cancel and retry. Every age is
// the database's clock; cursors carry the exact (microsecond) time they resume after.

import type {
  ConsoleCancelOutcome,
  ConsoleEvent,
  ConsolePage,
  ConsoleRun,
  ConsoleRunDetail,
  ConsoleRunQuery,
  ConsoleRunStatus,
  ConsoleSession,
  ConsoleSessionDetail,
  ConsoleSummary,
  ConsoleWorker,
  FleetConsoleSource,
  Unsubscribe,
} from "../channels/console/console-source.js";
import { ChannelsError } from "../channels/errors.js";
import { CodexHarnessError } from "../errors.js";
import { cancelFleetRun } from "./cancel.js";
import { observeFleet, traceSubmit } from "./fleet-telemetry.js";
import { LIVE_LEASE } from "./lease.js";
import { migrateQueue, queueRun } from "./queue.js";
import { MAX_ID_CHARS } from "./request-check.js";
import { FleetStore } from "./store.js";

/** A timestamp as text with its microseconds (JavaScript's Date would drop them). */
const exact = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const MS = (interval: string) => `(extract(epoch FROM ${interval}) * 1000)::float8`;

/** The columns of a listed run (`r`), as {@link runOf} reads them. */
const RUN_COLUMNS = `r.run_id, r.session_id, r.status, r.attempts, r.worker, r.retry_of,
  ${exact("r.created_at")} AS created,
  ${MS("coalesce(r.started_at, r.finished_at, now()) - r.created_at")} AS wait_ms,
  CASE WHEN r.started_at IS NULL THEN NULL
    ELSE ${MS("coalesce(r.finished_at, now()) - r.started_at")} END AS duration_ms`;

/** The most rows of a page. */
const MAX_PAGE = 200;
/** Runs a session's detail shows. */
const SESSION_RUNS = 50;

type Row = Record<string, unknown>;

function runOf(row: Row): ConsoleRun {
  return {
    runId: row.run_id as string,
    sessionId: row.session_id as string,
    status: row.status as ConsoleRunStatus,
    attempts: row.attempts as number,
    worker: (row.worker as string | null) ?? null,
    createdAt: row.created as string,
    waitMs: Math.round(row.wait_ms as number),
    durationMs: row.duration_ms === null ? null : Math.round(row.duration_ms as number),
    retryOf: (row.retry_of as string | null) ?? null,
  };
}

/** The cursor after `[time, id]`: opaque to callers. */
function cursorOf(time: string, id: string): string {
  return Buffer.from(JSON.stringify([time, id])).toString("base64url");
}

/** `[time, id]` of a cursor; `invalid_request` (400) when it is not one of ours. */
function readCursor(cursor: string): [string, string] {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      typeof parsed[0] === "string" &&
      !Number.isNaN(Date.parse(parsed[0])) &&
      typeof parsed[1] === "string"
    ) {
      return [parsed[0], parsed[1]];
    }
  } catch {
    // refused below
  }
  throw new ChannelsError(
    "invalid_request",
    400,
    "That cursor is not one this console gave out; send the `nextCursor` of the page before.",
  );
}

const pageLimit = (limit: number) => Math.max(1, Math.min(MAX_PAGE, Math.floor(limit)));

/** The fleet console's queries on one {@link FleetStore}. */
export class FleetConsoleQueries implements FleetConsoleSource {
  /** Stops the fleet's gauges (observed while the console is open, when telemetry is on). */
  private readonly stopObserving: () => void;

  constructor(private readonly store: FleetStore) {
    // The one process reading the whole fleet: its queue depth, runs and live workers as gauges.
    this.stopObserving = observeFleet(() => this.summary());
  }

  /** Opens the fleet's store at `url` (creating its tables when missing) for the console. */
  static async open(url: string): Promise<FleetConsoleQueries> {
    return new FleetConsoleQueries(await FleetStore.open(url));
  }

  /** Closes the store's connections. */
  close(): Promise<void> {
    this.stopObserving();
    return this.store.close();
  }

  async summary(): Promise<ConsoleSummary> {
    const { rows } = await this.store.pool.query(
      `SELECT
         (SELECT json_object_agg(status, n) FROM
            (SELECT status, count(*)::int AS n FROM codex_harness_fleet_runs GROUP BY status) c) AS runs,
         (SELECT ${MS("now() - min(created_at)")} FROM codex_harness_fleet_runs
            WHERE status = 'queued') AS oldest_ms,
         (SELECT count(*)::int FROM codex_harness_fleet_workers w WHERE ${LIVE_LEASE}) AS alive`,
    );
    const row = rows[0] as Row;
    const counted = (row.runs ?? {}) as Record<string, number>;
    return {
      runs: {
        queued: counted.queued ?? 0,
        running: counted.running ?? 0,
        completed: counted.completed ?? 0,
        failed: counted.failed ?? 0,
        cancelled: counted.cancelled ?? 0,
      },
      oldestQueuedMs: row.oldest_ms === null ? null : Math.round(row.oldest_ms as number),
      workersAlive: row.alive as number,
    };
  }

  async workers(): Promise<ConsoleWorker[]> {
    const { rows } = await this.store.pool.query(
      `SELECT w.name, w.epoch, w.lease_ms, ${LIVE_LEASE} AS alive,
         ${MS("now() - w.heartbeat_at")} AS age_ms,
         ARRAY(SELECT r.run_id FROM codex_harness_fleet_runs r
               WHERE r.worker = w.name AND r.status = 'running' AND r.lease_epoch = w.epoch
               ORDER BY r.run_id) AS running
       FROM codex_harness_fleet_workers w ORDER BY w.name`,
    );
    return rows.map((row) => ({
      name: row.name,
      alive: row.alive,
      heartbeatAgeMs: Math.max(0, Math.round(row.age_ms)),
      epoch: Number(row.epoch),
      leaseMs: row.lease_ms,
      running: row.running,
    }));
  }

  /** Newest first, on `(created_at, run_id)` (the index `(status, created_at DESC, run_id DESC)`). */
  async runs(query: ConsoleRunQuery): Promise<ConsolePage<ConsoleRun>> {
    const limit = pageLimit(query.limit);
    const values: unknown[] = [];
    const where: string[] = [];
    const bind = (value: unknown) => `$${values.push(value)}`;
    if (query.status) where.push(`r.status = ${bind(query.status)}`);
    if (query.session !== undefined) where.push(`r.session_id = ${bind(query.session)}`);
    if (query.cursor !== undefined) {
      const [time, id] = readCursor(query.cursor);
      where.push(`(r.created_at, r.run_id) < (${bind(time)}::timestamptz, ${bind(id)})`);
    }
    const { rows } = await this.store.pool.query(
      `SELECT ${RUN_COLUMNS} FROM codex_harness_fleet_runs r
       ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY r.created_at DESC, r.run_id DESC LIMIT ${bind(limit + 1)}`,
      values,
    );
    const items = rows.slice(0, limit).map(runOf);
    const last = items[items.length - 1];
    return rows.length > limit && last
      ? { items, nextCursor: cursorOf(last.createdAt, last.runId) }
      : { items };
  }

  async run(runId: string): Promise<ConsoleRunDetail | undefined> {
    const { rows } = await this.store.pool.query(
      `SELECT ${RUN_COLUMNS}, r.request, r.result, r.cancel_requested_at IS NOT NULL AS cancel_requested
       FROM codex_harness_fleet_runs r WHERE r.run_id = $1`,
      [runId],
    );
    const row = rows[0] as Row | undefined;
    if (!row) return undefined;
    const request = row.request as { target?: unknown; prompt?: unknown };
    return {
      ...runOf(row),
      target: String(request.target ?? ""),
      prompt: String(request.prompt ?? ""),
      cancelRequested: row.cancel_requested as boolean,
      result: row.result ?? null,
    };
  }

  async statuses(runIds: string[]): Promise<{ runId: string; status: ConsoleRunStatus }[]> {
    if (runIds.length === 0) return [];
    const { rows } = await this.store.pool.query(
      "SELECT run_id, status FROM codex_harness_fleet_runs WHERE run_id = ANY ($1::text[])",
      [runIds],
    );
    return rows.map((row) => ({ runId: row.run_id, status: row.status }));
  }

  events(runId: string, since: number): Promise<ConsoleEvent[]> {
    return this.store.events(runId, since);
  }

  async cancel(runId: string): Promise<ConsoleCancelOutcome> {
    try {
      return await cancelFleetRun(this.store, runId);
    } catch (error) {
      throw asHttpError(error);
    }
  }

  async retry(runId: string): Promise<ConsoleRun> {
    const run = await this.store.getRun(runId);
    if (!run) throw notFound(runId);
    if (run.status !== "failed" && run.status !== "cancelled") {
      throw new ChannelsError(
        "not_retryable",
        409,
        `Run ${JSON.stringify(runId)} is ${run.status}: only failed or cancelled runs are retried.`,
      );
    }
    const { rows } = await this.store.pool.query(
      "SELECT count(*)::int AS n FROM codex_harness_fleet_runs WHERE retry_of = $1",
      [runId],
    );
    const retryId = `${runId}.retry-${(rows[0]?.n as number) + 1}`;
    if (retryId.length > MAX_ID_CHARS) {
      throw new ChannelsError(
        "not_retryable",
        409,
        `A retry of ${JSON.stringify(runId)} would be named past ${MAX_ID_CHARS} characters; submit it again under a new run id.`,
      );
    }
    const store = this.store;
    store.queueReady ??= migrateQueue(store, true);
    await store.queueReady.catch((error) => {
      store.queueReady = undefined;
      throw error;
    });
    // A retry is a submit of its own: a trace of its own when telemetry is on.
    const request = { ...run.request, externalRunId: retryId };
    const trace = traceSubmit(request);
    const created = await queueRun(store, request, {
      retryOf: runId,
      traceContext: trace?.carrier,
    }).catch((error: unknown) => {
      trace?.end(undefined, error);
      throw error;
    });
    trace?.end(created);
    if (!created) {
      throw new ChannelsError(
        "not_retryable",
        409,
        `Run ${retryId} was queued meanwhile (another retry of ${runId}); look at it instead.`,
      );
    }
    return (await this.run(retryId)) as ConsoleRunDetail;
  }

  /** Most recently updated first, on `(updated_at, session_id)`. */
  async sessions(query: { limit: number; cursor?: string }): Promise<ConsolePage<ConsoleSession>> {
    const limit = pageLimit(query.limit);
    const [time, id] = query.cursor === undefined ? [null, null] : readCursor(query.cursor);
    const { rows } = await this.store.pool.query(
      `SELECT s.session_id, s.thread_id, s.warm_worker, ${exact("s.updated_at")} AS updated,
         last.run_id AS last_run_id, last.status AS last_status
       FROM codex_harness_fleet_sessions s
       LEFT JOIN LATERAL (SELECT r.run_id, r.status FROM codex_harness_fleet_runs r
         WHERE r.session_id = s.session_id ORDER BY r.created_at DESC, r.run_id DESC LIMIT 1) last ON true
       ${time === null ? "" : "WHERE (s.updated_at, s.session_id) < ($2::timestamptz, $3)"}
       ORDER BY s.updated_at DESC, s.session_id DESC LIMIT $1`,
      time === null ? [limit + 1] : [limit + 1, time, id],
    );
    const items: ConsoleSession[] = rows.slice(0, limit).map((row) => ({
      sessionId: row.session_id,
      threadId: row.thread_id,
      warmWorker: row.warm_worker,
      updatedAt: row.updated,
      lastRunId: row.last_run_id,
      lastRunStatus: row.last_status,
    }));
    const last = items[items.length - 1];
    return rows.length > limit && last
      ? { items, nextCursor: cursorOf(last.updatedAt, last.sessionId) }
      : { items };
  }

  async session(sessionId: string): Promise<ConsoleSessionDetail | undefined> {
    const [record, running, runs] = await Promise.all([
      this.store.pool.query(
        "SELECT thread_id, warm_worker FROM codex_harness_fleet_sessions WHERE session_id = $1",
        [sessionId],
      ),
      // The thread of each running run: the last of its events that names one.
      this.store.pool.query(
        `SELECT latest.thread FROM codex_harness_fleet_runs r
         CROSS JOIN LATERAL (SELECT e.event->>'harnessSessionId' AS thread
           FROM codex_harness_fleet_events e
           WHERE e.run_id = r.run_id AND e.event ? 'harnessSessionId'
           ORDER BY e.seq DESC LIMIT 1) latest
         WHERE r.session_id = $1 AND r.status = 'running'`,
        [sessionId],
      ),
      this.runs({ session: sessionId, limit: SESSION_RUNS }),
    ]);
    const row = record.rows[0] as Row | undefined;
    if (!row && runs.items.length === 0) return undefined;
    const threadId = (row?.thread_id as string | null | undefined) ?? null;
    const threads = [threadId, ...running.rows.map((one) => one.thread as string | null)];
    return {
      sessionId,
      threadId,
      threadIds: [...new Set(threads.filter((thread): thread is string => !!thread))],
      warmWorker: (row?.warm_worker as string | null | undefined) ?? null,
      runs: runs.items,
    };
  }

  onRunChange(onRun: (runId: string) => void): Promise<Unsubscribe> {
    return this.store.listen("runs", onRun);
  }

  onRunEvents(onRun: (runId: string) => void): Promise<Unsubscribe> {
    return this.store.listen("events", onRun);
  }

  listening(): Promise<void> {
    return this.store.listening();
  }
}

function notFound(runId: string): ChannelsError {
  return new ChannelsError("run_not_found", 404, `No fleet run ${JSON.stringify(runId)}.`);
}

/** The fleet's refusals as the API's: an unknown run 404, a malformed id 400. */
function asHttpError(error: unknown): unknown {
  if (!(error instanceof CodexHarnessError) || error instanceof ChannelsError) return error;
  if (error.code === "run_not_found") return new ChannelsError(error.code, 404, error.message);
  if (error.code === "invalid_input") {
    return new ChannelsError("invalid_request", 400, error.message, { cause: error });
  }
  return error;
}
