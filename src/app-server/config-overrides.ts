// Turns a config object into codex `-c key=value` overrides (dotted keys, TOML literal values).
import { CodexHarnessError } from "../errors.js";

/** A value codex config accepts: TOML's scalars, arrays and tables. */
export type ConfigValue = string | number | boolean | ConfigValue[] | ConfigObject;
/** A (nested) table of config values. */
export interface ConfigObject {
  [key: string]: ConfigValue | undefined;
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/**
 * Flattens nested tables into dotted keys, as `@openai/codex-sdk` does:
 * `{ sandbox_workspace_write: { network_access: true } }` -> `sandbox_workspace_write.network_access=true`.
 * `undefined` entries are left out.
 */
export function toConfigOverrides(config: ConfigObject, prefix = ""): string[] {
  const overrides: string[] = [];
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    if (key === "") {
      throw new CodexHarnessError("invalid_config", "Config keys cannot be empty strings.");
    }
    const path = `${prefix}${tomlKey(key)}`;
    if (isTable(value)) overrides.push(...toConfigOverrides(value, `${path}.`));
    else overrides.push(`${path}=${tomlValue(value, path)}`);
  }
  return overrides;
}

/** Renders one key as TOML: bare when it can be, quoted otherwise. */
export function tomlKey(key: string): string {
  return BARE_KEY.test(key) ? key : JSON.stringify(key);
}

/** Renders a value as a TOML literal (strings as basic strings, tables inline). */
export function tomlValue(value: ConfigValue, path: string): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      throw new CodexHarnessError(
        "invalid_config",
        `Config value at ${path} must be a finite number, got ${String(value)}.`,
      );
    }
    return String(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item, index) => tomlValue(item, `${path}[${index}]`)).join(", ")}]`;
  }
  if (isTable(value)) {
    const entries = Object.entries(value)
      .filter((entry): entry is [string, ConfigValue] => entry[1] !== undefined)
      .map(([key, item]) => `${tomlKey(key)} = ${tomlValue(item, `${path}.${key}`)}`);
    return `{${entries.join(", ")}}`;
  }
  throw new CodexHarnessError(
    "invalid_config",
    `Config value at ${path} must be a string, number, boolean, array or object, got ${value === null ? "null" : typeof value}.`,
  );
}

function isTable(value: unknown): value is ConfigObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
