// submitTurn: queue one turn for the fleet, and follow it from anywhere (events by sequence,
// woken by NOTIFY; the result once recorded).
import { CodexHarnessError } from "../errors.js";
import type { RunResult } from "../session/agent-events.js";
import { type FleetEvent, FleetStore, type FleetTurnRequest } from "./store.js";
import { enqueueTurn, migrateQueue } from "./worker.js";

/** A submitted run, followed from this process. */
export interface FleetRun {
  readonly runId: string;
  /** False when this `externalRunId` was submitted before: it is not run again. */
  readonly created: boolean;
  /**
   * The run's events as they are recorded, after `since` (a sequence seen before, to resume);
   * ends after the `complete` event. Events carry the `attempt` and `worker` that emitted them.
   */
  events(options?: { since?: number; signal?: AbortSignal }): AsyncGenerator<FleetEvent>;
  /** The run's result once it is recorded (at most once, whatever retries happened). */
  result(options?: { signal?: AbortSignal }): Promise<RunResult>;
  /** Closes this handle's connections, when it opened them (the run goes on). */
  close(): Promise<void>;
}

/**
 * `submitTurn`'s request: the turn, and the fleet's PostgreSQL URL — or an open
 * {@link FleetStore}, shared by many submissions (its connections are then the caller's to close).
 */
export interface SubmitTurnRequest extends FleetTurnRequest {
  store: string | FleetStore;
}

/** How often a follower looks again when no NOTIFY came (a missed one costs at most this). */
const POLL_MS = 2_000;

/**
 * Queues a turn of `externalSessionId` for the fleet's workers (`codex-harness worker`) and
 * returns its handle. The session's turns run one at a time in submission order; a repeated
 * `externalRunId` is not queued again (the handle follows the recorded run). Throws
 * `invalid_input` for a malformed request, `store_failed` when PostgreSQL cannot be used.
 */
export async function submitTurn(request: SubmitTurnRequest): Promise<FleetRun> {
  checkRequest(request);
  const { store: given, ...turn } = request;
  const owned = typeof given === "string";
  const store = owned ? await FleetStore.open(given) : given;
  try {
    store.queueReady ??= migrateQueue(store.url);
    await store.queueReady;
    const { created } = await store.addRun(turn, (client) => enqueueTurn(client, turn));
    return followRun(store, turn.externalRunId, created, owned);
  } catch (error) {
    if (owned) await store.close();
    throw error;
  }
}

/** A handle on a run already submitted (from another process or machine). */
export async function followFleetRun(storeUrl: string, runId: string): Promise<FleetRun> {
  const store = await FleetStore.open(storeUrl);
  if (!(await store.getRun(runId))) {
    await store.close();
    throw new CodexHarnessError(
      "run_not_found",
      `No fleet run ${JSON.stringify(runId)} in the store.`,
    );
  }
  return followRun(store, runId, false, true);
}

function followRun(store: FleetStore, runId: string, created: boolean, owned: boolean): FleetRun {
  const run: FleetRun = {
    runId,
    created,
    async *events(options = {}) {
      let last = options.since ?? 0;
      // A NOTIFY between reading and waiting is not lost: `woken` remembers it.
      let woken = false;
      let wake: (() => void) | undefined;
      const stop = await store.listen((id) => {
        if (id !== runId) return;
        woken = true;
        wake?.();
      });
      const { signal } = options;
      const aborted = new Promise<never>((_, reject) => {
        if (signal?.aborted) reject(signal.reason);
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
      aborted.catch(() => undefined);
      try {
        for (;;) {
          woken = false;
          for (const event of await store.events(runId, last)) {
            last = event.seq;
            yield event;
            if (event.event.type === "complete") return;
          }
          const recorded = await store.getRun(runId);
          if (recorded?.result && (await store.events(runId, last)).length === 0) return;
          if (woken) continue;
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([
            new Promise<void>((resolve) => {
              timer = setTimeout(resolve, POLL_MS);
              wake = resolve;
            }),
            aborted,
          ]).finally(() => clearTimeout(timer));
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
      const recorded = await store.getRun(runId);
      if (!recorded?.result) {
        throw new CodexHarnessError("run_not_finished", `Fleet run ${runId} has no result yet.`);
      }
      return recorded.result;
    },
    close: async () => {
      if (owned) await store.close();
    },
  };
  return run;
}

function checkRequest(request: SubmitTurnRequest): void {
  const need = (ok: boolean, message: string) => {
    if (!ok) throw new CodexHarnessError("invalid_input", message);
  };
  need(typeof request === "object" && request !== null, "submitTurn needs a request object.");
  need(
    request?.store instanceof FleetStore ||
      (typeof request?.store === "string" && request.store !== ""),
    "submitTurn needs `store`: the fleet's PostgreSQL URL, or an open FleetStore.",
  );
  for (const key of ["externalSessionId", "externalRunId", "target", "prompt"] as const) {
    need(
      typeof request[key] === "string" && request[key].trim() !== "",
      `submitTurn needs a non-empty string \`${key}\`.`,
    );
  }
}
