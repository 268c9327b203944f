// Leases of the fleet's workers: each live worker renews its row; any worker releases the jobs of
// one whose lease ran out (killed, frozen, cut off; graphile-worker alone would wait 4 hours),
// so another worker takes its turn over.
import type { Pool } from "pg";
import { inTransaction } from "../channels/pg-pool.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS codex_harness_fleet_workers (
  name text PRIMARY KEY,
  queue_worker_ids text[] NOT NULL DEFAULT '{}',
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);
`;

/**
 * Keeps `name`'s lease for as long as it runs (renewed every third of `leaseMs`), and every half
 * lease hands the jobs of workers whose lease ran out back to the queue. `queueWorkerIds()` gives
 * the ids the queue knows this worker's slots by. `onLost` is called when the database cannot
 * be reached for a whole lease: the worker must stop taking work (its lease may be taken over).
 */
export class WorkerLease {
  private readonly timers: NodeJS.Timeout[] = [];
  private lastRenewed = Date.now();

  private constructor(
    private readonly pool: Pool,
    private readonly name: string,
    private readonly leaseMs: number,
    private readonly queueWorkerIds: () => string[],
    private readonly onLost: (error: Error) => void,
  ) {}

  static async start(options: {
    pool: Pool;
    name: string;
    leaseMs: number;
    queueWorkerIds: () => string[];
    onLost: (error: Error) => void;
  }): Promise<WorkerLease> {
    await options.pool.query(SCHEMA);
    const lease = new WorkerLease(
      options.pool,
      options.name,
      options.leaseMs,
      options.queueWorkerIds,
      options.onLost,
    );
    await lease.renew();
    lease.every(options.leaseMs / 3, () => lease.renew());
    lease.every(options.leaseMs / 2, () => lease.reap());
    return lease;
  }

  /** Ends the lease: the row goes (nothing of ours is held any more). */
  async end(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await this.pool
      .query("DELETE FROM codex_harness_fleet_workers WHERE name = $1", [this.name])
      .catch(() => undefined);
  }

  private every(ms: number, work: () => Promise<void>): void {
    const timer = setInterval(() => {
      work().catch((error: Error) => {
        if (Date.now() - this.lastRenewed > this.leaseMs) this.onLost(error);
      });
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  /** Renews the lease now (e.g. once the worker's queue slots exist). */
  async renew(): Promise<void> {
    await this.pool.query(
      `INSERT INTO codex_harness_fleet_workers (name, queue_worker_ids, heartbeat_at)
       VALUES ($1, $2, now())
       ON CONFLICT (name) DO UPDATE SET queue_worker_ids = $2, heartbeat_at = now()`,
      [this.name, this.queueWorkerIds()],
    );
    this.lastRenewed = Date.now();
  }

  /**
   * Releases the jobs (and session queues) held by workers whose lease ran out, in the same
   * transaction that removes their rows: each is released once, and never lost.
   */
  private async reap(): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      const { rows } = await client.query(
        `DELETE FROM codex_harness_fleet_workers
         WHERE heartbeat_at < now() - make_interval(secs => $1::double precision / 1000)
         RETURNING queue_worker_ids`,
        [this.leaseMs],
      );
      // And slots no live worker names that hold a job longer than a lease (a worker killed
      // before its lease named them).
      const orphans = await client.query(
        `SELECT DISTINCT locked_by FROM graphile_worker._private_jobs
         WHERE locked_by IS NOT NULL
           AND locked_at < now() - make_interval(secs => $1::double precision / 1000)
           AND NOT EXISTS (SELECT 1 FROM codex_harness_fleet_workers w
                           WHERE locked_by = ANY (w.queue_worker_ids))`,
        [this.leaseMs],
      );
      const ids = [
        ...rows.flatMap((row) => row.queue_worker_ids as string[]),
        ...orphans.rows.map((row) => row.locked_by as string),
      ];
      if (ids.length > 0) {
        await client.query("SELECT graphile_worker.force_unlock_workers($1::text[])", [ids]);
      }
    });
  }
}
