// Codex config as data: deep merging, `-c key=value` overrides, and config.toml text (via smol-toml).
import { CodexHarnessError } from "../errors.js";
import { smolToml } from "../toml.js";

/** A value codex config accepts: TOML's scalars, arrays and tables. */
export type ConfigValue = string | number | boolean | ConfigValue[] | ConfigObject;

/**
 * A (nested) table of config values. `undefined` entries are ignored; in the `extra` of
 * {@link mergeConfig}, `null` removes a key.
 */
export interface ConfigObject {
  [key: string]: ConfigValue | null | undefined;
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Deep-merges `extra` over `base` (tables merge, other values replace, `null` removes). */
export function mergeConfig(base: ConfigObject, extra: ConfigObject): ConfigObject {
  const result: ConfigObject = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) continue;
    if (value === null) {
      delete result[key];
      continue;
    }
    const current = result[key];
    result[key] = isTable(value) && isTable(current) ? mergeConfig(current, value) : value;
  }
  return result;
}

/**
 * Flattens a config into codex `-c` overrides exactly as `@openai/codex-sdk` does
 * (`serializeConfigOverrides`): one `path=value` per leaf, where the path joins the keys with "."
 * as they are (so `{ "features.shell_snapshot": false }` and `{ features: { shell_snapshot: false } }`
 * both give `features.shell_snapshot=false`), an empty table gives `path={}`, and `undefined`
 * entries are skipped. Values are TOML: strings as JSON strings, arrays as `["a", "b"]`, tables
 * inside arrays as inline tables `{a = 1, "b.c" = 2}`.
 *
 * codex splits every override path on "." and reads no quoted keys, so a key holding a "." (a
 * provider named `"mock.name"`) becomes nested tables there, as it does with the official SDK.
 * Throws `invalid_config`, naming the key, for `null`, a non-finite number, an empty key, or a
 * value that is no string, number, boolean, array or table.
 */
export function toConfigOverrides(config: ConfigObject): string[] {
  if (!isTable(config)) {
    throw new CodexHarnessError(
      "invalid_config",
      'Codex config overrides must be a plain object (e.g. { model: "gpt-5" }).',
    );
  }
  const overrides: string[] = [];
  flatten(config, "", overrides);
  return overrides;
}

/** The SDK's `flattenConfigOverrides`: walks tables, one override per non-table value. */
function flatten(table: ConfigObject, prefix: string, overrides: string[]): void {
  const entries = Object.entries(table);
  if (prefix && entries.length === 0) {
    overrides.push(`${prefix}={}`);
    return;
  }
  for (const [key, value] of entries) {
    if (!key) throw emptyKey(prefix);
    if (value === undefined) continue;
    const keyPath = prefix ? `${prefix}.${key}` : key;
    if (isTable(value)) flatten(value, keyPath, overrides);
    else overrides.push(`${keyPath}=${tomlValue(value, keyPath)}`);
  }
}

/** The SDK's `toTomlValue`: one value as TOML, `path` naming it in errors. */
function tomlValue(value: unknown, path: string): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      throw invalidOverride(path, `must be a finite number, not ${value}`);
    }
    return `${value}`;
  }
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value)) {
    return `[${value.map((item, index) => tomlValue(item, `${path}[${index}]`)).join(", ")}]`;
  }
  if (isTable(value)) {
    const parts: string[] = [];
    for (const [key, child] of Object.entries(value)) {
      if (!key) throw emptyKey(path);
      if (child === undefined) continue;
      parts.push(`${tomlKey(key)} = ${tomlValue(child, `${path}.${key}`)}`);
    }
    return `{${parts.join(", ")}}`;
  }
  if (value === null) {
    throw invalidOverride(path, "cannot be null; leave the key out (or undefined) to not set it");
  }
  throw invalidOverride(
    path,
    `has an unsupported value (${typeof value}); use a string, number, boolean, array or table`,
  );
}

/** A key of an inline table: bare when TOML allows it, else a JSON (TOML basic) string. */
function tomlKey(key: string): string {
  return BARE_KEY.test(key) ? key : JSON.stringify(key);
}

function invalidOverride(path: string, reason: string): CodexHarnessError {
  return new CodexHarnessError(
    "invalid_config",
    `Codex config override at ${path} ${reason}. Change that value.`,
  );
}

function emptyKey(path: string): CodexHarnessError {
  return new CodexHarnessError(
    "invalid_config",
    `Codex config override keys must be non-empty strings; ${path ? `the table at ${path}` : "the config"} has an empty key. Remove or rename it.`,
  );
}

/**
 * Renders a config as a TOML document (root keys first, then `[a.b]` sections). A `__proto__`
 * key (which a JavaScript object would silently drop) fails with `invalid_config`.
 */
export function renderConfigToml(config: ConfigObject): string {
  return `${smolToml().stringify(prune(config, [])).trim()}\n`;
}

/** Drops `undefined`/`null` entries and checks every value TOML has to hold. */
function prune(table: ConfigObject, path: string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of presentEntries(table)) {
    const keyPath = [...path, key];
    checkKey(key, keyPath);
    if (isTable(value)) {
      result[key] = prune(value, keyPath);
    } else {
      checkValue(value, keyPath);
      result[key] = value;
    }
  }
  return result;
}

function checkValue(value: ConfigValue, path: string[]): void {
  if (typeof value === "string") {
    if (LONE_SURROGATE.test(value))
      throw invalid(path, "cannot be written as TOML: the string has a lone surrogate");
  } else if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      throw invalid(path, `cannot be written as TOML: ${value} is not a finite number`);
    }
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
      throw invalid(
        path,
        `cannot be written as TOML: the integer ${value} is too large to be exact`,
      );
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => {
      checkValue(item, [...path, String(index)]);
    });
  } else if (isTable(value)) {
    for (const [key, item] of presentEntries(value)) {
      checkKey(key, [...path, key]);
      checkValue(item, [...path, key]);
    }
  } else if (typeof value !== "boolean") {
    throw invalid(
      path,
      `cannot be written as TOML: ${value === null ? "null" : typeof value} is not a string, number, boolean, array or table`,
    );
  }
}

function checkKey(key: string, path: string[]): void {
  if (key === "__proto__") {
    throw invalid(path, 'cannot be written as TOML: "__proto__" is a reserved JavaScript key');
  }
}

function presentEntries(table: ConfigObject): [string, ConfigValue][] {
  return Object.entries(table).filter(
    (entry): entry is [string, ConfigValue] => entry[1] !== undefined && entry[1] !== null,
  );
}

function isTable(value: unknown): value is ConfigObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(path: string[], reason: string): CodexHarnessError {
  return new CodexHarnessError(
    "invalid_config",
    `Config value at ${JSON.stringify(path.join("."))} ${reason}. Change that value.`,
  );
}
