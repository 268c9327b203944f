// A fleet run as OpenTelemetry sees it: one trace from `submitTurn` (its span's context travels in
// the run's row) through the queue wait to each attempt on a worker, whose turn is its child; and
// the fleet's counters. Off (nothing loaded, nothing stored) unless a provider is registered.
import { carrierOf, contextOf, isTraceCarrier, type TraceCarrier } from "../telemetry/carrier.js";
import { errorTypeOfError, type OtelScope, otelScope, telemetrySafely } from "../telemetry/core.js";
import type {
  Attributes,
  OtelBatchObservableCallback,
  OtelCounter,
  OtelHistogram,
  OtelSpan,
} from "../telemetry/otel-types.js";
import { SPAN_KIND, STATUS_CODE } from "../telemetry/otel-types.js";
import {
  ATTR_ERROR_TYPE,
  ATTR_FLEET_ATTEMPT,
  ATTR_FLEET_ATTEMPT_OUTCOME,
  ATTR_FLEET_CREATED,
  ATTR_FLEET_LEASE_EPOCH,
  ATTR_FLEET_RETRY,
  ATTR_FLEET_RUN_ID,
  ATTR_FLEET_RUN_STATUS,
  ATTR_FLEET_SESSION_ID,
  ATTR_FLEET_TARGET,
  ATTR_FLEET_WORKER,
  METRIC_FLEET_ATTEMPTS,
  METRIC_FLEET_LEASES_LOST,
  METRIC_FLEET_QUEUE_DEPTH,
  METRIC_FLEET_QUEUE_WAIT,
  METRIC_FLEET_RUNS,
  METRIC_FLEET_RUNS_FINISHED,
  METRIC_FLEET_RUNS_SUBMITTED,
  METRIC_FLEET_WORKERS_ALIVE,
  QUEUE_WAIT_BUCKETS,
  SPAN_FLEET_ATTEMPT,
  SPAN_FLEET_CANCEL,
  SPAN_FLEET_QUEUE_WAIT,
  SPAN_FLEET_SUBMIT,
} from "../telemetry/semconv.js";
import type { FleetRunStatus, FleetTurnRequest } from "./store.js";

/** How an attempt ended, as `codex_harness.fleet.attempt.outcome` says. */
export type AttemptOutcomeLabel = "recorded" | "fenced" | "lease_lost" | "retried" | "cancelled";

/** The fleet's counters and histograms. */
interface FleetInstruments {
  submitted: OtelCounter;
  finished: OtelCounter;
  attempts: OtelCounter;
  queueWait: OtelHistogram;
  leasesLost: OtelCounter;
}

function instruments(scope: OtelScope): FleetInstruments {
  const { meter } = scope;
  return {
    submitted: meter.createCounter(METRIC_FLEET_RUNS_SUBMITTED, {
      description: "Runs submitted to the fleet (created: false when the run id was known).",
      unit: "{run}",
    }),
    finished: meter.createCounter(METRIC_FLEET_RUNS_FINISHED, {
      description: "Runs whose end was recorded, by status (once per run, by whoever recorded it).",
      unit: "{run}",
    }),
    attempts: meter.createCounter(METRIC_FLEET_ATTEMPTS, {
      description: "Attempts of runs on workers, by how they ended.",
      unit: "{attempt}",
    }),
    queueWait: meter.createHistogram(METRIC_FLEET_QUEUE_WAIT, {
      description: "How long a run waited in the queue before its attempt started (DB clock).",
      unit: "s",
      advice: { explicitBucketBoundaries: [...QUEUE_WAIT_BUCKETS] },
    }),
    leasesLost: meter.createCounter(METRIC_FLEET_LEASES_LOST, {
      description: "Worker leases lost (the worker's running turns were stopped).",
      unit: "{lease}",
    }),
  };
}

/** A step of the fleet's tracing: an error of its own never fails the fleet's work. */
const safely = <T>(step: () => T): T | undefined =>
  telemetrySafely("the fleet's OpenTelemetry tracing", step);

/** A submit being traced: its carrier goes into the run's row. */
export interface SubmitTrace {
  /** The submit span's W3C context (stored with the run). */
  readonly carrier: TraceCarrier | undefined;
  /** Ends the span: `created` says whether a new run was queued; an error fails it. */
  end(created: boolean | undefined, error?: unknown): void;
}

