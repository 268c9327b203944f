// Ajv's errors for one message, said as one finding: the field (`params.item.status`) and what is
// wrong with it, in words.
import type { ErrorObject } from "ajv";

/** The field that does not fit and what is wrong with it. */
export interface Failure {
  path: string;
  problem: string;
}

/** Summaries of a union's failure, which its variants' own errors say better. */
const SUMMARIES = new Set(["anyOf", "oneOf", "allOf", "if", "not"]);

/**
 * The most telling of Ajv's errors: the deepest field (a union's variants fail each at their own
 * place; the one that got furthest is the one meant), with the allowed values or types of every
 * error at that same field merged (`must be string or null`, `must be one of "a", "b"`).
 */
export function describeFailure(root: string, value: unknown, errors: ErrorObject[]): Failure {
  const candidates = errors.filter((error) => !SUMMARIES.has(error.keyword));
  const pool = candidates.length > 0 ? candidates : errors;
  if (pool.length === 0) return { path: root, problem: "does not fit the schema" };
  const located = pool.map((error) => ({ error, segments: segmentsOf(error) }));
  const depth = Math.max(...located.map((entry) => entry.segments.length));
  const deepest = located.filter((entry) => entry.segments.length === depth);
  const first = deepest[0] as (typeof deepest)[number];
  const path = render(root, first.segments);
  const same = deepest.filter((entry) => render(root, entry.segments) === path);
  const got = describeValue(valueAt(value, first.segments));
  const allowed = same.flatMap((entry) => allowedValues(entry.error));
  if (allowed.length > 0 && same.every((entry) => allowedValues(entry.error).length > 0)) {
    const list = [...new Set(allowed.map((v) => JSON.stringify(v)))];
    const choice = list.length === 1 ? `must be ${list[0]}` : `must be one of ${list.join(", ")}`;
    return { path, problem: `${choice} (got ${got})` };
  }
  const types = same.flatMap((entry) =>
    entry.error.keyword === "type" ? typesOf(entry.error) : [],
  );
  if (types.length > 0 && types.length >= same.length) {
    return { path, problem: `must be ${[...new Set(types)].join(" or ")} (got ${got})` };
  }
  return { path, problem: problemOf(first.error, got) };
}

/** The error's field as path segments: `required` and extra properties point at the property. */
function segmentsOf(error: ErrorObject): string[] {
  const segments = error.instancePath
    .split("/")
    .slice(1)
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required") segments.push(String(params.missingProperty));
  if (error.keyword === "additionalProperties") segments.push(String(params.additionalProperty));
  if (error.keyword === "discriminator") segments.push(String(params.tag));
  return segments;
}

/** The allowed values an `enum`, `const` or a discriminator's error names. */
function allowedValues(error: ErrorObject): unknown[] {
  if (error.keyword === "enum") return (error.params as { allowedValues: unknown[] }).allowedValues;
  if (error.keyword === "const") return [(error.params as { allowedValue: unknown }).allowedValue];
  if (error.keyword === "discriminator") {
    const tag = (error.params as { tag: string }).tag;
    const variants = (error.parentSchema as { oneOf?: unknown[] } | undefined)?.oneOf ?? [];
    return variants.flatMap(
      (variant) =>
        (variant as { properties?: Record<string, { enum?: unknown[] }> }).properties?.[tag]
          ?.enum ?? [],
    );
  }
  return [];
}

function typesOf(error: ErrorObject): string[] {
  const type = (error.params as { type: string | string[] }).type;
  return Array.isArray(type) ? type : type.split(",");
}

function problemOf(error: ErrorObject, got: string): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return "is missing";
    case "additionalProperties":
      return "is not allowed";
    case "format":
      return `must be a ${String(params.format)} number (got ${got})`;
    default:
      return `${error.message ?? "does not fit the schema"} (got ${got})`;
  }
}

/** `params` + `item`, `status` -> `params.item.status`; indices as `[0]`, odd keys quoted. */
function render(root: string, segments: string[]): string {
  let path = root;
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) path += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(segment)) path += `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

function valueAt(value: unknown, segments: string[]): unknown {
  let current = value;
  for (const segment of segments) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** A short rendering of the offending value (never the whole of a big one). */
function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value !== null && typeof value === "object") return "an object";
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
