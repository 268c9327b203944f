// One attempt of one fleet run on this worker: a new attempt (the fencing token), the session's
// thread brought from the store into the session's codex home here (one no other live attempt
// uses), the turn run with runTurn, its events appended and its end recorded — every write fenced,
// through database outages.

import { createHash } from "node:crypto";
import { rm } from "node:fs/promises";
import path from "node:path";
import { CodexHarnessError } from "../errors.js";
import type { Approvals } from "../events/approval-types.js";
import type { RunResult } from "../session/agent-events.js";
import type { LiveSession } from "../session/live-session.js";
import { runTurnKeeping } from "../session/run-turn.js";
import { sessionRecordPath } from "../session/session-store.js";
import type { PermissionHandler } from "../session/unified-types.js";
import { installTarget } from "../spaces/install.js";
import { prepareSessionHome } from "../spaces/session-home.js";
import type { TraceCarrier } from "../telemetry/carrier.js";
import {
  EVENT_FLEET_CANCEL_REQUESTED,
  EVENT_FLEET_FENCED,
  EVENT_FLEET_LEASE_LOST,
  EVENT_FLEET_RETRY_SCHEDULED,
} from "../telemetry/semconv.js";
import type { CodexOptions } from "../turns/options.js";
import { cancelledResult } from "./cancel.js";
import { EventWriter } from "./event-writer.js";
import {
  type AttemptFence,
  type AttemptOutcome,
  appendFencedEvents,
  FencedError,
  finishAttempt,
  startAttempt,
} from "./fence.js";
import { traceAttempt } from "./fleet-telemetry.js";
import { LeaseLostError } from "./lease.js";
import { throughOutage } from "./outage.js";
import {
  type ClaimedHome,
  claimSessionHome,
  endsTurn,
  manifestHash,
  readRollout,
  writeRollout,
} from "./session-files.js";
import type { FleetStore, FleetTurnRequest } from "./store.js";
import { checkTargetInstall } from "./target-installs.js";
import type { WarmSession, WarmSessions } from "./warm-sessions.js";

/** Why a turn's signal aborted when somebody cancelled its run. */
export class RunCancelledSignal extends CodexHarnessError {
  constructor(runId: string) {
    super("run_cancelled", `fleet run ${runId} was cancelled`);
  }
}

/** Why a turn's signal aborted when its worker stopped before the turn finished: it is retried. */
export class WorkerStoppingSignal extends CodexHarnessError {
  constructor(worker: string, runId: string) {
    super(
      "worker_stopping",
      `worker ${worker} stopped while fleet run ${runId} ran: the turn was stopped at codex and the run goes back to the queue.`,
    );
  }
}

/** A run whose session has an earlier turn that has not ended: its job is retried after that one. */
export class RunWaitsError extends CodexHarnessError {
  constructor(runId: string, earlier: string) {
    super(
      "run_waits",
      `fleet run ${runId} waits for ${earlier}, an earlier turn of its session that has not ended; it is retried after it.`,
    );
  }
}

/** What an attempt needs from its worker. */
export interface AttemptContext {
  name: string;
  project: string;
  /**
   * Where session homes live here: the session's own under it, or `fleet-attempts/…` for an
   * attempt that finds it held by another live attempt.
   */
  aspHome: string;
  /** The worker's lease epoch: with the attempt number, the fencing token. */
  epoch: number;
  /** Aborts when the worker's lease is lost: every write is refused then, so the turn stops. */
  leaseSignal: AbortSignal;
  /** The turns running here, by run id, to stop one when its run is cancelled. */
  running: Map<string, AbortController>;
  codexPathOverride?: string;
  /** More options of the Codex each turn runs on. */
  codex?: Pick<CodexOptions, "telemetry" | "config">;
  permissionHandler?: PermissionHandler;
  approvals?: Approvals;
  /** The sessions this worker keeps warm between their turns (none kept without). */
  warm?: WarmSessions;
  log: (line: string) => void;
}

/**
 * Runs one attempt of `runId` here. A run that already ended (a repeated job) is left as it is;
 * one cancelled before it started is recorded cancelled. Throws when the attempt lost its run
 * (fenced) or could not record its end: its turn was stopped, nothing of it was recorded.
 */
