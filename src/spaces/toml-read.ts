// Shared helpers for reading and validating the spaces TOML files (space.toml, asp-targets.toml).
import path from "node:path";
import { CodexHarnessError } from "../errors.js";
import { parseToml, readTextFile } from "../toml-file.js";

/** A parsed TOML table. */
export type Table = Record<string, unknown>;

/**
 * Throws a {@link CodexHarnessError} with `code`, naming `origin` (with `:line` when known) and
 * `where`.
 */
export type Fail = (where: string, what: string, line?: number) => never;

/** A {@link Fail} that raises `code` with messages starting `<origin>: ` (or `<origin>:<line>: `). */
export function failer(code: string, origin: string): Fail {
  return (where, what, line) => {
    throw new CodexHarnessError(code, `${fileLine(origin, line)}: ${where} ${what}`);
  };
}

/** `file:line`, or `file` when the line is unknown. */
export function fileLine(file: string, line: number | undefined): string {
  return line === undefined ? file : `${file}:${line}`;
}

/** Reads and parses a TOML file; unreadable files and syntax errors raise `code`. */
export function readTomlFile(file: string, code: string, what: string): Table {
  const text = readTextFile(file, code, what, "create it or point to the folder that has it");
  return parseToml(text, file, code);
}

/** Whether a value is a TOML table (not an array or date). */
export function isTable(value: unknown): value is Table {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date)
  );
}

/** Describes a value's kind for messages ("a string", "an array", …). */
export function kindOf(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (value instanceof Date) return "a date";
  return typeof value === "object" ? "a table" : `a ${typeof value}`;
}

/** Rejects keys of `table` not in `allowed`, naming the key and the allowed ones. */
export function checkKeys(table: Table, allowed: readonly string[], where: string, fail: Fail) {
  for (const key of Object.keys(table)) {
    if (!allowed.includes(key)) {
      fail(`${where}${key}`, `is not a known key; use ${allowed.join(", ")} (or remove it)`);
    }
  }
}

/** An optional string value; wrong types fail naming `where`. */
export function optString(value: unknown, where: string, fail: Fail): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") fail(where, `must be a string, got ${kindOf(value)}`);
  return value as string;
}

/** An optional table value; wrong types fail naming `where`. */
export function optTable(value: unknown, where: string, fail: Fail): Table | undefined {
  if (value === undefined) return undefined;
  if (!isTable(value)) fail(where, `must be a table, got ${kindOf(value)}`);
  return value as Table;
}

/** An optional array of strings; wrong types fail naming `where[index]`. */
export function optStrings(value: unknown, where: string, fail: Fail): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) fail(where, `must be an array of strings, got ${kindOf(value)}`);
  return (value as unknown[]).map((item, index) => {
    if (typeof item !== "string")
      fail(`${where}[${index}]`, `must be a string, got ${kindOf(item)}`);
    return item as string;
  });
}

/** Checks `schema = 1`. */
export function checkSchema(value: unknown, fail: Fail): void {
  if (value !== 1) {
    fail(
      "schema",
      `must be 1 (write \`schema = 1\`), got ${value === undefined ? "nothing" : JSON.stringify(value)}`,
    );
  }
}

/** A safe id: lower-case letters, digits, "-", "_" and "."; starting with a letter or digit. */
export const SLUG = /^[a-z0-9][a-z0-9._-]*$/;

/**
 * A plain name: ASCII letters, digits, "_" and "-". It is a bare TOML key and a JSON key as is, so
 * it needs no quoting anywhere it is written (codex takes the same characters in MCP server names).
 */
export const PLAIN_NAME = /^[A-Za-z0-9_-]+$/;

/** A plain environment variable name: a letter or "_", then letters, digits or "_". */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A key JavaScript objects give a special meaning (assigning it sets the prototype). */
export const PROTO_KEY = "__proto__";

/**
 * Why `name` cannot be written as a key (of config.toml, mcp.json and the manifest): it does not
 * match `pattern` (default {@link PLAIN_NAME}, whose characters `allowed` describes) or is
 * `__proto__`; `null` when it can.
 */
export function plainNameReason(
  name: string,
  pattern: RegExp = PLAIN_NAME,
  allowed = 'letters, digits, "_" and "-"',
): string | null {
  if (name === PROTO_KEY) return `${JSON.stringify(name)} is a reserved JavaScript key`;
  if (!pattern.test(name)) return `${JSON.stringify(name)} is not a plain name (use ${allowed})`;
  return null;
}

/**
 * A space version: a letter or digit, then letters, digits, ".", "_", "+" and "-" (semver with
 * pre-release and build parts fits). It is written into AGENTS.md markers, so nothing else is.
 */
export const VERSION = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

/**
 * Why `name` cannot be used as one output file or folder name (empty, `.`/`..`, a path separator,
 * absolute, a NUL), or `null` when it is safe.
 */
export function unsafeNameReason(name: string): string | null {
  if (name.trim() === "") return "is empty";
  if (name === "." || name === "..") return `is "${name}", which names a parent or current folder`;
  if (path.isAbsolute(name) || /^[A-Za-z]:/.test(name)) return `"${name}" is an absolute path`;
  if (/[/\\]/.test(name)) return `"${name}" contains a path separator`;
  if (name.includes("\0")) return `"${name}" contains a NUL character`;
  return null;
}
