// A session's next turn goes back to the worker that keeps it warm, when that worker is free: each
// job carries its session's flag, and a worker skips (graphile-worker's forbidden flags) the
// sessions another live, idle worker keeps warm or is running a turn of. The list is asked before
// a fetch and used by it a moment later, so it names sessions, not queued turns: a turn queued in
// between is covered too. Only for a moment: once a session's turn has waited AFFINITY_MS in the
// queue, it goes to whoever is free, so a warm worker that died, hangs or is slow to ask delays
// its sessions' turns by at most that (plus one poll), never more.
//
// And the other way round: a worker with a turn of a session it keeps warm waiting takes that turn
// before other sessions' turns queued less than WARM_FIRST_MS ago (a warm turn costs codex about
// a fifth of a cold one's CPU: no start, no shell snapshot). Turns that waited longer keep their
// place: none is passed over for more than that.
import { LIVE_LEASE } from "./lease.js";
import type { FleetStore } from "./store.js";

/** How long a queued turn is kept for the idle worker that keeps its session warm. */
export const AFFINITY_MS = 500;

/** How long a queued turn may be passed over by a worker taking a turn of a session it keeps warm. */
export const WARM_FIRST_MS = 5_000;

/** The graphile-worker flag of a session's jobs. */
export function sessionFlag(sessionId: string): string {
  return `codex-harness-session:${sessionId}`;
}

/**
 * The flags of the sessions `worker` should leave alone in its next fetch: those warm on (or with
 * their turn running on) another worker whose lease is live and that runs no other session's
 * turn, unless a turn of theirs was queued {@link AFFINITY_MS} ago or longer; and, while a turn of
 * a session `worker` keeps warm is waiting (none of it running), every other session with a turn
 * queued less than {@link WARM_FIRST_MS} ago. On any error, none (the queue's own fetch reports
 * the database).
 */
export async function sessionsToLeave(store: FleetStore, worker: string): Promise<string[]> {
  try {
    // Named: asked before every fetch, so each connection plans it once (0.3 ms a fetch here).
    const { rows } = await store.pool.query({
      name: "codex-harness-sessions-to-leave",
      text: `WITH kept (session_id, worker) AS (
         SELECT session_id, warm_worker FROM codex_harness_fleet_sessions
         WHERE warm_worker IS NOT NULL AND warm_worker <> $1
         UNION
         SELECT session_id, worker FROM codex_harness_fleet_runs
         WHERE status = 'running' AND worker <> $1)
       SELECT DISTINCT k.session_id FROM kept k
       JOIN codex_harness_fleet_workers w ON w.name = k.worker
       WHERE ${LIVE_LEASE}
         AND NOT EXISTS (SELECT 1 FROM codex_harness_fleet_runs busy
                         WHERE busy.worker = k.worker AND busy.status = 'running'
                           AND busy.session_id <> k.session_id)
         AND NOT EXISTS (SELECT 1 FROM codex_harness_fleet_runs waited
                         WHERE waited.session_id = k.session_id AND waited.status = 'queued'
                           AND waited.created_at <= now() - $2 * interval '1 millisecond')
       UNION
       SELECT r.session_id FROM codex_harness_fleet_runs r
       WHERE r.status = 'queued' AND r.created_at > now() - $3 * interval '1 millisecond'
         AND NOT EXISTS (SELECT 1 FROM codex_harness_fleet_sessions s
                         WHERE s.session_id = r.session_id AND s.warm_worker = $1)
         AND EXISTS (SELECT 1 FROM codex_harness_fleet_sessions mine
                     JOIN codex_harness_fleet_runs next ON next.session_id = mine.session_id
                       AND next.status = 'queued'
                     WHERE mine.warm_worker = $1
                       AND NOT EXISTS (SELECT 1 FROM codex_harness_fleet_runs ahead
                                       WHERE ahead.session_id = mine.session_id
                                         AND ahead.status = 'running'))`,
      values: [worker, AFFINITY_MS, WARM_FIRST_MS],
    });
    return rows.map((row) => sessionFlag(row.session_id as string));
  } catch {
    return [];
  }
}

/**
 * Says in the store that `worker` no longer keeps `sessionId` warm (every session it names, without
 * one: a worker starting keeps none), so that the list above stays as short as what is warm. Only
 * rows that still name `worker` change; rejects on a database error.
 */
export async function forgetWarm(
  store: FleetStore,
  worker: string,
  sessionId?: string,
): Promise<void> {
  await store.pool.query(
    `UPDATE codex_harness_fleet_sessions SET warm_worker = NULL
     WHERE warm_worker = $1 AND ($2::text IS NULL OR session_id = $2)`,
    [worker, sessionId ?? null],
  );
}