export async function runFleetAttempt(
  store: FleetStore,
  runId: string,
  context: AttemptContext,
): Promise<void> {
  const write: Write = (work) =>
    throughOutage(work, { giveUpMs: Number.POSITIVE_INFINITY, signal: context.leaseSignal });
  // The queue runs a session's jobs one at a time, but a failed job is retried later and the next
  // one may go first: a run whose earlier turn has not ended waits (its job is retried after).
  const earlier = await write(() => store.unfinishedBefore(runId));
  if (earlier !== undefined) throw new RunWaitsError(runId, earlier);
  const started = await write(() => startAttempt(store, runId, context.name, context.epoch));
  if (!started) return;
  const { fence } = started;
  const trace = traceAttempt(started.start, fence);
  const turn = new AbortController();
  // Registered before the run is read: a cancel is seen either in the row or by its NOTIFY.
  context.running.set(runId, turn);
  const stopTurn = () => {
    trace?.event(EVENT_FLEET_LEASE_LOST);
    turn.abort(context.leaseSignal.reason);
  };
  context.leaseSignal.addEventListener("abort", stopTurn, { once: true });
  // The first write refused (or impossible) stops the turn: nothing after it is recorded.
  let refused: Error | undefined;
  let complete: object | undefined;
  // A cancel counts only while the turn runs at codex: once runTurn says it is over, it is over.
  let turnOver = false;
  let cancelledWhileRunning = false;
  turn.signal.addEventListener(
    "abort",
    () => {
      if (turn.signal.reason instanceof RunCancelledSignal)
        trace?.event(EVENT_FLEET_CANCEL_REQUESTED);
      cancelledWhileRunning = turn.signal.reason instanceof RunCancelledSignal && !turnOver;
    },
    { once: true },
  );
  const stamp = (event: object) => ({ ...event, attempt: fence.attempt, worker: context.name });
  // Written in the background, in order (the turn never waits for the database); drained before
  // the attempt's end is recorded.
  const events = new EventWriter(
    (batch) => write(() => appendFencedEvents(store, fence, batch)),
    (error) => {
      refused = error;
      turn.abort(refused);
    },
  );
  const emit = async (event: object): Promise<void> => {
    if (refused) return;
    const { type, state } = event as { type?: string; state?: string };
    if (type === "state" && (state === "complete" || state === "error")) turnOver = true;
    if (type === "complete") {
      complete = stamp(event);
      return;
    }
    events.add(stamp(event));
  };
  const attemptHome = path.join(
    context.aspHome,
    "fleet-attempts",
    `${createHash("sha256").update(runId).digest("hex").slice(0, 24)}-${fence.attempt}`,
  );
  // The session's codex, left open by a turn that completed, until kept warm or closed.
  let warm: WarmSession | undefined;
  try {
    const run = await write(() => store.getRun(runId));
    if (!run) return;
    const request = run.request;
    trace?.describe(request);
    context.log(`turn ${runId} of session ${request.externalSessionId} (attempt ${fence.attempt})`);
    if (run.cancelRequested || turn.signal.reason instanceof RunCancelledSignal) {
      const when = fence.attempt > 1 ? "while it waited to be retried" : "before it started";
      await events.drain();
      await record(store, fence, write, cancelled(stamp, when));
      trace?.end("cancelled", "cancelled");
      context.log(`turn ${runId} cancelled`);
      return;
    }
    if (fence.attempt > 1) {
      await emit({
        type: "log",
        level: "warn",
        message: `The run was retried (attempt ${fence.attempt}) on worker ${context.name}: the worker that ran it before stopped.`,
      });
    }
    let outcome: AttemptOutcome;
    try {
      ({ outcome, warm } = await turnHere(store, request, context, {
        attemptHome,
        signal: turn.signal,
        write,
        emit,
        traceParent: trace?.carrier,
      }));
    } catch (error) {
      outcome = failed(stamp, (error as Error).message);
    }
    await events.drain();
    // Stopped because this worker stops: nothing recorded, the job fails and is retried elsewhere.
    if (turn.signal.reason instanceof WorkerStoppingSignal) throw turn.signal.reason;
    if (refused && !isFencing(refused, context)) {
      // PostgreSQL refused what the turn produced (not the attempt): the run fails, once.
      outcome = failed(stamp, `the run's events could not be stored: ${refused.message}`);
    } else if (refused) {
      throw refused;
    } else if (cancelledWhileRunning) {
      outcome = { ...cancelled(stamp, "while it ran"), ...pick(outcome) };
    } else if (complete && outcome.status !== "failed") {
      outcome.complete = complete;
    }
    // Warm only for the state recorded: a turn that ended any other way closes its codex.
    const keeping =
      warm && outcome.status === "completed" && outcome.session ? context.warm : undefined;
    // Said with the session's state: its next turn, queued once this is recorded, is left to us.
    if (keeping?.keeps && outcome.session) outcome.session.warmOn = context.name;
    await record(store, fence, write, outcome);
    trace?.end(outcome.status === "cancelled" ? "cancelled" : "recorded", outcome.status);
    context.log(`turn ${runId} ${outcome.status}`);
    if (warm && keeping) {
      const kept = warm;
      warm = undefined;
      await keeping.keep(kept);
    }
  } catch (error) {
    context.log(`turn ${runId} (attempt ${fence.attempt}) stopped: ${(error as Error).message}`);
    if (trace) {
      const lost = context.leaseSignal.aborted;
      if (error instanceof FencedError) trace.event(EVENT_FLEET_FENCED);
      trace.event(EVENT_FLEET_RETRY_SCHEDULED);
      trace.end(
        lost ? "lease_lost" : isFencing(error as Error, context) ? "fenced" : "retried",
        undefined,
        error,
      );
    }
    throw error;
  } finally {
    // A run that vanished from the store ends its attempt here (ending twice does nothing).
    trace?.end("fenced");
    // An attempt that stopped early leaves nothing being written behind it.
    await events.drain();
    if (warm) await context.warm?.discard(warm, "its turn did not complete");
    context.running.delete(runId);
    context.leaseSignal.removeEventListener("abort", stopTurn);
  }
}

