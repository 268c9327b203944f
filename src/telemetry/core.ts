// The tracer and the instruments of one turn, from the api when telemetry is on.
import { type ApiLoader, otelApi } from "./gate.js";
import type { OtelApi, OtelCounter, OtelHistogram, OtelMeter, OtelTracer } from "./otel-types.js";
import {
  APPROVAL_WAIT_BUCKETS,
  ERROR_TYPE_OTHER,
  METRIC_APPROVAL_WAIT,
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
  METRIC_TURNS,
  OPERATION_DURATION_BUCKETS,
  SCHEMA_URL,
  SCOPE_NAME,
  TOKEN_USAGE_BUCKETS,
} from "./semconv.js";

/** The metric instruments codex-harness records. */
export interface Instruments {
  /** `gen_ai.client.operation.duration` (s): one record per turn. */
  operationDuration: OtelHistogram;
  /** `gen_ai.client.token.usage` ({token}): two records per turn (input, output). */
  tokenUsage: OtelHistogram;
  /** `codex_harness.turns` ({turn}): by outcome. */
  turns: OtelCounter;
  /** `codex_harness.approval.wait.duration` (s): one record per server request answered. */
  approvalWait: OtelHistogram;
}

/** What a turn records with: the api, the tracer, the instruments. */
export interface Telemetry {
  api: OtelApi;
  tracer: OtelTracer;
  instruments: Instruments;
}

/** codex-harness's tracer and meter from the registered providers. */
export interface OtelScope {
  api: OtelApi;
  tracer: OtelTracer;
  meter: OtelMeter;
}

/**
 * The api with codex-harness's tracer and meter, or undefined when telemetry is off (no provider
 * registered, or the api cannot be loaded). Ask again per unit of work (a turn, a run, an
 * interaction): a provider registered later is used from then on. The providers cache tracers and
 * meters by name; instruments of the same name and shape share their storage, so asking again is
 * cheap.
 */
export function otelScope(load?: ApiLoader): OtelScope | undefined {
  const api = otelApi(load);
  if (!api) return undefined;
  const scope = { schemaUrl: SCHEMA_URL };
  return {
    api,
    tracer: api.trace.getTracerProvider().getTracer(SCOPE_NAME, undefined, scope),
    meter: api.metrics.getMeter(SCOPE_NAME, undefined, scope),
  };
}

/**
 * The turn's telemetry, or undefined when it is off (see {@link otelScope}): read per turn, so a
 * provider registered after `new Codex()` traces the next turn.
 */
export function turnTelemetry(load?: ApiLoader): Telemetry | undefined {
  const scope = otelScope(load);
  if (!scope) return undefined;
  const { api, tracer, meter } = scope;
  return {
    api,
    tracer,
    instruments: {
      operationDuration: meter.createHistogram(METRIC_GEN_AI_CLIENT_OPERATION_DURATION, {
        description:
          "GenAI operation duration: one codex turn (invoke_agent), as the client saw it.",
        unit: "s",
        advice: { explicitBucketBoundaries: [...OPERATION_DURATION_BUCKETS] },
      }),
      tokenUsage: meter.createHistogram(METRIC_GEN_AI_CLIENT_TOKEN_USAGE, {
        description: "Number of input and output tokens used by a codex turn.",
        unit: "{token}",
        advice: { explicitBucketBoundaries: [...TOKEN_USAGE_BUCKETS] },
      }),
      turns: meter.createCounter(METRIC_TURNS, {
        description: "Turns that ended, by outcome.",
        unit: "{turn}",
      }),
      approvalWait: meter.createHistogram(METRIC_APPROVAL_WAIT, {
        description: "How long a server request (approval, question) waited for its answer.",
        unit: "s",
        advice: { explicitBucketBoundaries: [...APPROVAL_WAIT_BUCKETS] },
      }),
    },
  };
}

/**
 * `error.type` of an error thrown here: its `code` (our errors', node's), else its class's name,
 * else `_OTHER`.
 */
export function errorTypeOfError(error: unknown): string {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  if (typeof code === "string" && code !== "") return code;
  return error instanceof Error ? error.name : ERROR_TYPE_OTHER;
}

/** Says (a process warning, `CODEX_HARNESS_TELEMETRY`) that `what` failed: never the work's error. */
export function telemetryFailed(what: string, error: unknown): void {
  process.emitWarning(
    `codex-harness: ${what} failed: ${error instanceof Error ? error.message : String(error)}`,
    { code: "CODEX_HARNESS_TELEMETRY" },
  );
}

/** Runs a step of `what`'s telemetry; an error of its own is warned about, never thrown. */
export function telemetrySafely<T>(what: string, step: () => T): T | undefined {
  try {
    return step();
  } catch (error) {
    telemetryFailed(what, error);
    return undefined;
  }
}
