// submitTurn: queue one turn for the fleet, and follow it from anywhere (events by sequence,
// woken by NOTIFY; the result once recorded), riding out database outages on the way.
import { redactUrl } from "../channels/drivers.js";
import { CodexHarnessError } from "../errors.js";
import type { RunResult } from "../session/agent-events.js";
import { cancelFleetRun, type FleetCancelOutcome } from "./cancel.js";
import { traceSubmit } from "./fleet-telemetry.js";
import { isConnectionError, type OutageOptions, throughOutage } from "./outage.js";
import { migrateQueue, queuedAs, queueRun } from "./queue.js";
import { checkRunId, checkTurnFields } from "./request-check.js";
import { type FleetEvent, FleetStore, type FleetTurnRequest } from "./store.js";

/** How submitting and following live through a database outage. */
export interface FollowOptions {
  /**
   * How long submitting, or a follower, keeps reconnecting while PostgreSQL is unreachable before
   * it gives up with `store_unreachable` (ms, default 300 000). A run being followed goes on in the
   * fleet; one being submitted may or may not be queued: submitting it again queues it at most once.
   */
  outageGiveUpMs?: number;
  /** Told once when an outage starts ("waiting") and once when it ends ("back"). */
  onOutage?: (state: "waiting" | "back", error: Error) => void;
}

/** A submitted run, followed from this process. */
export interface FleetRun {
  readonly runId: string;
  /** False when this `externalRunId` was submitted before: it is not run again. */
  readonly created: boolean;
  /**
   * The run's events as they are recorded, after `since` (a sequence seen before, to resume);
   * ends after the `complete` event. Events carry the `attempt` and `worker` that emitted them.
   * A database outage is waited out (see {@link FollowOptions}); the events resume where they were.
   */
  events(options?: { since?: number; signal?: AbortSignal }): AsyncGenerator<FleetEvent>;
  /** The run's result once it is recorded (at most once, whatever retries happened). */
  result(options?: { signal?: AbortSignal }): Promise<RunResult>;
  /**
   * Cancels the run: a queued one never starts, a running one is interrupted at its worker; the
   * `complete` event then says so (see {@link cancelFleetRun}).
   */
  cancel(): Promise<FleetCancelOutcome>;
  /** Closes this handle's connections, when it opened them (the run goes on). */
  close(): Promise<void>;
}

/**
 * `submitTurn`'s request: the turn, and the fleet's PostgreSQL URL — or an open
 * {@link FleetStore}, shared by many submissions (its connections are then the caller's to close).
 */
export interface SubmitTurnRequest extends FleetTurnRequest, FollowOptions {
  store: string | FleetStore;
}

/** How often a follower looks again when no NOTIFY came (a missed one costs at most this). */
const POLL_MS = 2_000;
const DEFAULT_GIVE_UP_MS = 300_000;

/**
 * Queues a turn of `externalSessionId` for the fleet's workers (`codex-harness worker`) and
 * returns its handle. The session's turns run one at a time in submission order; a repeated
 * `externalRunId` is not queued again (the handle follows the recorded run). A database outage
 * on the way (a connection dropped, the server restarting) is ridden out as a follower does (see
 * {@link FollowOptions}): the run is queued once, also when an attempt committed but its answer
 * was lost. `startedBy` (the person the turn runs for) and `routing.rules` go with the run: its
 * worker applies them to its channels approvals, after the target's `[[routing]]` rules, and the
 * run fails before its turn starts when they cannot hold (`routing_refused`).
 * Throws `invalid_input` for a malformed request (naming the field and the limit),
 * `store_unreachable` when PostgreSQL stays unreachable for `outageGiveUpMs`, `store_failed` when
 * it cannot be used otherwise (a bad URL, a refused login).
 */
export async function submitTurn(request: SubmitTurnRequest): Promise<FleetRun> {
  checkRequest(request);
  const { store: given, outageGiveUpMs, onOutage, ...turn } = request;
  const follow = { outageGiveUpMs, onOutage };
  const owned = typeof given === "string";
  const url = owned ? given : given.url;
  let store = owned ? undefined : given;
  // Set once a queueRun may have committed without this process hearing of it.
  let unsure = false;
  const trace = traceSubmit(turn);
  try {
    const created = await throughOutage(
      async () => {
        store ??= await FleetStore.open(url);
        const open = store;
        open.queueReady ??= migrateQueue(open, true);
        await open.queueReady.catch((error) => {
          open.queueReady = undefined;
          throw error;
        });
        try {
          if (await queueRun(open, turn, { traceContext: trace?.carrier })) return true;
        } catch (error) {
          unsure ||= isConnectionError(error);
          throw error;
        }
        // Known already: queued by this call's attempt whose answer was lost, or submitted before.
        return unsure && (await queuedAs(open, turn));
      },
      {
        ...outageOptions(follow),
        advice: `Check that the server at ${redactUrl(url)} is up and reachable from here, then submit again with the same run id (--run-id ${turn.externalRunId}): it is queued at most once.`,
      },
    );
    trace?.end(created);
    return followRun(store as FleetStore, turn.externalRunId, created, owned, follow);
  } catch (error) {
    trace?.end(undefined, error);
    if (owned) await store?.close();
    throw error;
  }
}

