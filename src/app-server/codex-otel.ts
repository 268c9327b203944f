// Where codex's own OpenTelemetry goes: the standard OTEL_* variables mapped to codex's `[otel]`
// config (`-c otel.…` overrides), so a codex we spawn exports its spans to the same collector.
import type { ConfigObject } from "./codex-config.js";

/** The environment, as `process.env` holds it. */
export type Env = Readonly<Record<string, string | undefined>>;

/** What else decides codex's `[otel]` config besides the variables. */
export interface CodexOtelOptions {
  /** Content recording is on (ours): codex logs the prompt too (`log_user_prompt`). */
  recordContent?: boolean;
}

type Signal = "traces" | "metrics";

/**
 * codex's `otel` table for the OTLP endpoint the variables name, or undefined when they name none
 * (then codex keeps its own defaults: no trace export, its own metrics):
 * - `trace_exporter` when a traces endpoint is set (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else
 *   `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`) and `OTEL_TRACES_EXPORTER` is unset or `otlp`;
 *   `metrics_exporter` the same way for metrics. `http/protobuf` (the default) is
 *   `{ otlp-http = { endpoint, protocol = "binary" } }`, `http/json` `protocol = "json"`, `grpc`
 *   `{ otlp-grpc = { endpoint } }` (the base endpoint, as gRPC takes it);
 * - `environment` from `deployment.environment.name` in `OTEL_RESOURCE_ATTRIBUTES`;
 * - `log_user_prompt = true` with `recordContent`.
 *
 * Headers are left out on purpose: they often hold a token, and overrides are command-line
 * arguments anyone on the machine can read; codex reads `OTEL_EXPORTER_OTLP_*HEADERS` from the
 * environment it inherits.
 */
export function codexOtelConfig(
  env: Env,
  options: CodexOtelOptions = {},
): ConfigObject | undefined {
  const traces = exporterFor(env, "traces");
  const metrics = exporterFor(env, "metrics");
  if (!traces && !metrics) return undefined;
  const environment = resourceAttribute(
    env.OTEL_RESOURCE_ATTRIBUTES,
    "deployment.environment.name",
  );
  return {
    ...(traces ? { trace_exporter: traces } : {}),
    ...(metrics ? { metrics_exporter: metrics } : {}),
    ...(environment ? { environment } : {}),
    ...(options.recordContent ? { log_user_prompt: true } : {}),
  };
}

function exporterFor(env: Env, signal: Signal): ConfigObject | undefined {
  const upper = signal.toUpperCase();
  const exporters = (env[`OTEL_${upper}_EXPORTER`] ?? "otlp").split(",").map((name) => name.trim());
  if (!exporters.includes("otlp") && !exporters.includes("")) return undefined;
  const own = nonEmpty(env[`OTEL_EXPORTER_OTLP_${upper}_ENDPOINT`]);
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (!own && !base) return undefined;
  const protocol =
    nonEmpty(env[`OTEL_EXPORTER_OTLP_${upper}_PROTOCOL`]) ??
    nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL) ??
    "http/protobuf";
  if (protocol === "grpc") return { "otlp-grpc": { endpoint: own ?? (base as string) } };
  const endpoint = own ?? `${(base as string).replace(/\/+$/, "")}/v1/${signal}`;
  return {
    "otlp-http": { endpoint, protocol: protocol === "http/json" ? "json" : "binary" },
  };
}

/** The value of `key` in a `k=v,k2=v2` list (values percent-decoded, as the spec says). */
function resourceAttribute(list: string | undefined, key: string): string | undefined {
  for (const pair of (list ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at > 0 && pair.slice(0, at).trim() === key) {
      try {
        return nonEmpty(decodeURIComponent(pair.slice(at + 1).trim()));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
