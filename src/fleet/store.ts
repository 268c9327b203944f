// The fleet's tables in PostgreSQL: runs (one per externalRunId), their events (rows + NOTIFY,
// read back by sequence), session records with the thread's rollout (versioned), and live workers
// (leases with an epoch). Writes on behalf of a run attempt are fenced: see fence.ts.
import type { Pool, PoolClient } from "pg";
import type { RoutingRule } from "../approvals/routing-rules.js";
import { loadDriver, redactUrl } from "../channels/drivers.js";
import { inTransaction, newPool, openPool } from "../channels/pg-pool.js";
import { CodexHarnessError } from "../errors.js";
import type { AgentEvent, RunResult } from "../session/agent-events.js";
import type { AttemptFence } from "./fence.js";
import { EVENT_FUNCTIONS } from "./fence-sql.js";

const SCHEMA_LOCK = 4_317_016;
// Idempotent, run under SCHEMA_LOCK; the ALTERs bring tables made by earlier releases up to date.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS codex_harness_fleet_runs (
  run_id text PRIMARY KEY,
  session_id text NOT NULL,
  request jsonb NOT NULL,
  status text NOT NULL DEFAULT 'queued',
  attempts integer NOT NULL DEFAULT 0,
  worker text,
  result jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz
);
ALTER TABLE codex_harness_fleet_runs
  ADD COLUMN IF NOT EXISTS lease_epoch bigint,
  ADD COLUMN IF NOT EXISTS cancel_requested_at timestamptz;
