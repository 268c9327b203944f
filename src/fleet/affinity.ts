// A session's next turn goes back to the worker that keeps it warm, when that worker is free: each
// job carries its session's flag, and a worker skips (graphile-worker's forbidden flags) the young
// queued turns of sessions another live, idle worker keeps warm. Only for a moment: past
// AFFINITY_MS in the queue a turn goes to whoever is free, so a warm worker that died, hangs or is
// slow to ask delays its sessions' turns by at most that (plus one poll), never more.
import { LIVE_LEASE } from "./lease.js";
import type { FleetStore } from "./store.js";

/** How long a queued turn is kept for the idle worker that keeps its session warm. */
export const AFFINITY_MS = 500;

/** The graphile-worker flag of a session's jobs. */
export function sessionFlag(sessionId: string): string {
  return `codex-harness-session:${sessionId}`;
}

/**
 * The flags of the sessions `worker` should leave to another worker now: each has a turn queued
 * less than {@link AFFINITY_MS} ago, and keeps its codex warm on another worker whose lease is
 * live and that runs no turn. On any error, none (the queue's own fetch reports the database).
 */
export async function warmElsewhere(store: FleetStore, worker: string): Promise<string[]> {
  try {
    const { rows } = await store.pool.query(
      `SELECT DISTINCT r.session_id FROM codex_harness_fleet_runs r
       JOIN codex_harness_fleet_sessions s ON s.session_id = r.session_id
       JOIN codex_harness_fleet_workers w ON w.name = s.warm_worker
       WHERE r.status = 'queued' AND r.created_at > now() - $2 * interval '1 millisecond'
         AND s.warm_worker <> $1 AND ${LIVE_LEASE}
         AND NOT EXISTS (SELECT 1 FROM codex_harness_fleet_runs busy
                         WHERE busy.worker = s.warm_worker AND busy.status = 'running')`,
      [worker, AFFINITY_MS],
    );
    return rows.map((row) => sessionFlag(row.session_id as string));
  } catch {
    return [];
  }
}
