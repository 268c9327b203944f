// Whether OpenTelemetry is on: a provider registered in the api's global slot. Only then is
// @opentelemetry/api (an optional peer) required, synchronously; otherwise nothing is loaded.
import { createRequire } from "node:module";
import type { OtelApi } from "./otel-types.js";

/**
 * Where every copy of `@opentelemetry/api` 1.x keeps its registrations
 * (`{ version, trace?, metrics?, propagation?, context?, diag? }`): reading it is the whole cost of
 * telemetry when nobody registered a provider.
 */
const GLOBAL_SLOT = Symbol.for("opentelemetry.js.api.1");

/** Loads `@opentelemetry/api`; throws when it cannot be resolved. */
export type ApiLoader = () => unknown;

/** Requires the api from this package's location (then the program's), as node resolves it. */
const requireApi: ApiLoader = () => createRequire(import.meta.url)("@opentelemetry/api");

/** Whether a tracer or meter provider is registered globally (by any copy of the api). */
export function providerRegistered(): boolean {
  const slot = (globalThis as unknown as Record<symbol, unknown>)[GLOBAL_SLOT] as
    | { trace?: unknown; metrics?: unknown }
    | undefined;
  return typeof slot === "object" && slot !== null && (slot.trace != null || slot.metrics != null);
}

/**
 * The api, when a provider is registered and the api can be required; otherwise undefined (and
 * nothing was loaded). `load` is for tests. node caches the module, so a second call only looks it
 * up; a failed require is tried again on the next turn (a provider may come with the api later).
 */
export function otelApi(load: ApiLoader = requireApi): OtelApi | undefined {
  if (!providerRegistered()) return undefined;
  let api: unknown;
  try {
    api = load();
  } catch {
    return undefined;
  }
  return isApi(api) ? api : undefined;
}

function isApi(value: unknown): value is OtelApi {
  const api = value as Partial<OtelApi> | null | undefined;
  return (
    typeof api?.trace?.getTracerProvider === "function" &&
    typeof api.trace.setSpan === "function" &&
    typeof api.metrics?.getMeter === "function" &&
    typeof api.context?.active === "function" &&
    typeof api.propagation?.inject === "function" &&
    typeof api.trace.setSpanContext === "function" &&
    typeof api.ROOT_CONTEXT === "object"
  );
}
