// The part of @opentelemetry/api (1.x) codex-harness uses, as local structural types: no declaration
// the package root reaches names the api, so programs without it still type-check.

/** An attribute value (the api's `AttributeValue`, the kinds we set). */
export type AttributeValue = string | number | boolean | readonly string[] | readonly number[];

/** Attributes of a span, a span event or a measurement. */
export type Attributes = Record<string, AttributeValue | undefined>;

/** A point in time: milliseconds since the epoch, or a `Date` (the api's `TimeInput` takes both). */
export type TimeInput = number | Date;

/** The api's `SpanKind` values (stable numbers in api 1.x). */
export const SPAN_KIND = Object.freeze({
  INTERNAL: 0,
  SERVER: 1,
  CLIENT: 2,
  PRODUCER: 3,
  CONSUMER: 4,
} as const);

/** The api's `SpanStatusCode` values. */
export const STATUS_CODE = Object.freeze({ UNSET: 0, OK: 1, ERROR: 2 } as const);

/** An opaque context (the api's `Context`). */
export interface OtelContext {
  getValue(key: symbol): unknown;
}

/** The api's `Span`, the methods we call. */
export interface OtelSpan {
  setAttribute(key: string, value: AttributeValue): unknown;
  setAttributes(attributes: Attributes): unknown;
  addEvent(name: string, attributes?: Attributes, time?: TimeInput): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(endTime?: TimeInput): void;
  isRecording(): boolean;
  spanContext(): OtelSpanContext;
}

/** The api's `SpanContext`. */
export interface OtelSpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean;
}

/** The api's `SpanOptions`, the fields we set. */
export interface OtelSpanOptions {
  kind?: number;
  attributes?: Attributes;
  startTime?: TimeInput;
}

/** The api's `Tracer`. */
export interface OtelTracer {
  startSpan(name: string, options?: OtelSpanOptions, context?: OtelContext): OtelSpan;
}

/** The api's `Histogram`. */
export interface OtelHistogram {
  record(value: number, attributes?: Attributes): void;
}

/** The api's `Counter`. */
export interface OtelCounter {
  add(value: number, attributes?: Attributes): void;
}

/** The api's `MetricOptions`, the fields we set. */
export interface OtelMetricOptions {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}

/** The api's `ObservableResult`: what a gauge's callback reports. */
export interface OtelObservableResult {
  observe(value: number, attributes?: Attributes): void;
}

/** A gauge's callback (it may be async: the SDK waits for it at collection). */
export type OtelObservableCallback = (result: OtelObservableResult) => void | Promise<void>;

/** The api's `ObservableGauge`. */
export interface OtelObservableGauge {
  addCallback(callback: OtelObservableCallback): void;
  removeCallback(callback: OtelObservableCallback): void;
}

/** The api's `BatchObservableResult`: what a batch callback reports, per instrument. */
export interface OtelBatchObservableResult {
  observe(observable: OtelObservableGauge, value: number, attributes?: Attributes): void;
}

/** A callback observing several instruments at once (one query for all of them). */
export type OtelBatchObservableCallback = (
  result: OtelBatchObservableResult,
) => void | Promise<void>;

/** The api's `Meter`. */
export interface OtelMeter {
  createHistogram(name: string, options?: OtelMetricOptions): OtelHistogram;
  createCounter(name: string, options?: OtelMetricOptions): OtelCounter;
  createObservableGauge(name: string, options?: OtelMetricOptions): OtelObservableGauge;
  addBatchObservableCallback(
    callback: OtelBatchObservableCallback,
    observables: OtelObservableGauge[],
  ): void;
  removeBatchObservableCallback(
    callback: OtelBatchObservableCallback,
    observables: OtelObservableGauge[],
  ): void;
}

/** `@opentelemetry/api`'s module, the members we use. */
export interface OtelApi {
  trace: {
    /** The registered provider (the api's `trace.getTracer` drops the options, so not that). */
    getTracerProvider(): {
      getTracer(name: string, version?: string, options?: { schemaUrl?: string }): OtelTracer;
    };
    setSpan(context: OtelContext, span: OtelSpan): OtelContext;
    getSpanContext(context: OtelContext): OtelSpanContext | undefined;
    setSpanContext(context: OtelContext, spanContext: OtelSpanContext): OtelContext;
  };
  metrics: {
    getMeter(name: string, version?: string, options?: { schemaUrl?: string }): OtelMeter;
  };
  context: { active(): OtelContext };
  propagation: {
    inject(context: OtelContext, carrier: Record<string, string>): void;
    extract(context: OtelContext, carrier: Record<string, string>): OtelContext;
  };
  /** The empty context (a span started in it is a root). */
  ROOT_CONTEXT: OtelContext;
}
