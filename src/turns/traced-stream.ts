// A turn's stream, traced when an OpenTelemetry provider is registered: only then is the tracing
// (and @opentelemetry/api) loaded; otherwise the transport's stream is returned as it is.
import type { WithRaw } from "../events/raw.js";
import type { ExtendedThreadEvent } from "../events/types.js";
import { providerRegistered } from "../telemetry/gate.js";
import type { TelemetryOptions } from "./options.js";
import type { TurnObserver, TurnRequest, TurnTransport } from "./turn-transport.js";

/** What the Codex tells its threads for tracing: its telemetry options and configured provider. */
export interface TelemetryDefaults {
  telemetry?: TelemetryOptions | undefined;
  /** `model_provider` of the Codex's `config`, when it names one. */
  modelProvider?: string | undefined;
}

const UNOBSERVED: TurnObserver = { onOpen() {}, onEvent() {}, onEnd() {} };

/**
 * `transport.runTurn(request)`, traced when a provider is registered (checked per turn: one
 * property read when none is). The thread's `telemetry` wins over the Codex's.
 */
export function tracedRunTurn(
  transport: TurnTransport,
  request: TurnRequest,
  defaults: TelemetryDefaults,
): AsyncGenerator<WithRaw<ExtendedThreadEvent>> {
  if (!providerRegistered()) return transport.runTurn(request);
  return traced(transport, request, defaults);
}

async function* traced(
  transport: TurnTransport,
  request: TurnRequest,
  defaults: TelemetryDefaults,
): AsyncGenerator<WithRaw<ExtendedThreadEvent>> {
  const { traceTurn } = await import("./turn-telemetry.js");
  const { threadOptions, turnOptions } = request;
  const turn = traceTurn({
    transport: transport.kind,
    recordContent: (threadOptions.telemetry ?? defaults.telemetry)?.recordContent === true,
    providerName:
      threadOptions.modelProvider ?? providerOf(threadOptions.config) ?? defaults.modelProvider,
    requestModel: turnOptions.model ?? threadOptions.model,
    threadId: request.threadId,
    input: request.input,
    parent: turnOptions.traceParent,
  });
  if (!turn) return yield* transport.runTurn(request);
  yield* transport.runTurn({
    ...request,
    observer: turn.observe(request.observer ?? UNOBSERVED),
    telemetry: turn,
  });
}

/** The `model_provider` a config names, if it is a string. */
export function providerOf(config: Record<string, unknown> | undefined): string | undefined {
  const provider = config?.model_provider;
  return typeof provider === "string" && provider !== "" ? provider : undefined;
}