-- The W3C trace context of the run's submit (null when it was not traced): kept out of "request",
-- which a resubmit compares.
ALTER TABLE codex_harness_fleet_runs ADD COLUMN IF NOT EXISTS trace_context jsonb;
CREATE INDEX IF NOT EXISTS codex_harness_fleet_runs_session ON codex_harness_fleet_runs (session_id, created_at);
CREATE TABLE IF NOT EXISTS codex_harness_fleet_events (
  run_id text NOT NULL REFERENCES codex_harness_fleet_runs (run_id) ON DELETE CASCADE,
  seq integer NOT NULL,
  event jsonb NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS codex_harness_fleet_sessions (
  session_id text PRIMARY KEY,
  harness text NOT NULL,
  thread_id text,
  model text,
  rollout_path text,
  rollout bytea,
  manifest_hash text,
  updated_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE codex_harness_fleet_sessions ADD COLUMN IF NOT EXISTS version bigint NOT NULL DEFAULT 0;
ALTER TABLE codex_harness_fleet_sessions ADD COLUMN IF NOT EXISTS warm_worker text;
CREATE INDEX IF NOT EXISTS codex_harness_fleet_sessions_warm ON codex_harness_fleet_sessions (warm_worker) WHERE warm_worker IS NOT NULL;
CREATE INDEX IF NOT EXISTS codex_harness_fleet_runs_queued ON codex_harness_fleet_runs (created_at) WHERE status = 'queued';
CREATE INDEX IF NOT EXISTS codex_harness_fleet_runs_running ON codex_harness_fleet_runs (worker) WHERE status = 'running';
CREATE SEQUENCE IF NOT EXISTS codex_harness_fleet_lease_epochs;
CREATE TABLE IF NOT EXISTS codex_harness_fleet_workers (
  name text PRIMARY KEY,
  queue_worker_ids text[] NOT NULL DEFAULT '{}',
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE codex_harness_fleet_workers
  ADD COLUMN IF NOT EXISTS epoch bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS lease_ms integer NOT NULL DEFAULT 30000;
CREATE TABLE IF NOT EXISTS codex_harness_fleet_installs (
  target text NOT NULL,
  manifest_hash text NOT NULL,
  first_seen_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (target, manifest_hash)
);
${EVENT_FUNCTIONS}
ALTER TABLE codex_harness_fleet_runs ADD COLUMN IF NOT EXISTS retry_of text;
CREATE INDEX IF NOT EXISTS codex_harness_fleet_runs_by_status ON codex_harness_fleet_runs (status, created_at DESC, run_id DESC);
CREATE INDEX IF NOT EXISTS codex_harness_fleet_runs_by_created ON codex_harness_fleet_runs (created_at DESC, run_id DESC);
CREATE INDEX IF NOT EXISTS codex_harness_fleet_sessions_by_updated ON codex_harness_fleet_sessions (updated_at DESC, session_id DESC);
CREATE OR REPLACE FUNCTION codex_harness_fleet_run_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_notify('codex_harness_fleet_runs', NEW.run_id);
  RETURN NULL;
END $fn$;
DO $do$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'codex_harness_fleet_run_changed') THEN
    CREATE TRIGGER codex_harness_fleet_run_changed AFTER INSERT OR UPDATE OF status
      ON codex_harness_fleet_runs FOR EACH ROW EXECUTE FUNCTION codex_harness_fleet_run_changed();
  END IF;
END $do$;`;
/**
 * The channels this store NOTIFYs on: a run's new event, a run asked to stop, a run queued or its
 * status changed (a trigger on the runs table: queued, started, finished, cancelled).
 */
const CHANNELS = {
  events: "codex_harness_fleet_events",
  cancels: "codex_harness_fleet_cancels",
  runs: "codex_harness_fleet_runs",
};
export type FleetChannel = keyof typeof CHANNELS;

/** What is submitted: one turn of one session (see `submitTurn`). */
export interface FleetTurnRequest {
  externalSessionId: string;
  externalRunId: string;
  /** The target of the workers' project (`asp-targets.toml`). */
  target: string;
  prompt: string;
  model?: string;
  /** The folder the agent works in, on the worker (default: the worker's project). */
  cwd?: string;
  /**
   * The person the turn runs for (their id in the channels runtime): the routing's `startedBy`,
   * whom a `not_self` rule keeps from answering.
   */
  startedBy?: string;
  /**
   * Routing rules of this run, applied by the worker to its channels approvals after their own
   * rules and the target's `[[routing]]` rules (first match wins).
   */
  routing?: { rules: RoutingRule[] };
}

/** Where a run is. `cancelled` runs never start, or were stopped at their worker. */
export type FleetRunStatus = "queued" | "running" | "completed" | "failed" | "cancelled";

/** A run as stored. */
export interface FleetRunRow {
  runId: string;
  sessionId: string;
  request: FleetTurnRequest;
  status: FleetRunStatus;
  /** Attempts started so far: the attempt number is the fencing token of the run's writes. */
  attempts: number;
  worker: string | null;
  /** The lease epoch of the worker running the current attempt. */
  leaseEpoch: number | null;
  /** Set when someone asked to cancel the run while it was running. */
  cancelRequested: boolean;
  result: RunResult | null;
}

/** What a worker keeps of a session between turns, wherever they run. */
export interface FleetSessionRow {
  sessionId: string;
  threadId: string | null;
  model: string | null;
  /** The rollout's path inside a codex home (`sessions/…/rollout-…-<thread>.jsonl`). */
  rolloutPath: string | null;
  /** The rollout, gzip-compressed. */
  rollout: Buffer | null;
  manifestHash: string | null;
  /** Grows by one with every save; a save names the version it started from (compare-and-set). */
  version: number;
}

/** A stored event: the run's own sequence (across attempts) and the AgentEvent. */
export interface FleetEvent {
  seq: number;
  event: AgentEvent & { attempt?: number; worker?: string };
}

export type Queryable = Pick<Pool, "query">;

/**
 * `value` as JSON PostgreSQL's jsonb takes: a NUL character (`\u0000`, which codex's output can
 * carry) becomes U+FFFD, the replacement character — jsonb refuses NUL outright.
 */
export function jsonForPostgres(value: unknown): string {
  return JSON.stringify(value).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, "$1\\ufffd");
}

/** The fleet's store on one PostgreSQL database (a pool of connections). */
export class FleetStore {
  private readonly subscribers = new Map<FleetChannel, Set<(runId: string) => void>>();
  private listener: Promise<import("pg").Client> | undefined;
  /** Set once graphile-worker's tables are known to exist. */
  queueReady: Promise<void> | undefined;

  private constructor(
    readonly url: string,
    readonly pool: Pool,
    private readonly pg: typeof import("pg"),
  ) {}

  /** A new pool on this store's database (the queue runner's), its connections kept as the store's. */
  newPool(max: number): Pool {
    return newPool(this.pg, this.url, max);
  }

  /** Connects and creates the tables when missing. Throws `store_failed` (password redacted). */
  static async open(url: string): Promise<FleetStore> {
    if (typeof url !== "string" || !/^postgres(ql)?:\/\//.test(url)) {
      throw new CodexHarnessError(
        "invalid_store",
        `The fleet needs a PostgreSQL URL (postgres://user:password@host:5432/db), got ${JSON.stringify(redactUrl(String(url)))}.`,
      );
    }
    const pg = await loadDriver("pg", undefined, "The fleet");
    const pool = await openPool(pg, url, SCHEMA, SCHEMA_LOCK);
    return new FleetStore(url, pool, pg);
  }

  async getRun(runId: string, client: Queryable = this.pool): Promise<FleetRunRow | undefined> {
    const { rows } = await client.query(
      `SELECT run_id, session_id, request, status, attempts, worker, lease_epoch,
         cancel_requested_at IS NOT NULL AS cancel_requested, result
       FROM codex_harness_fleet_runs WHERE run_id = $1`,
      [runId],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      runId: row.run_id,
      sessionId: row.session_id,
      request: row.request,
      status: row.status,
      attempts: row.attempts,
      worker: row.worker,
      leaseEpoch: row.lease_epoch === null ? null : Number(row.lease_epoch),
      cancelRequested: row.cancel_requested,
      result: row.result,
    };
  }

  /** The run's events after `since`, in order. */
  async events(runId: string, since = 0): Promise<FleetEvent[]> {
    const { rows } = await this.pool.query({
      name: "codex-harness-run-events",
      text: "SELECT seq, event FROM codex_harness_fleet_events WHERE run_id = $1 AND seq > $2 ORDER BY seq",
      values: [runId, since],
    });
    return rows.map((row) => ({ seq: row.seq, event: row.event }));
  }

  /**
   * Appends an event to the run (its sequence follows the run's last) and notifies listeners.
   * The caller holds the run's row lock (a fenced transaction, or the cancel's).
   */
  async appendEvent(client: Queryable, runId: string, event: object): Promise<number> {
    return (await this.appendEvents(client, runId, [event]))[0] as number;
  }

  /**
   * Appends events to the run in order (their sequences follow the run's last) and notifies
   * listeners, in one round trip; resolves with their sequences. The caller holds the run's row
   * lock.
   */
  async appendEvents(client: Queryable, runId: string, events: object[]): Promise<number[]> {
    const { rows } = await client.query({
      name: "codex-harness-add-events",
      text: "SELECT codex_harness_fleet_add_events($1, $2::jsonb[], $3) AS seqs",
      values: [runId, events.map(jsonForPostgres), CHANNELS.events],
    });
    return (rows[0].seqs as number[] | null) ?? [];
  }

  /**
   * {@link appendEvents} as attempt `fence.attempt` of the run on `fence.worker` under lease epoch
   * `fence.epoch`, in one round trip: undefined (nothing written) when that attempt no longer
   * holds the run (see fence.ts).
   */
  async appendFencedEvents(fence: AttemptFence, events: object[]): Promise<number[] | undefined> {
    const { rows } = await this.pool.query({
      name: "codex-harness-append-fenced",
      text: "SELECT codex_harness_fleet_append_fenced($1, $2, $3, $4, $5::jsonb[], $6) AS seqs",
      values: [
        fence.runId,
        fence.attempt,
        fence.worker,
        fence.epoch,
        events.map(jsonForPostgres),
        CHANNELS.events,
      ],
    });
    return (rows[0].seqs as number[] | null) ?? undefined;
  }

  /** NOTIFYs `channel` of `runId` (delivered when the transaction commits). */
  async notify(client: Queryable, channel: FleetChannel, runId: string): Promise<void> {
    await client.query("SELECT pg_notify($1, $2)", [CHANNELS[channel], runId]);
  }

  /**
   * Calls `onRun(runId)` whenever `channel` is notified of a run, until the returned function is
   * called. One connection of this store LISTENs for all its subscribers; when it is lost (the
   * database went away), {@link listening} opens another.
   */
  async listen(
    channel: FleetChannel,
    onRun: (runId: string) => void,
  ): Promise<() => Promise<void>> {
    const set = this.subscribers.get(channel) ?? new Set();
    this.subscribers.set(channel, set);
    set.add(onRun);
    try {
      await this.listening();
    } catch (error) {
      set.delete(onRun);
      throw error;
    }
    return async () => {
      set.delete(onRun);
    };
  }

  /** Makes sure this store's LISTEN connection is open (again, after an outage). */
  async listening(): Promise<void> {
    if (!this.listener) {
      const opened: Promise<import("pg").Client> = this.openListener(() => {
        if (this.listener === opened) this.listener = undefined;
      });
      this.listener = opened;
    }
    const opening = this.listener;
    try {
      await opening;
    } catch (error) {
      if (this.listener === opening) this.listener = undefined;
      throw error;
    }
  }

  private async openListener(lost: () => void): Promise<import("pg").Client> {
    const client = new this.pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: 10_000,
    });
    client.on("error", lost);
    client.on("end", lost);
    await client.connect();
    client.on("notification", (message) => {
      const channel = (Object.keys(CHANNELS) as FleetChannel[]).find(
        (key) => CHANNELS[key] === message.channel,
      );
      const runId = message.payload;
      if (!channel || !runId) return;
      for (const subscriber of this.subscribers.get(channel) ?? []) subscriber(runId);
    });
    try {
      for (const name of Object.values(CHANNELS)) await client.query(`LISTEN ${name}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return client;
  }

  /**
   * An earlier run of `runId`'s session (recorded before it) that has not ended, if any: the
   * session's turns run in order, and a retried one must not be overtaken.
   */
  async unfinishedBefore(runId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query(
      `SELECT earlier.run_id FROM codex_harness_fleet_runs run
       JOIN codex_harness_fleet_runs earlier
         ON earlier.session_id = run.session_id AND earlier.created_at < run.created_at
       WHERE run.run_id = $1 AND earlier.finished_at IS NULL
       ORDER BY earlier.created_at LIMIT 1`,
      [runId],
    );
    return rows[0]?.run_id;
  }

  async getSession(
    sessionId: string,
    client: Queryable = this.pool,
  ): Promise<FleetSessionRow | undefined> {
    const { rows } = await client.query(
      `SELECT session_id, thread_id, model, rollout_path, rollout, manifest_hash, version
       FROM codex_harness_fleet_sessions WHERE session_id = $1`,
      [sessionId],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      sessionId: row.session_id,
      threadId: row.thread_id,
      model: row.model,
      rolloutPath: row.rollout_path,
      rollout: row.rollout,
      manifestHash: row.manifest_hash,
      version: Number(row.version),
    };
  }

  async close(): Promise<void> {
    const listener = await this.listener?.catch(() => undefined);
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }

  transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work);
  }
}
