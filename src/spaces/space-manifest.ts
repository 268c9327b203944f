// Reading an agent-spaces space folder (space.toml and its content) into a validated `Space`.
import { existsSync } from "node:fs";
import path from "node:path";
import type { ConfigObject, ConfigValue } from "../app-server/codex-config.js";
import { parseSpaceRef } from "./refs.js";
import { lineInFile, wordLine } from "./source-line.js";
import {
  checkSymlinks,
  readCommands,
  readMcpServers,
  readSkills,
  type SpaceCommand,
  type SpaceMcpServer,
  type SpaceSkill,
} from "./space-content.js";
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
  PROTO_KEY,
  readTomlFile,
  SLUG,
  type Table,
  VERSION,
} from "./toml-read.js";

export type { SpaceCommand, SpaceMcpServer, SpaceSkill } from "./space-content.js";

/** The codex settings of a space (`[codex]` in space.toml). */
export interface SpaceCodex {
  model?: string;
  /** `[codex.config]` with dotted keypaths turned into nested tables. */
  config: ConfigObject;
  promptsEnabled: boolean;
  skillsEnabled: boolean;
}

/** A validated, normalised space folder. */
export interface Space {
  /** Absolute path of the space folder. */
  dir: string;
  id: string;
  version: string;
  description: string;
  codex: SpaceCodex;
  /** `[deps] spaces`, as written (refs relative to the space folder). */
  deps: string[];
  skills: SpaceSkill[];
  commands: SpaceCommand[];
  mcpServers: SpaceMcpServer[];
  /** `AGENTS.md`, else `AGENT.md`, else undefined (absolute path). */
  instructionsFile?: string;
  /** `permissions.toml` if the space has one (absolute path). */
  permissionsFile?: string;
}

const CODE = "invalid_space";

/**
 * Reads and validates the space in `dir`: `space.toml` (strictly), skills, commands, MCP
 * servers, instructions and permissions. Throws `invalid_space` naming the file and key, or
 * `unsupported_space_ref` for a registry ref in `[deps] spaces`.
 */
export function readSpace(dir: string): Space {
  const spaceDir = path.resolve(dir);
  const file = path.join(spaceDir, "space.toml");
  const data = readTomlFile(file, CODE, "the space manifest");
  const fail = failer(CODE, file);
  checkKeys(data, ["schema", "id", "version", "description", "codex", "deps"], "", fail);
  checkSchema(data.schema, fail);
  if (typeof data.id !== "string" || !SLUG.test(data.id)) {
    fail(
      "id",
      `must be a slug (lower-case letters, digits, ".", "_", "-"), got ${JSON.stringify(data.id ?? null)}`,
    );
  }
  const keyLine = (key: string): number | undefined =>
    lineInFile(file, (text) => wordLine(text, key));
  if (typeof data.version !== "string" || data.version.trim() === "") {
    fail("version", `must be a non-empty string (version = "1.0.0"), got ${kindOf(data.version)}`);
  }
  if (!VERSION.test(data.version as string)) {
    fail(
      "version",
      `is ${JSON.stringify(data.version)}; use letters, digits, ".", "_", "+" and "-" ` +
        '(version = "1.0.0"): it is written into the AGENTS.md markers',
      keyLine("version"),
    );
  }
  const deps = readDeps(data.deps, file, fail);
  checkSymlinks(spaceDir);
  const instructions = ["AGENTS.md", "AGENT.md"]
    .map((name) => path.join(spaceDir, name))
    .find((candidate) => existsSync(candidate));
  const permissions = path.join(spaceDir, "permissions.toml");
  return {
    dir: spaceDir,
    id: data.id as string,
    version: data.version as string,
    description: optString(data.description, "description", fail) ?? "",
    codex: readCodex(data.codex, fail, keyLine),
    deps,
    skills: readSkills(spaceDir),
    commands: readCommands(spaceDir),
    mcpServers: readMcpServers(spaceDir),
    ...(instructions === undefined ? {} : { instructionsFile: instructions }),
    ...(existsSync(permissions) ? { permissionsFile: permissions } : {}),
  };
}

function readDeps(value: unknown, file: string, fail: Fail): string[] {
  const deps = optTable(value, "[deps]", fail);
  if (deps === undefined) return [];
  checkKeys(deps, ["spaces"], "[deps] ", fail);
  const spaces = optStrings(deps.spaces, "[deps] spaces", fail) ?? [];
  spaces.forEach((ref, index) => {
    parseSpaceRef(ref, file, `[deps] spaces[${index}]`, fail);
  });
  return spaces;
}

