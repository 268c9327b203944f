// When the CLI starts the OpenTelemetry SDK, with what configuration, and what it says when it cannot.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  askedSignals,
  CliTelemetry,
  contentOptIn,
  SDK_MISSING,
  type SdkModule,
  SHUTDOWN_TIMEOUT_MS,
  startTelemetry,
  telemetryWanted,
} from "../../src/cli/telemetry.js";

describe("when the CLI starts the SDK", () => {
  it("not without an endpoint or an exporter, nor when disabled", () => {
    assert.equal(telemetryWanted({}), false);
    assert.equal(
      telemetryWanted({ OTEL_SERVICE_NAME: "x", OTEL_RESOURCE_ATTRIBUTES: "a=b" }),
      false,
    );
    assert.equal(
      telemetryWanted({ OTEL_TRACES_EXPORTER: "none", OTEL_METRICS_EXPORTER: "none" }),
      false,
    );
    assert.equal(
      telemetryWanted({ OTEL_SDK_DISABLED: "TRUE", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" }),
      false,
    );
    assert.equal(telemetryWanted({ OTEL_LOGS_EXPORTER: "otlp" }), false, "we emit no logs");
  });

  it("with the shared endpoint, a signal's endpoint, or an exporter other than none", () => {
    assert.deepEqual(askedSignals({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" }), {
      traces: true,
      metrics: true,
      logs: false,
    });
    assert.deepEqual(askedSignals({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c/v1/traces" }), {
      traces: true,
      metrics: false,
      logs: false,
    });
    assert.deepEqual(askedSignals({ OTEL_METRICS_EXPORTER: "console" }), {
      traces: false,
      metrics: true,
      logs: false,
    });
    assert.deepEqual(
      askedSignals({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_METRICS_EXPORTER: "none" }),
      { traces: true, metrics: false, logs: false },
    );
    assert.equal(
      telemetryWanted({ OTEL_SDK_DISABLED: "false", OTEL_TRACES_EXPORTER: "console" }),
      true,
    );
  });

  it("the content opt-in: true or SPAN_ONLY, any case", () => {
    for (const value of ["true", "TRUE", "SPAN_ONLY", "span_only"]) {
      assert.equal(
        contentOptIn({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: value }),
        true,
      );
    }
    for (const value of [undefined, "", "false", "EVENT_ONLY", "1"]) {
      assert.equal(
        contentOptIn({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: value }),
        false,
      );
    }
  });
});

/** A stand-in for @opentelemetry/sdk-node that records the configuration it was given. */
function fakeSdk(options: { startThrows?: Error; shutdown?: () => Promise<void> } = {}) {
  const configs: Record<string, unknown>[] = [];
  const loggers: { logger: Record<string, (...args: unknown[]) => void>; options: unknown }[] = [];
  let shutdowns = 0;
  const module = {
    NodeSDK: class {
      constructor(config: Record<string, unknown>) {
        configs.push(config);
      }
      start() {
        if (options.startThrows) throw options.startThrows;
      }
      shutdown() {
        shutdowns += 1;
        return options.shutdown?.() ?? Promise.resolve();
      }
    },
    resources: {
      resourceFromAttributes: (attributes: Record<string, unknown>) => ({ attributes }),
      envDetector: "env",
      hostDetector: "host",
      osDetector: "os",
      serviceInstanceIdDetector: "instance",
      processDetector: "process",
    },
    api: {
      diag: {
        setLogger: (logger: Record<string, (...args: unknown[]) => void>, options: unknown) => {
          loggers.push({ logger, options });
          return true;
        },
      },
    },
    core: { diagLogLevelFromString: (value: string) => (value === "info" ? 60 : undefined) },
  } as unknown as SdkModule;
  return { module, configs, loggers, shutdowns: () => shutdowns };
}

describe("startTelemetry", () => {
  const start = (env: Record<string, string>, sdk: ReturnType<typeof fakeSdk>) => {
    const lines: string[] = [];
    const started = startTelemetry(env, {
      version: "9.9.9",
      warn: (line) => lines.push(line),
      load: async () => sdk.module,
    });
    return { started, lines };
  };

  it("loads nothing when the variables ask for nothing", async () => {
    let loads = 0;
    const started = await startTelemetry(
      {},
      {
        version: "1",
        warn: () => assert.fail("nothing to say"),
        load: async () => {
          loads += 1;
          return fakeSdk().module;
        },
      },
    );
    assert.equal(started, undefined);
    assert.equal(loads, 0);
  });

  it("our resource, no process detector, no exporter for a signal not asked for", async () => {
    const sdk = fakeSdk();
    const { started, lines } = start({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c" }, sdk);
    assert.ok(await started);
    assert.deepEqual(lines, []);
    const [config] = sdk.configs;
    assert.deepEqual(config?.resource, {
      attributes: { "service.name": "codex-harness", "service.version": "9.9.9" },
    });
    assert.deepEqual(config?.resourceDetectors, ["env", "host", "os", "instance"]);
    assert.deepEqual(config?.metricReaders, []);
    assert.deepEqual(config?.logRecordProcessors, []);
    assert.equal("spanProcessors" in (config ?? {}), false, "traces from the env");
    assert.equal("serviceName" in (config ?? {}), false, "OTEL_SERVICE_NAME wins");
  });

  it("OTEL_NODE_RESOURCE_DETECTORS and OTEL_LOGS_EXPORTER are the SDK's to read", async () => {
    const sdk = fakeSdk();
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://c",
      OTEL_NODE_RESOURCE_DETECTORS: "env",
      OTEL_LOGS_EXPORTER: "otlp",
    };
    assert.ok(await start(env, sdk).started);
    const [config] = sdk.configs;
    for (const key of [
      "resourceDetectors",
      "metricReaders",
      "spanProcessors",
      "logRecordProcessors",
    ]) {
      assert.equal(key in (config ?? {}), false, key);
    }
  });

  it("OTEL_LOG_LEVEL: the SDK's diagnostics go to stderr, not stdout", async () => {
    const sdk = fakeSdk();
    const quiet = start({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" }, sdk);
    await quiet.started;
    assert.equal(sdk.loggers.length, 0);
    const { started, lines } = start(
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_LOG_LEVEL: "info" },
      sdk,
    );
    await started;
    const [set] = sdk.loggers;
    assert.deepEqual(set?.options, { logLevel: 60, suppressOverrideMessage: true });
    set?.logger.info?.("exporting %d spans", 3);
    assert.deepEqual(lines, ["telemetry: exporting 3 spans"]);
  });

  it("one line and no telemetry when the SDK is missing or does not start", async () => {
    const missing = Object.assign(
      new Error("Cannot find package '@opentelemetry/sdk-node' imported from /x.js"),
      { code: "ERR_MODULE_NOT_FOUND" },
    );
    const lines: string[] = [];
    const started = await startTelemetry(
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" },
      { version: "1", warn: (line) => lines.push(line), load: () => Promise.reject(missing) },
    );
    assert.equal(started, undefined);
    assert.deepEqual(lines, [SDK_MISSING]);
    assert.match(SDK_MISSING, /@opentelemetry\/api@1\.9 @opentelemetry\/sdk-node@0\.223/);
    const broken = start(
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" },
      fakeSdk({ startThrows: new Error("bad sampler") }),
    );
    assert.equal(await broken.started, undefined);
    assert.deepEqual(broken.lines, [
      "telemetry: the OpenTelemetry SDK did not start (bad sampler); going on without telemetry",
    ]);
  });

  it("shuts down once, and gives up waiting after the bound", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const sdk = fakeSdk({ shutdown: () => new Promise(() => {}) });
    const { started, lines } = start({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" }, sdk);
    const telemetry = await started;
    assert.ok(telemetry);
    const first = telemetry.shutdown();
    const second = telemetry.shutdown();
    assert.equal(sdk.shutdowns(), 1);
    // Let the race start before time moves on.
    await new Promise((resolve) => setImmediate(resolve));
    t.mock.timers.tick(SHUTDOWN_TIMEOUT_MS);
    await Promise.all([first, second]);
    assert.deepEqual(lines, ["telemetry: the exporters did not finish within 5 s"]);
  });
});

describe("CliTelemetry", () => {
  it("starts for the commands that run turns or serve, once; shutdown stops watching signals", async () => {
    const sdk = fakeSdk();
    let loads = 0;
    const telemetry = new CliTelemetry(
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" },
      {
        version: "1",
        warn: () => assert.fail("nothing to say"),
        load: async () => {
          loads += 1;
          return sdk.module;
        },
      },
    );
    const listeners = () => process.listenerCount("SIGTERM") + process.listenerCount("SIGINT");
    const before = listeners();
    for (const command of ["login", "threads", "doctor", "demo", "install"]) {
      await telemetry.start(command);
    }
    assert.equal(loads, 0);
    await telemetry.start("run");
    await telemetry.start("worker");
    assert.equal(loads, 1);
    assert.equal(listeners(), before + 2, "a flush on SIGINT and on SIGTERM");
    await telemetry.shutdown();
    assert.equal(sdk.shutdowns(), 1);
    assert.equal(listeners(), before);
  });

  it("does nothing when the variables ask for nothing, whatever the command", async () => {
    const telemetry = new CliTelemetry(
      {},
      { version: "1", warn: () => {}, load: () => assert.fail("not loaded") },
    );
    await telemetry.start("run");
    await telemetry.shutdown();
  });
});
