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
 * Flattens tables into codex `-c` overrides, one per leaf, as `@openai/codex-sdk` does:
 * `{ sandbox_workspace_write: { network_access: true } }` -> `sandbox_workspace_write.network_access=true`.
 * codex splits override paths on "." and reads no quoted keys, so every key must be bare.
 */
export function toConfigOverrides(config: ConfigObject): string[] {
  const overrides: string[] = [];
  const walk = (table: ConfigObject, path: string[]): void => {
    for (const [key, value] of presentEntries(table)) {
      const keyPath = [...path, key];
      if (!BARE_KEY.test(key)) {
        throw invalid(
          keyPath,
          `cannot be a codex -c override: codex splits override paths on "." and reads no quoted keys. Use letters, digits, "_" and "-", or write config.toml instead`,
        );
      }
      if (isTable(value)) {
        walk(value, keyPath);
        continue;
      }
      if (Array.isArray(value) && value.some((item) => isTable(item))) {
        throw invalid(
          keyPath,
          "holds tables in an array, which a -c override cannot carry; write config.toml instead",
        );
      }
      checkValue(value, keyPath);
      overrides.push(
        `${keyPath.join(".")}=${smolToml().stringify({ v: value }).slice("v = ".length).trimEnd()}`,
      );
    }
  };
  walk(config, []);
  return overrides;
}

/** Renders a config as a TOML document (root keys first, then `[a.b]` sections). */
export function renderConfigToml(config: ConfigObject): string {
  return `${smolToml().stringify(prune(config, [])).trim()}\n`;
}

/** Drops `undefined`/`null` entries and checks every value TOML has to hold. */
function prune(table: ConfigObject, path: string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of presentEntries(table)) {
    const keyPath = [...path, key];
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
    for (const [key, item] of presentEntries(value)) checkValue(item, [...path, key]);
  } else if (typeof value !== "boolean") {
    throw invalid(
      path,
      `cannot be written as TOML: ${value === null ? "null" : typeof value} is not a string, number, boolean, array or table`,
    );
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
