// OTEL_* → codex's `[otel]` config: which exporters, endpoints and protocols, and what is left out.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toConfigOverrides } from "../../src/app-server/codex-config.js";
import { codexOtelConfig } from "../../src/app-server/codex-otel.js";
import { codexTelemetry } from "../../src/cli/codex-telemetry.js";
import { registerInMemoryOtel } from "../support/otel.js";

const BASE = "http://collector:4318";

describe("codexOtelConfig", () => {
  it("nothing without an OTLP endpoint (codex keeps its defaults)", () => {
    assert.equal(codexOtelConfig({}), undefined);
    assert.equal(codexOtelConfig({ OTEL_TRACES_EXPORTER: "otlp" }), undefined);
    assert.equal(codexOtelConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "  " }), undefined);
  });

  it("the shared endpoint: traces and metrics over otlp-http, binary by default", () => {
    assert.deepEqual(codexOtelConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `${BASE}/` }), {
      trace_exporter: { "otlp-http": { endpoint: `${BASE}/v1/traces`, protocol: "binary" } },
      metrics_exporter: { "otlp-http": { endpoint: `${BASE}/v1/metrics`, protocol: "binary" } },
    });
  });

  it("http/json, per-signal endpoints and protocols, grpc", () => {
    assert.deepEqual(
      codexOtelConfig({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t/custom",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://m:4317",
        OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "grpc",
      }),
      {
        trace_exporter: { "otlp-http": { endpoint: "http://t/custom", protocol: "json" } },
        metrics_exporter: { "otlp-grpc": { endpoint: "http://m:4317" } },
      },
    );
  });

  it("only a traces endpoint: codex's metrics stay its own; an exporter of none is respected", () => {
    const traces = codexOtelConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t/v1/traces" });
    assert.deepEqual(Object.keys(traces ?? {}), ["trace_exporter"]);
    const noMetrics = codexOtelConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: BASE,
      OTEL_METRICS_EXPORTER: "none",
    });
    assert.deepEqual(Object.keys(noMetrics ?? {}), ["trace_exporter"]);
    assert.equal(
      codexOtelConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: BASE,
        OTEL_TRACES_EXPORTER: "zipkin",
        OTEL_METRICS_EXPORTER: "prometheus",
      }),
      undefined,
    );
  });

  it("environment from deployment.environment.name; log_user_prompt with the content opt-in", () => {
    const config = codexOtelConfig(
      {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t",
        OTEL_RESOURCE_ATTRIBUTES: "service.namespace=x, deployment.environment.name=stag%20ing",
      },
      { recordContent: true },
    );
    assert.equal(config?.environment, "stag ing");
    assert.equal(config?.log_user_prompt, true);
    assert.equal(
      codexOtelConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t" })?.log_user_prompt,
      undefined,
    );
  });

  it("never puts headers (often a token) on codex's command line", () => {
    const config = codexOtelConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: BASE,
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20SECRET-1",
    });
    const overrides = toConfigOverrides({ otel: config ?? {} });
    assert.ok(overrides.includes(`otel.trace_exporter.otlp-http.endpoint="${BASE}/v1/traces"`));
    assert.ok(!overrides.join(" ").includes("SECRET-1"));
  });
});

describe("codexTelemetry (what the CLI adds to a command's Codex)", () => {
  const env = {
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t/v1/traces",
    OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
  };

  it("nothing but the given config while no provider is registered (the SDK did not start)", () => {
    assert.deepEqual(codexTelemetry(env), {});
    assert.deepEqual(codexTelemetry(env, { config: { model: "m" } }), { config: { model: "m" } });
  });

  it("with a provider: content recording and codex's export, merged into the config; none for a remote codex", async () => {
    const otel = registerInMemoryOtel();
    try {
      assert.deepEqual(
        codexTelemetry(env, { config: { model: "m", otel: { environment: "x" } } }),
        {
          telemetry: { recordContent: true },
          config: {
            model: "m",
            otel: {
              environment: "x",
              trace_exporter: {
                "otlp-http": { endpoint: "http://t/v1/traces", protocol: "binary" },
              },
              log_user_prompt: true,
            },
          },
        },
      );
      assert.deepEqual(codexTelemetry(env, { remote: true }), {
        telemetry: { recordContent: true },
      });
      assert.deepEqual(codexTelemetry({}), {});
    } finally {
      await otel.close();
    }
  });
});