/** Whether `error` means the attempt lost its run (as opposed to a write PostgreSQL refused). */
function isFencing(error: Error, context: AttemptContext): boolean {
  return (
    error instanceof FencedError || error instanceof LeaseLostError || context.leaseSignal.aborted
  );
}

function failed(stamp: (event: object) => object, message: string): AttemptOutcome {
  const result: RunResult = { success: false, error: { message } };
  return { status: "failed", result, complete: stamp({ type: "complete", result }) };
}

function record(
  store: FleetStore,
  fence: AttemptFence,
  write: Write,
  outcome: AttemptOutcome,
): Promise<void> {
  return write(() => finishAttempt(store, fence, outcome));
}

function cancelled(stamp: (event: object) => object, when: string): AttemptOutcome {
  const result = cancelledResult(when);
  return { status: "cancelled", result, complete: stamp({ type: "complete", result }) };
}

/** The session part of an outcome (a cancelled turn's thread is kept as codex recorded it). */
function pick(outcome: AttemptOutcome): Partial<AttemptOutcome> {
  return outcome.session ? { session: outcome.session } : {};
}

type Write = <T>(work: () => Promise<T>) => Promise<T>;

async function turnHere(
  store: FleetStore,
  request: FleetTurnRequest,
  context: AttemptContext,
  attempt: {
    attemptHome: string;
    signal: AbortSignal;
    write: Write;
    emit: (event: object) => Promise<void>;
    /** The attempt span's context: the turn's span is its child. */
    traceParent: TraceCarrier | undefined;
  },
): Promise<{ outcome: AttemptOutcome; warm?: WarmSession }> {
  const { attemptHome, signal, write, emit, traceParent } = attempt;
  // Installed on every turn from this worker's copy of the project: a changed target is never
  // run stale (an unchanged one costs no swap).
  const { homeDir } = await installTarget(context.project, request.target);
  const hash = await manifestHash(homeDir);
  const session = await write(() => store.getSession(request.externalSessionId));
  const install = await write(() =>
    checkTargetInstall(store, request.target, hash, {
      id: request.externalSessionId,
      hash: session?.manifestHash ?? null,
      worker: context.name,
    }),
  );
  if (install.updated) {
    await emit({
      type: "log",
      level: "info",
      message: `Target "${request.target}" changed since the session's last turn: this turn runs its new install (manifest ${hash.slice(0, 12)}).`,
    });
  }
  // The session's codex as this worker's last turn of it left it, if that is still the stored
  // state: its home is still claimed, its thread loaded.
  const warm = await context.warm?.take(request.externalSessionId, session?.version, hash);
  // Never shared with another live attempt of the session (a paused worker that wakes, another
  // worker sharing this project folder): codex allows one writer per thread.
  const claimed: ClaimedHome =
    warm?.claimed ??
    (await claimSessionHome(context.aspHome, request.externalSessionId, attemptHome));
  // Ours to close until runTurnKeeping takes it (and again once it hands one back).
  let live: LiveSession | undefined = warm?.live;
  let kept: WarmSession | undefined;
  try {
    const { aspHome } = claimed;
    const { home } = await prepareSessionHome({
      templateHome: homeDir,
      aspHome,
      sessionId: request.externalSessionId,
    });
    // Only the fleet's record says which thread continues: never one a discarded attempt left here.
    await rm(sessionRecordPath(aspHome, request.externalSessionId), { force: true });
    // The thread as the last recorded turn left it, wherever that ran (a warm codex has it).
    if (!warm && session?.rollout && session.rolloutPath) {
      await writeRollout(home, session.rolloutPath, session.rollout);
    }
    const given = live;
    live = undefined;
    const turn = await runTurnKeeping(
      {
        externalSessionId: request.externalSessionId,
        externalRunId: request.externalRunId,
        aspHome,
        spec: { target: { targetName: request.target, targetDir: context.project } },
        harness: "codex",
        cwd: request.cwd ?? context.project,
        prompt: request.prompt,
        signal,
        ...(traceParent ? { traceParent } : {}),
        ...(request.model ? { model: request.model } : {}),
        ...(session?.threadId ? { harnessSessionId: session.threadId } : {}),
        ...(context.codexPathOverride ? { codexPathOverride: context.codexPathOverride } : {}),
        ...(context.codex ? { codex: context.codex } : {}),
        ...(context.permissionHandler ? { permissionHandler: context.permissionHandler } : {}),
        ...(context.approvals ? { approvals: context.approvals } : {}),
        // Who the run is for and its own rules: applied to the worker's approvals for this run.
        ...(request.startedBy ? { startedBy: request.startedBy } : {}),
        ...(request.routing ? { routing: request.routing } : {}),
        callbacks: { onEvent: (event) => emit(event) },
      },
      // Only the session's own home is kept warm (an attempt's own goes with the attempt). Its
      // target was installed and its home prepared above, for this very turn.
      {
        live: given,
        keep: context.warm !== undefined && claimed.aspHome === context.aspHome,
        home,
      },
    );
    const { response } = turn;
    live = turn.live;
    const result = response.result;
    const outcome: AttemptOutcome = {
      status: result.success ? "completed" : "failed",
      result,
      complete: { type: "complete", result },
    };
    const threadId = response.harnessSessionId;
    let rollout = threadId ? await readRollout(home, threadId) : undefined;
    if (live && !(rollout && endsTurn(rollout.lastRecord, live.turnId))) {
      // codex has not written the turn's end yet: closed, it writes everything.
      await live.close();
      live = undefined;
      rollout = threadId ? await readRollout(home, threadId) : undefined;
    } else if (live) {
      kept = {
        sessionId: request.externalSessionId,
        live,
        claimed,
        version: (session?.version ?? 0) + 1,
        manifestHash: hash,
      };
    }
    if (threadId && rollout) {
      outcome.session = {
        row: {
          sessionId: request.externalSessionId,
          threadId,
          model: response.model ?? null,
          rolloutPath: rollout.relativePath,
          rollout: rollout.gzipped,
          manifestHash: hash,
        },
        fromVersion: session?.version ?? 0,
      };
    }
    return kept ? { outcome, warm: kept } : { outcome };
  } finally {
    if (!kept) {
      await live?.close().catch(() => undefined);
      await claimed.release().catch(() => undefined);
    }
  }
}
