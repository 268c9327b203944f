// The fence as SQL, and the store's functions that append a run's events in one round trip: shared
// by fenced transactions (fence.ts) and the store's schema (store.ts).
import { LIVE_LEASE } from "./lease.js";

/**
 * The rows that say the run `$1` is held by attempt `$2` on worker `$3` under lease epoch `$4`,
 * locked until the transaction commits: the run row for update, the worker's lease row for share.
 * `SELECT 1` or `PERFORM 1` (PL/pgSQL) before it.
 */
const FENCED_ROWS = `FROM codex_harness_fleet_runs r
JOIN codex_harness_fleet_workers w ON w.name = r.worker AND w.epoch = r.lease_epoch
WHERE r.run_id = $1 AND r.attempts = $2 AND r.worker = $3 AND r.lease_epoch = $4
  AND r.status = 'running' AND ${LIVE_LEASE}
FOR UPDATE OF r FOR SHARE OF w`;

/** One row (and the locks) while the attempt holds the run; none once it does not. */
export const FENCE = `SELECT 1 ${FENCED_ROWS}`;

/**
 * `add_events(run, events, channel)`: appends `events` to `run` in order (their sequences follow
 * the run's last), NOTIFYs `channel` of it and returns their sequences (NULL, and no NOTIFY, for
 * none); the caller holds the run's row lock. `append_fenced(run, attempt, worker, epoch, events,
 * channel)`: the same as one transaction behind {@link FENCE}, or NULL (nothing written) when the
 * attempt no longer holds the run. Each statement in them reads what committed before it, as
 * separate statements would.
 */
export const EVENT_FUNCTIONS = `
CREATE OR REPLACE FUNCTION codex_harness_fleet_add_events(text, jsonb[], text)
RETURNS integer[] LANGUAGE plpgsql AS $fn$
DECLARE seqs integer[];
BEGIN
  WITH added AS (
    INSERT INTO codex_harness_fleet_events (run_id, seq, event)
    SELECT $1, last.seq + e.n, e.event
    FROM (SELECT COALESCE(MAX(seq), 0) AS seq FROM codex_harness_fleet_events WHERE run_id = $1) last,
         unnest($2) WITH ORDINALITY AS e(event, n)
    ORDER BY e.n
    RETURNING seq)
  SELECT array_agg(seq ORDER BY seq) INTO seqs FROM added;
  IF seqs IS NOT NULL THEN PERFORM pg_notify($3, $1); END IF;
  RETURN seqs;
END $fn$;
CREATE OR REPLACE FUNCTION codex_harness_fleet_append_fenced(text, integer, text, bigint, jsonb[], text)
RETURNS integer[] LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM 1 ${FENCED_ROWS};
  IF NOT FOUND THEN RETURN NULL; END IF;
  RETURN COALESCE(codex_harness_fleet_add_events($1, $5, $6), '{}');
END $fn$;
`;
