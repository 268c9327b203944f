// W3C trace context as a plain object (`traceparent`, `tracestate`): how a span's context crosses a
// process, a database row or an HTTP request. The registered propagator writes and reads it; when a
// program registered none (a bare BasicTracerProvider), `traceparent` is written and read here.
import type { OtelApi, OtelContext, OtelSpan } from "./otel-types.js";

/** A span's W3C trace context: what `traceparent`/`tracestate` headers (or codex's `trace`) carry. */
export interface TraceCarrier {
  /** `00-{trace id}-{span id}-{flags}`. */
  traceparent: string;
  tracestate?: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/** Whether `value` is a carrier with a well-formed `traceparent` (for what arrives from outside). */
export function isTraceCarrier(value: unknown): value is TraceCarrier {
  if (typeof value !== "object" || value === null) return false;
  const { traceparent, tracestate } = value as Record<string, unknown>;
  return (
    typeof traceparent === "string" &&
    parseTraceparent(traceparent) !== undefined &&
    (tracestate === undefined || typeof tracestate === "string")
  );
}

/** The carrier of `span` (in `context`), or undefined when it has no valid context. */
export function carrierOf(
  api: OtelApi,
  span: OtelSpan,
  context?: OtelContext,
): TraceCarrier | undefined {
  const spanContext = span.spanContext();
  if (spanContext.traceId === ZERO_TRACE || spanContext.spanId === ZERO_SPAN) return undefined;
  const written: Record<string, string> = {};
  const base = context ?? api.context.active();
  api.propagation.inject(api.trace.setSpan(base, span), written);
  if (typeof written.traceparent === "string" && parseTraceparent(written.traceparent)) {
    return {
      traceparent: written.traceparent,
      ...(written.tracestate ? { tracestate: written.tracestate } : {}),
    };
  }
  // No propagator registered: write the W3C form ourselves.
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, "0");
  return { traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}` };
}

/**
 * The context whose span is the remote parent `carrier` names, or undefined when the carrier is
 * missing or malformed (then the caller's own default parent applies).
 */
export function contextOf(
  api: OtelApi,
  carrier: TraceCarrier | undefined,
): OtelContext | undefined {
  if (!carrier) return undefined;
  const parsed = parseTraceparent(carrier.traceparent);
  if (!parsed) return undefined;
  const root = api.ROOT_CONTEXT;
  const extracted = api.propagation.extract(root, { ...carrier });
  if (api.trace.getSpanContext(extracted)?.spanId === parsed.spanId) return extracted;
  // No propagator registered: the parent from the traceparent itself.
  return api.trace.setSpanContext(root, { ...parsed, isRemote: true });
}

function parseTraceparent(
  value: string,
): { traceId: string; spanId: string; traceFlags: number } | undefined {
  const match = TRACEPARENT.exec(value);
  if (!match) return undefined;
  const [, traceId = "", spanId = "", flags = "00"] = match;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
}

/** `carrier` as HTTP request headers (`traceparent`, and `tracestate` when it has one). */
export function traceHeaders(carrier: TraceCarrier): Record<string, string> {
  return {
    traceparent: carrier.traceparent,
    ...(carrier.tracestate ? { tracestate: carrier.tracestate } : {}),
  };
}

/**
 * The carrier of an HTTP request's `traceparent`/`tracestate` headers, or undefined when it has
 * none or a malformed one (a bad header is ignored, as the W3C recommendation says).
 */
export function carrierFromHeaders(
  headers: Record<string, string | string[] | undefined>,
): TraceCarrier | undefined {
  const { traceparent, tracestate } = headers;
  const carrier = {
    traceparent,
    ...(typeof tracestate === "string" && tracestate !== "" ? { tracestate } : {}),
  };
  return isTraceCarrier(carrier) ? carrier : undefined;
}
