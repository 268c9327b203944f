// A real OTLP/HTTP receiver on loopback for tests: collects what OpenTelemetry exporters POST to
// /v1/traces and /v1/metrics (http/json decoded; http/protobuf spans decoded by a small wire reader).
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { eventually } from "./eventually.js";
import { decodeProtobufSpans } from "./otlp-protobuf.js";

/** A span as it arrived, whichever the encoding. */
export interface OtlpSpan {
  /** Lowercase hex, 32 characters. */
  traceId: string;
  /** Lowercase hex, 16 characters. */
  spanId: string;
  /** Undefined for a root span. */
  parentSpanId: string | undefined;
  name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer (0 unspecified). */
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  /** The attributes of the resource that exported it (`service.name`, …). */
  resource: Record<string, unknown>;
  /** The instrumentation scope's name. */
  scope: string;
  /** Start and end, nanoseconds since the epoch (JSON only). */
  startNs?: bigint;
  endNs?: bigint;
}

/** One data point of a metric (JSON only): its attributes and the value fields as sent. */
export interface OtlpDataPoint {
  attributes: Record<string, unknown>;
  /** A sum's or gauge's value. */
  value?: number;
  /** A histogram's count, sum and buckets. */
  count?: number;
  sum?: number;
  explicitBounds?: number[];
}

/** A metric as it arrived (JSON only). */
export interface OtlpMetric {
  name: string;
  type: "sum" | "gauge" | "histogram" | "other";
  dataPoints: OtlpDataPoint[];
  resource: Record<string, unknown>;
  scope: string;
}

/** One POST the receiver answered. */
export interface OtlpRequest {
  path: string;
  contentType: string;
  bytes: number;
}

