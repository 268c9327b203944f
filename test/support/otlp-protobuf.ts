// A tiny protobuf wire reader for OTLP trace exports (`http/protobuf`, the default protocol): just
// the fields the tests read, by number, from opentelemetry-proto's trace/common/resource messages.
import type { OtlpSpan } from "./otlp-receiver.js";

/** One field of a message: its number and its value (a varint, 8 bytes, or a length-delimited run). */
interface Field {
  no: number;
  varint?: bigint;
  fixed?: Buffer;
  bytes?: Buffer;
}

/** The fields of one message, in wire order. Throws on a wire type it does not know (3, 4). */
function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = buffer[at++];
      if (byte === undefined) throw new Error("protobuf: truncated varint");
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
  };
  const take = (length: number): Buffer => {
    const bytes = buffer.subarray(at, at + length);
    at += length;
    return bytes;
  };
  while (at < buffer.length) {
    const key = Number(varint());
    const no = key >>> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ no, varint: varint() });
    else if (wire === 1) out.push({ no, fixed: take(8) });
    else if (wire === 2) out.push({ no, bytes: take(Number(varint())) });
    else if (wire === 5) out.push({ no, fixed: take(4) });
    else throw new Error(`protobuf: wire type ${wire} of field ${no}`);
  }
  return out;
}

const each = (message: Buffer, no: number): Buffer[] =>
  fields(message).flatMap((field) => (field.no === no && field.bytes ? [field.bytes] : []));
const one = (message: Buffer, no: number): Field | undefined =>
  fields(message).find((field) => field.no === no);

/** An `AnyValue` (string=1, bool=2, int=3, double=4, array=5) as a plain value. */
function anyValue(message: Buffer): unknown {
  const field = fields(message)[0];
  if (!field) return undefined;
  if (field.no === 1) return field.bytes?.toString("utf8");
  if (field.no === 2) return field.varint === 1n;
  if (field.no === 3) return Number(BigInt.asIntN(64, field.varint ?? 0n));
  if (field.no === 4) return field.fixed?.readDoubleLE(0);
  if (field.no === 5) return each(field.bytes ?? Buffer.alloc(0), 1).map(anyValue);
  return undefined;
}

/** Repeated `KeyValue` (key=1, value=2) fields numbered `no`, as an object. */
function attributes(message: Buffer, no: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of each(message, no)) {
    const key = one(kv, 1)?.bytes?.toString("utf8");
    const value = one(kv, 2)?.bytes;
    if (key !== undefined) out[key] = value ? anyValue(value) : undefined;
  }
  return out;
}

/**
 * The spans of an `ExportTraceServiceRequest`: resource_spans=1 → resource=1 (attributes=1),
 * scope_spans=2 → scope=1 (name=1), spans=2 → trace_id=1, span_id=2, parent_span_id=4, name=5,
 * kind=6, attributes=9, events=11 (name=2, attributes=3).
 */
export function decodeProtobufSpans(body: Buffer): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  for (const resourceSpans of each(body, 1)) {
    const resource = one(resourceSpans, 1)?.bytes;
    const resourceAttributes = resource ? attributes(resource, 1) : {};
    for (const scopeSpans of each(resourceSpans, 2)) {
      const scope = one(scopeSpans, 1)?.bytes;
      const scopeName = (scope && one(scope, 1)?.bytes?.toString("utf8")) ?? "";
      for (const span of each(scopeSpans, 2)) {
        const hex = (no: number) => one(span, no)?.bytes?.toString("hex") ?? "";
        spans.push({
          traceId: hex(1),
          spanId: hex(2),
          parentSpanId: hex(4) || undefined,
          name: one(span, 5)?.bytes?.toString("utf8") ?? "",
          kind: Number(one(span, 6)?.varint ?? 0n),
          attributes: attributes(span, 9),
          events: each(span, 11).map((event) => ({
            name: one(event, 2)?.bytes?.toString("utf8") ?? "",
            attributes: attributes(event, 3),
          })),
          resource: resourceAttributes,
          scope: scopeName,
        });
      }
    }
  }
  return spans;
}
