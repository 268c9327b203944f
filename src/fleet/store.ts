// The fleet's tables in PostgreSQL: runs (one per externalRunId), their events (rows + NOTIFY,
// read back by sequence), session records with the thread's rollout, and live workers.
import type { Pool, PoolClient } from "pg";
import { loadDriver, redactUrl } from "../channels/drivers.js";
import { inTransaction, openPool } from "../channels/pg-pool.js";
import { CodexHarnessError } from "../errors.js";
import type { AgentEvent, RunResult } from "../session/agent-events.js";

const SCHEMA_LOCK = 4_317_016;
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
`;
const CHANNEL = "codex_harness_fleet_events";

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
}

/** A run as stored. */
export interface FleetRunRow {
  runId: string;
  sessionId: string;
  request: FleetTurnRequest;
  status: "queued" | "running" | "completed" | "failed";
  attempts: number;
  worker: string | null;
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
}

/** A stored event: the run's own sequence (across attempts) and the AgentEvent. */
export interface FleetEvent {
  seq: number;
  event: AgentEvent & { attempt?: number; worker?: string };
}

/** The fleet's store on one PostgreSQL database (a pool of connections). */
export class FleetStore {
  private readonly subscribers = new Set<(runId: string) => void>();
  private listener: Promise<import("pg").Client> | undefined;
  /** Set once graphile-worker's tables are known to exist. */
  queueReady: Promise<void> | undefined;

  private constructor(
    readonly url: string,
    readonly pool: Pool,
    private readonly pg: typeof import("pg"),
  ) {}

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

  /**
   * Records a run and queues its job (`enqueue`, in the same transaction) unless the run id is
   * known: then nothing is queued and the existing run is returned (`created` false).
   */
  async addRun(
    request: FleetTurnRequest,
    enqueue: (client: PoolClient) => Promise<void>,
  ): Promise<{ run: FleetRunRow; created: boolean }> {
    return this.transaction(async (client) => {
      const inserted = await client.query(
        `INSERT INTO codex_harness_fleet_runs (run_id, session_id, request) VALUES ($1, $2, $3)
         ON CONFLICT (run_id) DO NOTHING RETURNING run_id`,
        [request.externalRunId, request.externalSessionId, request],
      );
      const created = inserted.rowCount === 1;
      if (created) await enqueue(client);
      const run = await this.getRun(request.externalRunId, client);
      return { run: run as FleetRunRow, created };
    });
  }

  async getRun(
    runId: string,
    client: Pick<Pool, "query"> = this.pool,
  ): Promise<FleetRunRow | undefined> {
    const { rows } = await client.query(
      "SELECT run_id, session_id, request, status, attempts, worker, result FROM codex_harness_fleet_runs WHERE run_id = $1",
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
      result: row.result,
    };
  }

  /** Marks a run as running on `worker` (a new attempt); undefined when it already ended. */
  async startRun(runId: string, worker: string): Promise<FleetRunRow | undefined> {
    const { rows } = await this.pool.query(
      `UPDATE codex_harness_fleet_runs SET status = 'running', attempts = attempts + 1, worker = $2,
         started_at = now() WHERE run_id = $1 AND status IN ('queued', 'running') RETURNING run_id`,
      [runId, worker],
    );
    return rows.length === 0 ? undefined : this.getRun(runId);
  }

  /** Records the run's result once: a second call (another attempt) changes nothing. */
  async finishRun(runId: string, result: RunResult): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE codex_harness_fleet_runs SET status = $2, result = $3, finished_at = now()
       WHERE run_id = $1 AND status IN ('queued', 'running')`,
      [runId, result.success ? "completed" : "failed", result],
    );
    return rowCount === 1;
  }

  /** Appends an event to the run (its sequence follows the run's last) and notifies listeners. */
  async addEvent(runId: string, event: FleetEvent["event"]): Promise<number> {
    return this.transaction(async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [runId]);
      const { rows } = await client.query(
        `INSERT INTO codex_harness_fleet_events (run_id, seq, event)
         SELECT $1, COALESCE(MAX(seq), 0) + 1, $2 FROM codex_harness_fleet_events WHERE run_id = $1
         RETURNING seq`,
        [runId, event],
      );
      const seq = rows[0].seq as number;
      await client.query("SELECT pg_notify($1, $2)", [CHANNEL, `${runId}\n${seq}`]);
      return seq;
    });
  }

  /** The run's events after `since`, in order. */
  async events(runId: string, since = 0): Promise<FleetEvent[]> {
    const { rows } = await this.pool.query(
      "SELECT seq, event FROM codex_harness_fleet_events WHERE run_id = $1 AND seq > $2 ORDER BY seq",
      [runId, since],
    );
    return rows.map((row) => ({ seq: row.seq, event: row.event }));
  }

  /**
   * Calls `onEvent(runId)` whenever an event is added to any run, until the returned function is
   * called. One connection of this store LISTENs for all its subscribers.
   */
  async listen(onEvent: (runId: string) => void): Promise<() => Promise<void>> {
    this.subscribers.add(onEvent);
    try {
      this.listener ??= this.openListener();
      await this.listener;
    } catch (error) {
      this.subscribers.delete(onEvent);
      this.listener = undefined;
      throw error;
    }
    return async () => {
      this.subscribers.delete(onEvent);
    };
  }

  private async openListener(): Promise<import("pg").Client> {
    const client = new this.pg.Client({ connectionString: this.url });
    client.on("error", () => undefined);
    await client.connect();
    client.on("notification", (message) => {
      const runId = message.payload?.split("\n")[0];
      if (runId) for (const subscriber of this.subscribers) subscriber(runId);
    });
    await client.query(`LISTEN ${CHANNEL}`);
    return client;
  }

  async getSession(sessionId: string): Promise<FleetSessionRow | undefined> {
    const { rows } = await this.pool.query(
      `SELECT session_id, thread_id, model, rollout_path, rollout, manifest_hash
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
    };
  }

  /** Writes the session's record (after a turn: its thread and rollout). */
  async saveSession(session: FleetSessionRow): Promise<void> {
    await this.pool.query(
      `INSERT INTO codex_harness_fleet_sessions
         (session_id, harness, thread_id, model, rollout_path, rollout, manifest_hash, updated_at)
       VALUES ($1, 'codex', $2, $3, $4, $5, $6, now())
       ON CONFLICT (session_id) DO UPDATE SET thread_id = $2, model = $3, rollout_path = $4,
         rollout = $5, manifest_hash = $6, updated_at = now()`,
      [
        session.sessionId,
        session.threadId,
        session.model,
        session.rolloutPath,
        session.rollout,
        session.manifestHash,
      ],
    );
  }

  async close(): Promise<void> {
    const listener = await this.listener?.catch(() => undefined);
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }

  private transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work);
  }
}