/** A running receiver. */
export interface OtlpReceiver {
  /** The base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT` (exporters append `/v1/traces`, `/v1/metrics`). */
  url: string;
  /** Every span received so far. */
  spans(): OtlpSpan[];
  /** Every metric export received so far (JSON; a cumulative metric comes once per export). */
  metrics(): OtlpMetric[];
  /** Every POST so far. */
  requests(): OtlpRequest[];
  /** Resolves once `probe` (given what arrived) returns a truthy value; rejects after `timeoutMs`. */
  waitFor<T>(
    what: string,
    probe: (receiver: OtlpReceiver) => T | undefined | null | false,
    timeoutMs?: number,
  ): Promise<T>;
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 and a free port; every POST is answered 200 `{}`. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: OtlpSpan[] = [];
  const metrics: OtlpMetric[] = [];
  const requests: OtlpRequest[] = [];
  const server = createServer((request, response) => {
    readBody(request).then(
      (body) => {
        const contentType = String(request.headers["content-type"] ?? "");
        const path = request.url ?? "";
        requests.push({ path, contentType, bytes: body.length });
        try {
          take(path, contentType, body);
          response.writeHead(200, { "content-type": "application/json" }).end("{}");
        } catch (error) {
          response.writeHead(400).end(String(error));
        }
      },
      () => response.writeHead(400).end(),
    );
  });
  const take = (path: string, contentType: string, body: Buffer) => {
    const json = contentType.includes("json");
    if (path.startsWith("/v1/traces")) {
      spans.push(
        ...(json ? jsonSpans(JSON.parse(body.toString("utf8"))) : decodeProtobufSpans(body)),
      );
    } else if (path.startsWith("/v1/metrics") && json) {
      metrics.push(...jsonMetrics(JSON.parse(body.toString("utf8"))));
    }
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: OtlpReceiver = {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    metrics: () => [...metrics],
    requests: () => [...requests],
    waitFor: (what, probe, timeoutMs = 20_000) =>
      eventually(what, () => probe(receiver), { timeoutMs }) as never,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return receiver;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return request.headers["content-encoding"] === "gzip" ? gunzipSync(body) : body;
}

type Json = Record<string, unknown>;
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);

/** An id as OTLP/JSON sends it (hex; base64 from some encoders) as lowercase hex. */
function hexId(value: unknown): string {
  if (typeof value !== "string" || value === "") return "";
  return /^[0-9a-fA-F]+$/.test(value) && (value.length === 16 || value.length === 32)
    ? value.toLowerCase()
    : Buffer.from(value, "base64").toString("hex");
}

function jsonValue(value: Json | undefined): unknown {
  if (!value) return undefined;
  if ("stringValue" in value) return value.stringValue;
  if ("boolValue" in value) return value.boolValue;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return Number(value.doubleValue);
  if ("arrayValue" in value) return list((value.arrayValue as Json).values).map(jsonValue);
  return undefined;
}

function jsonAttributes(value: unknown): Record<string, unknown> {
  return Object.fromEntries(
    list(value).map((kv) => [String(kv.key), jsonValue(kv.value as Json | undefined)]),
  );
}

function jsonSpans(body: Json): OtlpSpan[] {
  return list(body.resourceSpans).flatMap((resourceSpans) => {
    const resource = jsonAttributes((resourceSpans.resource as Json | undefined)?.attributes);
    return list(resourceSpans.scopeSpans).flatMap((scopeSpans) =>
      list(scopeSpans.spans).map((span) => ({
        traceId: hexId(span.traceId),
        spanId: hexId(span.spanId),
        parentSpanId: hexId(span.parentSpanId) || undefined,
        name: String(span.name),
        kind: Number(span.kind ?? 0),
        attributes: jsonAttributes(span.attributes),
        events: list(span.events).map((event) => ({
          name: String(event.name),
          attributes: jsonAttributes(event.attributes),
        })),
        resource,
        scope: String((scopeSpans.scope as Json | undefined)?.name ?? ""),
        ...(span.startTimeUnixNano === undefined
          ? {}
          : { startNs: BigInt(String(span.startTimeUnixNano)) }),
        ...(span.endTimeUnixNano === undefined
          ? {}
          : { endNs: BigInt(String(span.endTimeUnixNano)) }),
      })),
    );
  });
}

function jsonMetrics(body: Json): OtlpMetric[] {
  return list(body.resourceMetrics).flatMap((resourceMetrics) => {
    const resource = jsonAttributes((resourceMetrics.resource as Json | undefined)?.attributes);
    return list(resourceMetrics.scopeMetrics).flatMap((scopeMetrics) =>
      list(scopeMetrics.metrics).map((metric): OtlpMetric => {
        const type = (["sum", "gauge", "histogram"] as const).find((key) => key in metric);
        const points = type ? list((metric[type] as Json).dataPoints) : [];
        return {
          name: String(metric.name),
          type: type ?? "other",
          resource,
          scope: String((scopeMetrics.scope as Json | undefined)?.name ?? ""),
          dataPoints: points.map((point) => ({
            attributes: jsonAttributes(point.attributes),
            ...("asInt" in point ? { value: Number(point.asInt) } : {}),
            ...("asDouble" in point ? { value: Number(point.asDouble) } : {}),
            ...("count" in point ? { count: Number(point.count) } : {}),
            ...("sum" in point ? { sum: Number(point.sum) } : {}),
            ...("explicitBounds" in point
              ? { explicitBounds: (point.explicitBounds as unknown[]).map(Number) }
              : {}),
          })),
        };
      }),
    );
  });
}

/** Every attribute value of `spans` (their events and resources too), as text: for content scans. */
export function everyValue(spans: OtlpSpan[]): string[] {
  const texts: string[] = [];
  const add = (attributes: Record<string, unknown>) => {
    for (const value of Object.values(attributes)) texts.push(JSON.stringify(value));
  };
  for (const span of spans) {
    add(span.attributes);
    add(span.resource);
    for (const event of span.events) add(event.attributes);
  }
  return texts;
}