/** The submit's span (PRODUCER), a child of the program's active span; undefined when off. */
export function traceSubmit(request: FleetTurnRequest): SubmitTrace | undefined {
  const scope = otelScope();
  if (!scope) return undefined;
  return safely(() => {
    const { api, tracer } = scope;
    const parent = api.context.active();
    const span = tracer.startSpan(
      SPAN_FLEET_SUBMIT,
      { kind: SPAN_KIND.PRODUCER, attributes: runAttributes(request) },
      parent,
    );
    const carrier = carrierOf(api, span, parent);
    let ended = false;
    return {
      carrier,
      end(created, error) {
        if (ended) return;
        ended = true;
        safely(() => {
          if (created !== undefined) {
            span.setAttribute(ATTR_FLEET_CREATED, created);
            instruments(scope).submitted.add(1, { [ATTR_FLEET_CREATED]: created });
          }
          if (error !== undefined) failSpan(span, error);
          span.end();
        });
      },
    };
  });
}

/** What `startAttempt` read of the run in the same round trip (the database's clock). */
export interface AttemptStart {
  attempt: number;
  /** The submit's carrier, as stored (null when it was submitted untraced). */
  traceContext: unknown;
  /** When the run was queued and when this attempt started (ms since the epoch, DB clock). */
  queuedAtMs: number;
  startedAtMs: number;
}

/** One attempt being traced: the turn runs under {@link carrier}. */
export interface AttemptTrace {
  /** The attempt span's W3C context: the parent of the turn's invoke_agent span. */
  readonly carrier: TraceCarrier | undefined;
  /** Adds what is known once the run is read. */
  describe(request: FleetTurnRequest): void;
  /** A point in the attempt's life (`codex_harness.fleet.lease_lost`, …). */
  event(name: string, attributes?: Attributes): void;
  /** Ends the attempt span; `status` is the run's recorded end, when it was recorded. */
  end(outcome: AttemptOutcomeLabel, status?: FleetRunStatus, error?: unknown): void;
}

/**
 * The attempt's span (CONSUMER), in the trace of the run's submit when it was traced; for a first
 * attempt, also the queue wait it ended (a span and a histogram record). Undefined when off.
 */
export function traceAttempt(
  start: AttemptStart,
  fence: { runId: string; worker: string; epoch: number },
): AttemptTrace | undefined {
  const scope = otelScope();
  if (!scope) return undefined;
  return safely(() => {
    const { api, tracer } = scope;
    const fleet = instruments(scope);
    const submitted = isTraceCarrier(start.traceContext) ? start.traceContext : undefined;
    const parent = contextOf(api, submitted) ?? api.ROOT_CONTEXT;
    const retry = start.attempt > 1;
    if (!retry) {
      const waited = Math.max(0, start.startedAtMs - start.queuedAtMs);
      fleet.queueWait.record(waited / 1000, { [ATTR_FLEET_RETRY]: false });
      tracer
        .startSpan(
          SPAN_FLEET_QUEUE_WAIT,
          {
            kind: SPAN_KIND.INTERNAL,
            startTime: start.queuedAtMs,
            attributes: { [ATTR_FLEET_RUN_ID]: fence.runId },
          },
          parent,
        )
        .end(start.startedAtMs);
    }
    const span = tracer.startSpan(
      SPAN_FLEET_ATTEMPT,
      {
        kind: SPAN_KIND.CONSUMER,
        attributes: {
          [ATTR_FLEET_RUN_ID]: fence.runId,
          [ATTR_FLEET_ATTEMPT]: start.attempt,
          [ATTR_FLEET_WORKER]: fence.worker,
          [ATTR_FLEET_LEASE_EPOCH]: fence.epoch,
          [ATTR_FLEET_RETRY]: retry,
        },
      },
      parent,
    );
    let ended = false;
    const trace: AttemptTrace = {
      carrier: carrierOf(api, span, parent),
      describe(request) {
        safely(() => span.setAttributes(runAttributes(request)));
      },
      event(name, attributes) {
        if (!ended) safely(() => span.addEvent(name, attributes));
      },
      end(outcome, status, error) {
        if (ended) return;
        ended = true;
        safely(() => {
          fleet.attempts.add(1, { [ATTR_FLEET_ATTEMPT_OUTCOME]: outcome });
          if (status !== undefined) fleet.finished.add(1, { [ATTR_FLEET_RUN_STATUS]: status });
          span.setAttribute(ATTR_FLEET_ATTEMPT_OUTCOME, outcome);
          if (status !== undefined) span.setAttribute(ATTR_FLEET_RUN_STATUS, status);
          if (error !== undefined) failSpan(span, error);
          else span.setStatus({ code: STATUS_CODE.OK });
          span.end();
        });
      },
    };
    return trace;
  });
}

