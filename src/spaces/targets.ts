// Reading an agent-spaces project's `asp-targets.toml`: targets, their compose refs and codex settings.
import path from "node:path";
import { parseSpaceRef, type SpaceRef } from "./refs.js";
import {
  checkKeys,
  checkSchema,
  type Fail,
  failer,
  isTable,
  kindOf,
  optString,
  optStrings,
  optTable,
  readTomlFile,
} from "./toml-read.js";

/** Codex settings from `[codex]` / `[targets.<name>.codex]`. */
export interface CodexTargetSettings {
  model?: string;
  approval_policy?: "untrusted" | "on-failure" | "on-request" | "never";
  sandbox_mode?: "read-only" | "workspace-write" | "danger-full-access";
  profile?: string;
}

/** One validated target. */
export interface TargetDefinition {
  name: string;
  description?: string;
  /** The compose refs, in order. */
  compose: SpaceRef[];
  /** Top-level `[codex]` with this target's `[targets.<name>.codex]` over it. */
  codex: CodexTargetSettings;
}

/** A validated `asp-targets.toml`. */
export interface TargetsFile {
  /** Absolute path of the file. */
  file: string;
  /** Absolute path of the project folder. */
  projectDir: string;
  /** The top-level `[codex]` settings. */
  codex: CodexTargetSettings;
  /** Targets by name, in file order. */
  targets: Record<string, TargetDefinition>;
}

const CODE = "invalid_targets";
const APPROVAL = ["untrusted", "on-failure", "on-request", "never"] as const;
const SANDBOX = ["read-only", "workspace-write", "danger-full-access"] as const;
const TARGET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Reads and validates `<projectDir>/asp-targets.toml`. Throws `invalid_targets` naming the file
 * and key, or `unsupported_space_ref` for a registry ref. `[claude]` tables are accepted and
 * ignored, so agent-spaces projects read unchanged.
 */
export function readTargets(projectDir: string): TargetsFile {
  const dir = path.resolve(projectDir);
  const file = path.join(dir, "asp-targets.toml");
  const data = readTomlFile(file, CODE, "the targets file");
  const fail = failer(CODE, file);
  checkKeys(data, ["schema", "codex", "claude", "targets"], "", fail);
  checkSchema(data.schema, fail);
  optTable(data.claude, "[claude]", fail);
  const base = readCodexSettings(data.codex, "[codex]", fail);
  const tables = optTable(data.targets, "[targets]", fail) ?? {};
  const targets: Record<string, TargetDefinition> = {};
  for (const [name, value] of Object.entries(tables)) {
    const where = `[targets.${name}]`;
    if (!TARGET_NAME.test(name)) {
      fail(where, 'has an unsafe name; use letters, digits, ".", "_" and "-"');
    }
    if (!isTable(value)) fail(where, `must be a table, got ${kindOf(value)}`);
    const table = value as Record<string, unknown>;
    checkKeys(table, ["description", "compose", "codex", "claude"], `${where} `, fail);
    optTable(table.claude, `[targets.${name}.claude]`, fail);
    const description = optString(table.description, `${where} description`, fail);
    const compose = optStrings(table.compose, `${where} compose`, fail);
    if (compose === undefined || compose.length === 0) {
      fail(
        `${where} compose`,
        'is missing or empty; list the spaces (compose = ["space:project:<id>"])',
      );
    }
    const own = readCodexSettings(table.codex, `[targets.${name}.codex]`, fail);
    targets[name] = {
      name,
      ...(description === undefined ? {} : { description }),
      compose: (compose as string[]).map((ref, index) =>
        parseSpaceRef(ref, file, `${where} compose[${index}]`, fail),
      ),
      codex: mergeCodexSettings(base, own),
    };
  }
  return { file, projectDir: dir, codex: base, targets };
}

/** `over`'s settings winning over `base`'s, key by key. */
export function mergeCodexSettings(
  base: CodexTargetSettings,
  over: CodexTargetSettings,
): CodexTargetSettings {
  const result: CodexTargetSettings = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value !== undefined) (result as Record<string, unknown>)[key] = value;
  }
  return result;
}

function readCodexSettings(value: unknown, where: string, fail: Fail): CodexTargetSettings {
  const table = optTable(value, where, fail);
  if (table === undefined) return {};
  checkKeys(table, ["model", "approval_policy", "sandbox_mode", "profile"], `${where} `, fail);
  const pick = <T extends string>(key: string, allowed?: readonly T[]): T | undefined => {
    const item = optString(table[key], `${where} ${key}`, fail);
    if (item !== undefined && allowed !== undefined && !allowed.includes(item as T)) {
      fail(
        `${where} ${key}`,
        `is "${item}"; use one of ${allowed.map((a) => `"${a}"`).join(", ")}`,
      );
    }
    return item as T | undefined;
  };
  const settings: CodexTargetSettings = {};
  const model = pick("model");
  const approval = pick("approval_policy", APPROVAL);
  const sandbox = pick("sandbox_mode", SANDBOX);
  const profile = pick("profile");
  if (model !== undefined) settings.model = model;
  if (approval !== undefined) settings.approval_policy = approval;
  if (sandbox !== undefined) settings.sandbox_mode = sandbox;
  if (profile !== undefined) settings.profile = profile;
  return settings;
}