function readCodex(
  value: unknown,
  fail: Fail,
  keyLine: (key: string) => number | undefined,
): SpaceCodex {
  const codex = optTable(value, "[codex]", fail) ?? {};
  checkKeys(codex, ["model", "config", "prompts", "skills"], "[codex] ", fail);
  const enabled = (section: "prompts" | "skills"): boolean => {
    const table = optTable(codex[section], `[codex.${section}]`, fail) ?? {};
    checkKeys(table, ["enabled"], `[codex.${section}] `, fail);
    if (table.enabled === undefined) return true;
    if (typeof table.enabled !== "boolean") {
      fail(`[codex.${section}] enabled`, `must be true or false, got ${kindOf(table.enabled)}`);
    }
    return table.enabled as boolean;
  };
  const model = optString(codex.model, "[codex] model", fail);
  const config = optTable(codex.config, "[codex.config]", fail) ?? {};
  return {
    ...(model === undefined ? {} : { model }),
    config: expandKeypaths(config, [], fail, keyLine),
    promptsEnabled: enabled("prompts"),
    skillsEnabled: enabled("skills"),
  };
}

/**
 * Turns dotted keypaths (`"features.web_search_request" = false`) into nested tables, merging
 * them with tables written out; the same leaf written twice fails naming the keypath, and a
 * `__proto__` key (which JavaScript objects cannot hold as data) fails naming it, at the line
 * `keyLine` finds for it when given.
 */
export function expandKeypaths(
  table: Table,
  prefix: string[],
  fail: Fail,
  keyLine?: (key: string) => number | undefined,
): ConfigObject {
  const result: ConfigObject = {};
  for (const [key, value] of Object.entries(table)) {
    const parts = key.split(".");
    if (parts.some((part) => part === "")) {
      fail(
        `[codex.config] ${JSON.stringify([...prefix, key].join("."))}`,
        'has an empty keypath segment; remove the extra "."',
      );
    }
    if (parts.includes(PROTO_KEY)) {
      fail(
        `[codex.config] ${JSON.stringify([...prefix, key].join("."))}`,
        `uses the reserved key "${PROTO_KEY}", which cannot be written safely; rename or remove it`,
        keyLine?.(PROTO_KEY),
      );
    }
    const keyPath = [...prefix, ...parts];
    const leaf = isTable(value)
      ? expandKeypaths(value, keyPath, fail, keyLine)
      : toConfigValue(value, keyPath, fail, keyLine);
    let target = result;
    parts.slice(0, -1).forEach((part, index) => {
      const existing = own(target, part);
      if (existing === undefined) target[part] = {};
      else if (!isTable(existing)) conflict([...prefix, ...parts.slice(0, index + 1)], fail);
      target = target[part] as ConfigObject;
    });
    const last = parts[parts.length - 1] as string;
    const existing = own(target, last);
    if (existing === undefined) target[last] = leaf;
    else if (isTable(existing) && isTable(leaf))
      target[last] = mergeStrict(existing, leaf, keyPath, fail);
    else conflict(keyPath, fail);
  }
  return result;
}

function mergeStrict(a: ConfigObject, b: ConfigObject, at: string[], fail: Fail): ConfigObject {
  const result: ConfigObject = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const existing = own(result, key);
    if (existing === undefined) result[key] = value;
    else if (isTable(existing) && isTable(value)) {
      result[key] = mergeStrict(existing, value, [...at, key], fail);
    } else conflict([...at, key], fail);
  }
  return result;
}

function conflict(keyPath: string[], fail: Fail): never {
  return fail(
    `[codex.config] ${JSON.stringify(keyPath.join("."))}`,
    "is set more than once (as a dotted keypath and as a table); keep one of them",
  );
}

/** `table[key]` when `table` has it as its own key (never an inherited `constructor` etc.). */
function own(table: ConfigObject, key: string): ConfigObject[string] {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

function toConfigValue(
  value: unknown,
  keyPath: string[],
  fail: Fail,
  keyLine?: (key: string) => number | undefined,
): ConfigValue {
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) {
    return value.map((item, index) =>
      isTable(item)
        ? expandKeypaths(item, [...keyPath, String(index)], fail, keyLine)
        : toConfigValue(item, [...keyPath, String(index)], fail, keyLine),
    );
  }
  return fail(
    `[codex.config] ${JSON.stringify(keyPath.join("."))}`,
    `is ${kindOf(value)}, which codex config cannot hold; write a string instead`,
  );
}