/**
 * A run recorded cancelled outside any attempt (while queued, waiting for a retry, or with its
 * worker gone): counted as finished, and a point span in the run's trace when it was traced.
 */
export function cancelledWithoutAttempt(runId: string, traceContext: unknown): void {
  const scope = otelScope();
  if (!scope) return;
  safely(() => {
    const status: FleetRunStatus = "cancelled";
    instruments(scope).finished.add(1, { [ATTR_FLEET_RUN_STATUS]: status });
    const { api, tracer } = scope;
    const parent = isTraceCarrier(traceContext) ? contextOf(api, traceContext) : undefined;
    if (!parent) return;
    tracer
      .startSpan(
        SPAN_FLEET_CANCEL,
        {
          kind: SPAN_KIND.INTERNAL,
          attributes: { [ATTR_FLEET_RUN_ID]: runId, [ATTR_FLEET_RUN_STATUS]: status },
        },
        parent,
      )
      .end();
  });
}

/** Counts a worker's lost lease. */
export function countLeaseLost(): void {
  const scope = otelScope();
  if (scope) safely(() => instruments(scope).leasesLost.add(1));
}

function runAttributes(request: FleetTurnRequest): Attributes {
  return {
    [ATTR_FLEET_RUN_ID]: request.externalRunId,
    [ATTR_FLEET_SESSION_ID]: request.externalSessionId,
    [ATTR_FLEET_TARGET]: request.target,
  };
}

function failSpan(span: OtelSpan, error: unknown): void {
  span.setAttribute(ATTR_ERROR_TYPE, errorTypeOfError(error));
  span.setStatus({
    code: STATUS_CODE.ERROR,
    message: (error instanceof Error ? error.message : String(error)).slice(0, 200),
  });
}

/** What the fleet's gauges read, once per collection. */
export interface FleetCounts {
  /** Runs by status. */
  runs: Record<string, number>;
  /** Workers whose lease is live. */
  workersAlive: number;
}

/**
 * Observes the fleet's gauges — `codex_harness.fleet.queue.depth`, `codex_harness.fleet.runs` (by
 * status) and `codex_harness.fleet.workers.alive` — from one `read` per collection, while telemetry
 * is on when this is called; returns what stops it (a no-op when off). One process reading the
 * whole fleet calls it (the operator console's server): aggregate them with max(), not sum().
 */
export function observeFleet(read: () => Promise<FleetCounts>): () => void {
  const scope = otelScope();
  if (!scope) return () => {};
  const { meter } = scope;
  const depth = meter.createObservableGauge(METRIC_FLEET_QUEUE_DEPTH, {
    description: "Runs waiting in the fleet's queue.",
    unit: "{run}",
  });
  const runs = meter.createObservableGauge(METRIC_FLEET_RUNS, {
    description: "The fleet's runs, by status.",
    unit: "{run}",
  });
  const alive = meter.createObservableGauge(METRIC_FLEET_WORKERS_ALIVE, {
    description: "Workers whose lease is live.",
    unit: "{worker}",
  });
  const gauges = [depth, runs, alive];
  const callback: OtelBatchObservableCallback = async (result) => {
    // A store that cannot answer now reports nothing for this collection.
    const counts = await read().catch(() => undefined);
    if (!counts) return;
    result.observe(depth, counts.runs.queued ?? 0);
    for (const [status, n] of Object.entries(counts.runs)) {
      result.observe(runs, n, { [ATTR_FLEET_RUN_STATUS]: status });
    }
    result.observe(alive, counts.workersAlive);
  };
  meter.addBatchObservableCallback(callback, gauges);
  return () => meter.removeBatchObservableCallback(callback, gauges);
}
