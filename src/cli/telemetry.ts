// The CLI's OpenTelemetry: the Node SDK started from the standard OTEL_* variables when they ask for
// an export (imported only then), flushed when the command ends or on Ctrl-C/SIGTERM.
import { format } from "node:util";
import type { Env } from "../app-server/codex-otel.js";
import { flushOnSignals } from "./ctrl-c.js";

/** The commands that run turns or serve (the others never trace anything). */
export const TRACED_COMMANDS: readonly string[] = [
  "serve",
  "worker",
  "run",
  "acp",
  "host",
  "submit",
];

/** How long a shutdown may take to export what is left (the SDK's own default is 30 s). */
export const SHUTDOWN_TIMEOUT_MS = 5_000;

/**
 * What the CLI says when the SDK is missing: the packages to install, of the line that runs on every
 * supported Node (SDK 3.x needs Node 22.15).
 */
export const SDK_MISSING =
  "OTEL_* is set but @opentelemetry/sdk-node is not installed: npm i @opentelemetry/api@1.9 @opentelemetry/sdk-node@0.223 (going on without telemetry)";

/** Which signals the variables ask the SDK to export. */
export interface AskedSignals {
  traces: boolean;
  metrics: boolean;
  logs: boolean;
}

/**
 * What the OTEL_* variables ask for: a signal is asked when its own or the shared OTLP endpoint is
 * set, or its exporter variable names one other than `none`. Nothing at all when
 * `OTEL_SDK_DISABLED=true`. (A bare NodeSDK would export every signal to localhost:4318.)
 */
export function askedSignals(env: Env): AskedSignals {
  const none = { traces: false, metrics: false, logs: false };
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return none;
  const shared = set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const asked = (signal: "TRACES" | "METRICS" | "LOGS") => {
    const exporters = (env[`OTEL_${signal}_EXPORTER`] ?? "").split(",").map((name) => name.trim());
    if (exporters.includes("none")) return false;
    return shared || set(env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]) || exporters.some(Boolean);
  };
  return { traces: asked("TRACES"), metrics: asked("METRICS"), logs: set(env.OTEL_LOGS_EXPORTER) };
}

/** Whether the CLI starts the SDK for these variables: some signal is asked for. */
export function telemetryWanted(env: Env): boolean {
  const { traces, metrics } = askedSignals(env);
  return traces || metrics;
}

/**
 * Whether the content opt-in is on: `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` is `true`
 * or `SPAN_ONLY` (the variable of OpenTelemetry's GenAI instrumentations), any case.
 */
export function contentOptIn(env: Env): boolean {
  const value = env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase();
  return value === "true" || value === "span_only";
}

/** A started SDK: shut it down (exporting what is left) once. */
export interface StartedTelemetry {
  shutdown(): Promise<void>;
}

/** How {@link startTelemetry} loads the SDK (a test seam) and reports. */
export interface StartTelemetryOptions {
  /** `service.version` (the env's `OTEL_SERVICE_VERSION`/resource attributes win). */
  version: string;
  /** One line to stderr. */
  warn: (line: string) => void;
  /** Default: a dynamic import of `@opentelemetry/sdk-node`. */
  load?: () => Promise<SdkModule>;
}

/**
 * The part of `@opentelemetry/sdk-node` the CLI uses, as a structural type: no declaration of this
 * package names an OpenTelemetry package (a program without them still type-checks).
 */
export interface SdkModule {
  NodeSDK: new (
    configuration: Record<string, unknown>,
  ) => { start(): void; shutdown(): Promise<void> };
  resources: {
    resourceFromAttributes(attributes: Record<string, string>): unknown;
    envDetector: unknown;
    hostDetector: unknown;
    osDetector: unknown;
    serviceInstanceIdDetector: unknown;
  };
  api: {
    diag: {
      setLogger(
        logger: DiagLogger,
        options: { logLevel?: number | undefined; suppressOverrideMessage?: boolean },
      ): boolean;
    };
  };
  core: { diagLogLevelFromString(value: string): number | undefined };
}

/** The api's diagnostic logger shape: one method per level. */
type DiagLogger = Record<
  "error" | "warn" | "info" | "debug" | "verbose",
  (...args: unknown[]) => void
>;

/**
 * Starts the OpenTelemetry Node SDK when {@link telemetryWanted} (else does nothing and imports
 * nothing). The resource is `service.name=codex-harness` and `service.version` under what the env
 * detector reads, plus host, OS and `service.instance.id` — not the process detector, whose
 * `process.command_args` would export the prompt of `run "…"`. A signal not asked for gets no
 * exporter. When the SDK is missing or fails, one line goes to `warn` and undefined is returned.
 */
