// Cancelling a fleet run from anywhere: a queued run (or one whose worker's lease ran out) is
// recorded cancelled at once and never starts; a running one is asked to stop, and the worker
// holding it interrupts its turn at codex and records the cancellation — exactly once either way.
import { CodexHarnessError } from "../errors.js";
import type { RunResult } from "../session/agent-events.js";
import { cancelledWithoutAttempt } from "./fleet-telemetry.js";
import { LIVE_LEASE } from "./lease.js";
import { checkRunId } from "./request-check.js";
import type { FleetRunStatus, FleetStore } from "./store.js";

/** What {@link cancelFleetRun} did. */
export interface FleetCancelOutcome {
  /**
   * `cancelled`: recorded now (it never ran, its worker was gone, or it waited for a retry);
   * `cancelling`: its worker was asked to stop it and records the cancellation;
   * `completed`/`failed`/`cancelled` when the run had already ended (`alreadyEnded` true).
   */
  status: "cancelling" | FleetRunStatus;
  alreadyEnded: boolean;
}

/** The result recorded for a cancelled run. */
export function cancelledResult(by: string): RunResult {
  return {
    success: false,
    error: { message: `The run was cancelled ${by}.`, details: { cancelled: true } },
  };
}

/**
 * Cancels fleet run `runId`. A queued run is recorded `cancelled` and its job removed, so it never
 * starts; a running one is interrupted at its worker (nothing it started runs on, pending
 * approvals are withdrawn), which then records it `cancelled`; an ended run is left as it is.
 * Follow the run (its `complete` event) to see when the cancellation is recorded. Throws
 * `run_not_found` for an unknown run, `invalid_input` for a malformed id.
 */
export async function cancelFleetRun(
  store: FleetStore,
  runId: string,
): Promise<FleetCancelOutcome> {
  checkRunId("cancelFleetRun", runId);
  const outcome = await store.transaction<FleetCancelOutcome & { traceContext?: unknown }>(
    async (client) => {
      const { rows } = await client.query(
        `SELECT r.status, r.session_id, r.trace_context, EXISTS (
         SELECT 1 FROM codex_harness_fleet_workers w
         WHERE w.name = r.worker AND w.epoch = r.lease_epoch
           AND ${LIVE_LEASE}) AS live,
       EXISTS (SELECT 1 FROM graphile_worker.jobs j WHERE j.key = r.run_id AND j.locked_at IS NOT NULL)
         AS taken
       FROM codex_harness_fleet_runs r WHERE r.run_id = $1 FOR UPDATE OF r`,
        [runId],
      );
      const row = rows[0];
      if (!row) {
        throw new CodexHarnessError(
          "run_not_found",
          `No fleet run ${JSON.stringify(runId)} in the store.`,
        );
      }
      const status = row.status as FleetRunStatus;
      if (status !== "queued" && status !== "running") return { status, alreadyEnded: true };
      // Running means an attempt holds its job on a live worker; a run whose attempt failed waits,
      // unheld, for its retry (graphile-worker's backoff: seconds, later hours) and is ended here.
      if (status === "running" && row.live && row.taken) {
        await client.query(
          `UPDATE codex_harness_fleet_runs SET cancel_requested_at = COALESCE(cancel_requested_at, now())
         WHERE run_id = $1`,
          [runId],
        );
        await store.notify(client, "cancels", runId);
        return { status: "cancelling", alreadyEnded: false };
      }
      // Nobody runs it: record the cancellation here. Its job, if a worker holds it after all,
      // finds the run ended and leaves it; a stale attempt's writes are refused.
      const result = cancelledResult(
        status === "queued"
          ? "before it started"
          : row.live
            ? "while it waited to be retried"
            : "while its worker was gone",
      );
      await client.query(
        `UPDATE codex_harness_fleet_runs SET status = 'cancelled', result = $2, finished_at = now(),
         cancel_requested_at = COALESCE(cancel_requested_at, now())
       WHERE run_id = $1`,
        [runId, result],
      );
      await store.appendEvent(client, runId, {
        type: "complete",
        result,
        ts: new Date().toISOString(),
        externalSessionId: row.session_id,
        externalRunId: runId,
      });
      await client.query("SELECT graphile_worker.remove_job($1)", [runId]);
      return { status: "cancelled", alreadyEnded: false, traceContext: row.trace_context };
    },
  );
  if (outcome.status === "cancelled" && !outcome.alreadyEnded) {
    cancelledWithoutAttempt(runId, outcome.traceContext);
  }
  return { status: outcome.status, alreadyEnded: outcome.alreadyEnded };
}
