// Leases of the fleet's workers: each live worker renews its row, which carries an epoch that only
// grows (a new one per lease taken); any worker releases the jobs of one whose lease ran out
// (killed, frozen, cut off; graphile-worker alone would wait 4 hours), so another worker takes its
// turn over. A lease once reaped is never renewed: the worker must take a new one.
import type { Pool } from "pg";
import { inTransaction } from "../channels/pg-pool.js";
import { CodexHarnessError } from "../errors.js";

/** A live lease of the workers' row `w`, by the database's clock (each worker's own lease length). */
export const LIVE_LEASE = "w.heartbeat_at > now() - w.lease_ms * interval '1 millisecond'";

/** A lease's end, as the worker learns it. */
export class LeaseLostError extends CodexHarnessError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("lease_lost", message, options);
  }
}

/** Options of {@link WorkerLease.start}. */
export interface WorkerLeaseOptions {
  pool: Pool;
  name: string;
  leaseMs: number;
  /** The ids the queue knows this worker's slots by (their jobs go back if the lease ends). */
  queueWorkerIds: () => string[];
  /** Called once when the lease is lost: reaped by another worker, or unrenewable for a lease. */
  onLost: (error: LeaseLostError) => void;
  /** Called on every renewal (e.g. to look for runs asked to stop). */
  onRenewed?: () => void;
  /** A lease of this worker's from before (its epoch), to take over without waiting it out. */
  previousEpoch?: number;
}

/**
 * Keeps `name`'s lease for as long as it runs (renewed every third of `leaseMs`), and every half
 * lease hands the jobs of workers whose lease ran out back to the queue.
 */
export class WorkerLease {
  private readonly timers: NodeJS.Timeout[] = [];
  private lastRenewed = Date.now();
  private lost: LeaseLostError | undefined;

  private constructor(
    private readonly options: WorkerLeaseOptions,
    /** This lease's epoch: the fencing token of every attempt run under it. */
    readonly epoch: number,
  ) {}

  /**
   * Takes the lease of `name`: refused (`worker_name_taken`) while another live worker holds it;
   * an expired lease of that name is reaped first (its jobs go back to the queue).
   */
  static async start(options: WorkerLeaseOptions): Promise<WorkerLease> {
    const epoch = await inTransaction(options.pool, async (client) => {
      const { rows } = await client.query(
        `SELECT epoch, queue_worker_ids, ${LIVE_LEASE} AS live
         FROM codex_harness_fleet_workers w WHERE name = $1 FOR UPDATE`,
        [options.name],
      );
      const held = rows[0];
      if (held?.live && Number(held.epoch) !== options.previousEpoch) {
        throw new CodexHarnessError(
          "worker_name_taken",
          `A live worker is already named ${JSON.stringify(options.name)}: give each worker its own --name.`,
        );
      }
      if (held) {
        await unlock(client, held.queue_worker_ids as string[]);
        await client.query("DELETE FROM codex_harness_fleet_workers WHERE name = $1", [
          options.name,
        ]);
      }
      const inserted = await client.query(
        `INSERT INTO codex_harness_fleet_workers (name, epoch, lease_ms, queue_worker_ids, heartbeat_at)
         VALUES ($1, nextval('codex_harness_fleet_lease_epochs'), $2, $3, now()) RETURNING epoch`,
        [options.name, Math.round(options.leaseMs), options.queueWorkerIds()],
      );
      return Number(inserted.rows[0].epoch);
    });
    const lease = new WorkerLease(options, epoch);
    lease.every(options.leaseMs / 3, () => lease.renew());
    lease.every(options.leaseMs / 2, () => lease.reap());
    return lease;
  }

  /** Ends the lease: the row and the slots' jobs go (nothing of ours is held any more). */
  async end(): Promise<void> {
    this.stopTimers();
    await inTransaction(this.options.pool, async (client) => {
      const { rows } = await client.query(
        "DELETE FROM codex_harness_fleet_workers WHERE name = $1 AND epoch = $2 RETURNING queue_worker_ids",
        [this.options.name, this.epoch],
      );
      await unlock(client, (rows[0]?.queue_worker_ids as string[] | undefined) ?? []);
    });
  }

  /** Stops renewing (the lease runs out by itself unless ended). */
  stopTimers(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
  }

  private every(ms: number, work: () => Promise<void>): void {
    const timer = setInterval(() => {
      work().catch((error: Error) => {
        if (error instanceof LeaseLostError) this.lose(error);
        else if (Date.now() - this.lastRenewed > this.options.leaseMs) {
          this.lose(
            new LeaseLostError(
              `worker ${this.options.name} could not renew its lease for ${Math.round((Date.now() - this.lastRenewed) / 1000)} s (${error.message})`,
              { cause: error },
            ),
          );
        }
      });
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  private lose(error: LeaseLostError): void {
    if (this.lost) return;
    this.lost = error;
    this.stopTimers();
    this.options.onLost(error);
  }

  /** Renews the lease now (e.g. once the worker's queue slots exist). Throws when it is gone. */
  async renew(): Promise<void> {
    if (this.lost) throw this.lost;
    const { rowCount } = await this.options.pool.query(
      `UPDATE codex_harness_fleet_workers SET queue_worker_ids = $3, heartbeat_at = now()
       WHERE name = $1 AND epoch = $2`,
      [this.options.name, this.epoch, this.options.queueWorkerIds()],
    );
    if (rowCount !== 1) {
      throw new LeaseLostError(
        `worker ${this.options.name}'s lease (epoch ${this.epoch}) ran out and was taken over by another worker`,
      );
    }
    this.lastRenewed = Date.now();
    this.options.onRenewed?.();
  }

  /**
   * Releases the jobs (and session queues) held by workers whose lease ran out, in the same
   * transaction that removes their rows: each is released once, and never lost.
   */
  private async reap(): Promise<void> {
    await inTransaction(this.options.pool, async (client) => {
      const { rows } = await client.query(
        `DELETE FROM codex_harness_fleet_workers w WHERE NOT (${LIVE_LEASE})
         RETURNING queue_worker_ids`,
      );
      // And slots no live worker names that hold a job longer than a lease (a worker killed
      // before its lease named them).
      const orphans = await client.query(
        `SELECT DISTINCT locked_by FROM graphile_worker._private_jobs
         WHERE locked_by IS NOT NULL
           AND locked_at < now() - make_interval(secs => $1::double precision / 1000)
           AND NOT EXISTS (SELECT 1 FROM codex_harness_fleet_workers w
                           WHERE locked_by = ANY (w.queue_worker_ids))`,
        [this.options.leaseMs],
      );
      await unlock(client, [
        ...rows.flatMap((row) => row.queue_worker_ids as string[]),
        ...orphans.rows.map((row) => row.locked_by as string),
      ]);
    });
  }
}

/** Hands the jobs and queues locked by these queue slots back to the queue. */
async function unlock(client: Pick<Pool, "query">, slots: string[]): Promise<void> {
  if (slots.length === 0) return;
  await client.query("SELECT graphile_worker.force_unlock_workers($1::text[])", [slots]);
}