export async function startTelemetry(
  env: Env,
  options: StartTelemetryOptions,
): Promise<StartedTelemetry | undefined> {
  const signals = askedSignals(env);
  if (!signals.traces && !signals.metrics) return undefined;
  let sdk: { start(): void; shutdown(): Promise<void> };
  try {
    const module = await (options.load ?? loadSdk)();
    sdk = new module.NodeSDK(sdkConfiguration(module, env, signals, options.version));
    // The SDK's own diagnostics (OTEL_LOG_LEVEL) go to stderr: its console logger would print
    // info and debug on stdout, which stays the command's data.
    const level = env.OTEL_LOG_LEVEL?.trim();
    if (level) {
      module.api.diag.setLogger(stderrLogger(options.warn), {
        logLevel: module.core.diagLogLevelFromString(level),
        suppressOverrideMessage: true,
      });
    }
    sdk.start();
  } catch (error) {
    options.warn(isSdkMissing(error) ? SDK_MISSING : startFailure(error));
    return undefined;
  }
  let done: Promise<void> | undefined;
  return {
    shutdown: () => {
      done ??= bounded(sdk.shutdown(), options.warn);
      return done;
    },
  };
}

const loadSdk = async (): Promise<SdkModule> =>
  (await import("@opentelemetry/sdk-node")) as unknown as SdkModule;

function sdkConfiguration(
  { resources }: SdkModule,
  env: Env,
  signals: AskedSignals,
  version: string,
): Record<string, unknown> {
  return {
    resource: resources.resourceFromAttributes({
      "service.name": "codex-harness",
      "service.version": version,
    }),
    // OTEL_NODE_RESOURCE_DETECTORS chooses them only when no list is given here.
    ...(set(env.OTEL_NODE_RESOURCE_DETECTORS)
      ? {}
      : {
          resourceDetectors: [
            resources.envDetector,
            resources.hostDetector,
            resources.osDetector,
            resources.serviceInstanceIdDetector,
          ],
        }),
    ...(signals.traces ? {} : { spanProcessors: [] }),
    ...(signals.metrics ? {} : { metricReaders: [] }),
    ...(signals.logs ? {} : { logRecordProcessors: [] }),
  };
}

function stderrLogger(warn: (line: string) => void): DiagLogger {
  const line = (...args: unknown[]) => warn(`telemetry: ${format(...args)}`);
  return { error: line, warn: line, info: line, debug: line, verbose: line };
}

/** `shutdown`, given up after {@link SHUTDOWN_TIMEOUT_MS} (one line then); never rejects. */
async function bounded(shutdown: Promise<void>, warn: (line: string) => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), SHUTDOWN_TIMEOUT_MS);
    timer.unref();
  });
  try {
    const result = await Promise.race([shutdown.then(() => "done" as const), late]);
    if (result === "late") {
      warn(`telemetry: the exporters did not finish within ${SHUTDOWN_TIMEOUT_MS / 1000} s`);
    }
  } catch (error) {
    warn(`telemetry: shutting down failed: ${error instanceof Error ? error.message : error}`);
  } finally {
    clearTimeout(timer);
  }
}

function isSdkMissing(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    String(message).includes("@opentelemetry/sdk-node")
  );
}

function startFailure(error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  return `telemetry: the OpenTelemetry SDK did not start (${reason}); going on without telemetry`;
}

function set(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== "";
}

/**
 * The CLI's telemetry for one program: {@link start} before a traced command's action (commander's
 * `preAction`), {@link shutdown} when the command ends; Ctrl-C or SIGTERM that nothing else handles
 * flushes too, then ends the process as the signal would have.
 */
export class CliTelemetry {
  private started: Promise<StartedTelemetry | undefined> | undefined;
  private stopWatching: (() => void) | undefined;

  constructor(
    private readonly env: Env,
    private readonly options: StartTelemetryOptions,
  ) {}

  /** Starts the SDK for `command` (a top-level command's name), if it is traced and env asks. */
  async start(command: string): Promise<void> {
    if (this.started || !TRACED_COMMANDS.includes(command) || !telemetryWanted(this.env)) return;
    this.started = startTelemetry(this.env, this.options);
    const sdk = await this.started;
    if (sdk) this.stopWatching = flushOnSignals(() => sdk.shutdown());
  }

  /** Exports what is left and stops the SDK (bounded); nothing when it was not started. */
  async shutdown(): Promise<void> {
    this.stopWatching?.();
    await (await this.started)?.shutdown();
  }
}
