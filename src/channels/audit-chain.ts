// The audit log's chain: each entry's record as canonical JSON (keys sorted, no white space), and
// its hash, SHA-256 over its number, the previous entry's hash and that JSON. Pure; the PostgreSQL
// store computes the same hash in SQL (`postgres-audit.ts`), and the tests hold the two together.
import crypto from "node:crypto";
import { CodexHarnessError } from "../errors.js";
import type { AuditEntry, AuditRecord, AuditRow } from "./audit-types.js";

/**
 * `value` as canonical JSON: object keys sorted (by UTF-16 code units, as `Array.prototype.sort`
 * does), no white space, `undefined` members left out — the same text for the same data, however
 * it was built. Throws `invalid_input` for what JSON cannot hold as it is (a non-finite number, a
 * function, a bigint).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "string" || typeof value === "boolean") {
    return JSON.stringify(value);
  }
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw notJson(String(value));
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  }
  if (typeof value === "object") {
    const object = value as Record<string, unknown>;
    // Keys sorted by code units (the default sort), each member written once: on every append.
    let text = "";
    for (const key of Object.keys(object).sort()) {
      const member = object[key];
      if (member === undefined) continue;
      text += `${text === "" ? "" : ","}${JSON.stringify(key)}:${canonicalJson(member)}`;
    }
    return `{${text}}`;
  }
  throw notJson(typeof value);
}

function notJson(what: string): CodexHarnessError {
  return new CodexHarnessError(
    "invalid_input",
    `An audit record holds only JSON data, not ${what}.`,
  );
}

/** The text an entry's hash covers of its record: the record's {@link canonicalJson}. */
export function recordBody(record: AuditRecord): string {
  return canonicalJson(record);
}

/**
 * An entry's hash: SHA-256, in hex, of `<seq>\n<prev>\n<body>` (UTF-8), where `prev` is the hash of
 * the entry before (or `GENESIS`) and `body` the record's canonical JSON.
 */
export function entryHash(seq: number, prev: string, body: string): string {
  const text = `${seq}\n${prev}\n${body}`;
  // The one-shot hash (Node 20.12+) takes half the time of a Hash object, on every append.
  return typeof crypto.hash === "function"
    ? crypto.hash("sha256", text, "hex")
    : crypto.createHash("sha256").update(text).digest("hex");
}

/** The row to store for `record` as entry `seq` after `prev`. */
export function chainRow(seq: number, prev: string, record: AuditRecord): AuditRow {
  const body = recordBody(record);
  return { seq, at: record.at, body, prev, hash: entryHash(seq, prev, body) };
}

/** The fields of a record, in the order an entry shows them. */
const ENTRY_ORDER = [
  "at",
  "action",
  "actor",
  "surface",
  "subject",
  "decision",
  "reason",
  "message",
  "summary",
] as const satisfies readonly (keyof AuditRecord)[];

/**
 * The entry of a stored row (its body parsed). Throws `invalid_input` when the body is not a
 * record's JSON (an edited row: the verifier says which).
 */
export function entryOf(row: AuditRow): AuditEntry {
  let record: unknown;
  try {
    record = JSON.parse(row.body);
  } catch (error) {
    throw new CodexHarnessError(
      "invalid_input",
      `Audit entry ${row.seq} is not JSON; \`codex-harness audit --verify\` says more.`,
      { cause: error },
    );
  }
  if (typeof record !== "object" || record === null || Array.isArray(record)) {
    throw new CodexHarnessError(
      "invalid_input",
      `Audit entry ${row.seq} is not a record; \`codex-harness audit --verify\` says more.`,
    );
  }
  // In the order people read them (the record's own is alphabetical), any others after them.
  const fields = record as Record<string, unknown>;
  const keys = [
    ...ENTRY_ORDER,
    ...Object.keys(fields).filter((key) => !(ENTRY_ORDER as readonly string[]).includes(key)),
  ].filter((key) => fields[key] !== undefined && key !== "seq" && key !== "prev" && key !== "hash");
  const entry: Record<string, unknown> = { seq: row.seq };
  for (const key of keys) entry[key] = fields[key];
  return { ...(entry as unknown as AuditEntry), prev: row.prev, hash: row.hash };
}
