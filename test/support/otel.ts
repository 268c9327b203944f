// In-memory OpenTelemetry for tests: a tracer and a meter provider registered globally, their
// finished spans and collected metrics, and the scan that finds content in any attribute.
import { context, metrics, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  type CollectionResult,
  type HistogramMetricData,
  MeterProvider,
  type MetricData,
  MetricReader,
  type SumMetricData,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

/** A reader that collects when asked (no interval, nothing exported). */
class CollectOnDemand extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** The providers a test registered, and what they recorded. */
export interface InMemoryOtel {
  /** Every span ended so far. */
  spans(): ReadableSpan[];
  /** The metrics recorded so far (cumulative), by name. */
  metrics(): Promise<Map<string, MetricData>>;
  /** Unregisters both providers (the api's globals are free again). */
  close(): Promise<void>;
}

/**
 * Registers a tracer and a meter provider globally, in memory, and an AsyncLocalStorage context
 * manager (as NodeSDK does), so a span the test makes active is the parent of a turn run under it.
 */
export function registerInMemoryOtel(): InMemoryOtel {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const reader = new CollectOnDemand();
  const meterProvider = new MeterProvider({ readers: [reader] });
  if (!trace.setGlobalTracerProvider(tracerProvider)) throw new Error("a tracer provider is set");
  if (!metrics.setGlobalMeterProvider(meterProvider)) throw new Error("a meter provider is set");
  if (!context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())) {
    throw new Error("a context manager is set");
  }
  return {
    spans: () => exporter.getFinishedSpans(),
    async metrics() {
      const result: CollectionResult = await reader.collect();
      const byName = new Map<string, MetricData>();
      for (const scope of result.resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) byName.set(metric.descriptor.name, metric);
      }
      return byName;
    },
    async close() {
      trace.disable();
      metrics.disable();
      context.disable();
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

/** The spans named `name` (or starting with it and a space). */
export function spansNamed(spans: ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name || span.name.startsWith(`${name} `));
}

/** The span id of a span's parent, if it has one. */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

/** Every attribute value of the spans, their events and the resources, as text. */
export function allAttributeText(spans: ReadableSpan[]): string[] {
  const texts: string[] = [];
  const add = (attributes: Record<string, unknown> | undefined) => {
    for (const value of Object.values(attributes ?? {})) texts.push(String(value));
  };
  for (const span of spans) {
    add(span.attributes);
    add(span.resource.attributes);
    for (const event of span.events) add(event.attributes);
    if (span.status.message) texts.push(span.status.message);
  }
  return texts;
}

/** A histogram's data points. */
export function histogram(metric: MetricData | undefined): HistogramMetricData["dataPoints"] {
  if (!metric || !("dataPoints" in metric)) throw new Error("no such metric");
  return (metric as HistogramMetricData).dataPoints;
}

/** A counter's data points. */
export function counter(metric: MetricData | undefined): SumMetricData["dataPoints"] {
  if (!metric) throw new Error("no such metric");
  return (metric as SumMetricData).dataPoints;
}