/** A handle on a run already submitted (from another process or machine). */
export async function followFleetRun(
  storeUrl: string,
  runId: string,
  options: FollowOptions = {},
): Promise<FleetRun> {
  checkRunId("followFleetRun", runId);
  const store = await FleetStore.open(storeUrl);
  if (!(await store.getRun(runId))) {
    await store.close();
    throw new CodexHarnessError(
      "run_not_found",
      `No fleet run ${JSON.stringify(runId)} in the store.`,
    );
  }
  return followRun(store, runId, false, true, options);
}

function followRun(
  store: FleetStore,
  runId: string,
  created: boolean,
  owned: boolean,
  follow: FollowOptions,
): FleetRun {
  const outage = (signal?: AbortSignal) => outageOptions(follow, signal);
  const run: FleetRun = {
    runId,
    created,
    async *events(options = {}) {
      const { signal } = options;
      const ride = <T>(work: () => Promise<T>) => throughOutage(work, outage(signal));
      let last = options.since ?? 0;
      // A NOTIFY between reading and waiting is not lost: `woken` remembers it.
      let woken = false;
      let wake: (() => void) | undefined;
      const stop = await ride(() =>
        store.listen("events", (id) => {
          if (id !== runId) return;
          woken = true;
          wake?.();
        }),
      );
      try {
        for (;;) {
          woken = false;
          // After an outage: listen again, then read what was missed meanwhile.
          await ride(() => store.listening());
          const fresh = await ride(() => store.events(runId, last));
          for (const event of fresh) {
            last = event.seq;
            yield event;
            if (event.event.type === "complete") return;
          }
          // Every end appends a `complete` event; a run recorded ended without one (nothing new
          // came) ends the stream all the same.
          if (fresh.length === 0) {
            const recorded = await ride(() => store.getRun(runId));
            if (recorded?.result && (await ride(() => store.events(runId, last))).length === 0) {
              return;
            }
          }
          if (woken) continue;
          let timer: NodeJS.Timeout | undefined;
          const onAbort = () => wake?.();
          signal?.addEventListener("abort", onAbort, { once: true });
          await new Promise<void>((resolve) => {
            timer = setTimeout(resolve, POLL_MS);
            wake = resolve;
            if (signal?.aborted) resolve();
          });
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          signal?.throwIfAborted();
        }
      } finally {
        wake = undefined;
        await stop();
      }
    },
    async result(options = {}) {
      for await (const _ of run.events(options)) {
        // Read to the end: the result is recorded by then.
      }
      const recorded = await throughOutage(() => store.getRun(runId), outage(options.signal));
      if (!recorded?.result) {
        throw new CodexHarnessError("run_not_finished", `Fleet run ${runId} has no result yet.`);
      }
      return recorded.result;
    },
    cancel: () => cancelFleetRun(store, runId),
    close: async () => {
      if (owned) await store.close();
    },
  };
  return run;
}

function outageOptions(follow: FollowOptions, signal?: AbortSignal): OutageOptions {
  return {
    giveUpMs: follow.outageGiveUpMs ?? DEFAULT_GIVE_UP_MS,
    ...(signal ? { signal } : {}),
    ...(follow.onOutage ? { onOutage: follow.onOutage } : {}),
  };
}

function checkRequest(request: SubmitTurnRequest): void {
  if (typeof request !== "object" || request === null) {
    throw new CodexHarnessError("invalid_input", "submitTurn needs a request object.");
  }
  if (
    !(request.store instanceof FleetStore) &&
    !(typeof request.store === "string" && request.store !== "")
  ) {
    throw new CodexHarnessError(
      "invalid_input",
      "submitTurn needs `store`: the fleet's PostgreSQL URL, or an open FleetStore.",
    );
  }
  checkTurnFields("submitTurn", request as unknown as Record<string, unknown>);
}
