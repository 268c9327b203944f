// A space's files besides space.toml: skills (SKILL.md front matter), commands, MCP servers, links.
import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
} from "node:fs";
import path from "node:path";
import { CodexHarnessError } from "../errors.js";
import { jsonKeyLine } from "./source-line.js";
import {
  ENV_NAME,
  fileLine,
  isTable,
  kindOf,
  plainNameReason,
  unsafeNameReason,
} from "./toml-read.js";

/** A skill folder of a space (`skills/<name>/SKILL.md`). */
export interface SpaceSkill {
  /** The folder name, used as the output folder name. */
  name: string;
  /** Absolute path of the skill folder. */
  dir: string;
  /** `description` from the SKILL.md front matter ("" when absent). */
  description: string;
}

/** A command file of a space (`commands/<name>`), which becomes a codex prompt. */
export interface SpaceCommand {
  /** The file name, e.g. `review.md`. */
  name: string;
  /** Absolute path of the file. */
  file: string;
}

/** A stdio MCP server from `mcp/mcp.json`. */
export interface SpaceMcpServer {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

const CODE = "invalid_space";

function fail(origin: string, where: string, what: string): never {
  throw new CodexHarnessError(CODE, `${origin}: ${where} ${what}`);
}

/**
 * Parses the `---` front matter at the top of a Markdown file into `key: value` pairs
 * (surrounding quotes removed). Returns `{}` when the text has no front matter.
 */
export function parseFrontMatter(text: string): Record<string, string> {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---") return {};
  const result: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    if (line.trim() === "---") return result;
    const match = /^([A-Za-z0-9_-]+)\s*:\s*(.*)$/.exec(line);
    if (!match) continue;
    const [, key = "", raw = ""] = match;
    let value = raw.trim();
    if (value.length >= 2 && /^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    result[key] = value;
  }
  return {};
}

/** The skills under `<spaceDir>/skills`, sorted by name; each folder must hold SKILL.md. */
export function readSkills(spaceDir: string): SpaceSkill[] {
  const root = path.join(spaceDir, "skills");
  if (!existsSync(root)) return [];
  return sortedEntries(root)
    .filter((name) => isDirectory(path.join(root, name)))
    .map((name) => {
      const dir = path.join(root, name);
      const file = path.join(dir, "SKILL.md");
      checkName(name, dir, "skill folder name");
      if (!existsSync(file)) {
        fail(dir, "is a skill folder without SKILL.md;", "add SKILL.md there or remove the folder");
      }
      const front = parseFrontMatter(readFileSync(file, "utf8"));
      return { name, dir, description: front.description ?? "" };
    });
}

/** The top-level `*.md` files of `<spaceDir>/commands`, sorted by name. */
export function readCommands(spaceDir: string): SpaceCommand[] {
  const root = path.join(spaceDir, "commands");
  if (!existsSync(root)) return [];
  return sortedEntries(root)
    .filter((name) => name.endsWith(".md") && !isDirectory(path.join(root, name)))
    .map((name) => {
      checkName(name, path.join(root, name), "command file name");
      return { name, file: path.join(root, name) };
    });
}

/**
 * The stdio MCP servers of `<spaceDir>/mcp/mcp.json`, sorted by name. Server names and env
 * variable names become config.toml and mcp.json keys, so a name that is not plain (see
 * {@link plainNameReason}) fails naming `mcp.json:<line>`.
 */
export function readMcpServers(spaceDir: string): SpaceMcpServer[] {
  const file = path.join(spaceDir, "mcp", "mcp.json");
  if (!existsSync(file)) return [];
  let data: unknown;
  let text = "";
  try {
    text = readFileSync(file, "utf8");
    data = JSON.parse(text);
  } catch (error) {
    throw new CodexHarnessError(
      CODE,
      `${file}: not valid JSON (${(error as Error).message}); fix the syntax there`,
      { cause: error },
    );
  }
  const servers = isTable(data) ? data.mcpServers : undefined;
  if (!isTable(servers)) {
    fail(
      file,
      "mcpServers",
      `must be an object of servers ({"mcpServers": {"<name>": {…}}}), got ${kindOf(servers)}`,
    );
  }
  return Object.keys(servers as object)
    .sort()
    .map((name) => {
      const where = `mcpServers.${JSON.stringify(name)}`;
      const reason = plainNameReason(name);
      if (reason !== null) {
        fail(
          fileLine(file, jsonKeyLine(text, name, 2)),
          where,
          `is not a safe server name: ${reason}; rename it to a plain name`,
        );
      }
      const server = (servers as Record<string, unknown>)[name];
      if (!isTable(server)) fail(file, where, `must be an object, got ${kindOf(server)}`);
      const { type = "stdio", command, args = [], env = {} } = server as Record<string, unknown>;
      if (type !== "stdio") {
        fail(
          file,
          `${where}.type`,
          `is ${JSON.stringify(type)}; only "stdio" servers are supported, so use a stdio server or remove it`,
        );
      }
      if (typeof command !== "string" || command.trim() === "") {
        fail(file, `${where}.command`, "is missing or empty; set the program to start");
      }
      if (!Array.isArray(args) || args.some((arg) => typeof arg !== "string")) {
        fail(file, `${where}.args`, "must be an array of strings");
      }
      if (!isTable(env) || Object.values(env).some((value) => typeof value !== "string")) {
        fail(file, `${where}.env`, "must be an object of string values");
      }
      for (const variable of Object.keys(env as object)) {
        const envReason = plainNameReason(
          variable,
          ENV_NAME,
          'letters, digits and "_", not starting with a digit',
        );
        if (envReason !== null) {
          fail(
            fileLine(file, jsonKeyLine(text, variable, 4)),
            `${where}.env`,
            `has an unsafe variable name: ${envReason}; rename it`,
          );
        }
      }
      return {
        name,
        command: command as string,
        args: args as string[],
        env: env as Record<string, string>,
      };
    });
}

/**
 * Fails when a symlink anywhere under `spaceDir` points outside it (or nowhere), naming the link.
 */
export function checkSymlinks(spaceDir: string): void {
  const root = realpathSync(spaceDir);
  const walk = (dir: string): void => {
    for (const name of sortedEntries(dir)) {
      const entry = path.join(dir, name);
      const stat = lstatSync(entry);
      if (stat.isSymbolicLink()) {
        const target = path.resolve(path.dirname(entry), readlinkSync(entry));
        let real: string;
        try {
          real = realpathSync(entry);
        } catch {
          fail(entry, "is a symlink to", `${target}, which does not exist; fix or remove the link`);
        }
        if (!isInside(real, root)) {
          fail(
            entry,
            "is a symlink to",
            `${real}, outside the space ${root}; copy the file into the space instead`,
          );
        }
      } else if (stat.isDirectory()) {
        walk(entry);
      }
    }
  };
  walk(root);
}

function checkName(name: string, where: string, what: string): void {
  const reason = unsafeNameReason(name);
  if (reason !== null) fail(where, `has an unsafe ${what}:`, `${reason}; rename it`);
}

function sortedEntries(dir: string): string[] {
  return readdirSync(dir).sort();
}

function isDirectory(entry: string): boolean {
  try {
    return (
      lstatSync(entry).isDirectory() || (lstatSync(entry).isSymbolicLink() && realIsDir(entry))
    );
  } catch {
    return false;
  }
}

function realIsDir(entry: string): boolean {
  try {
    return lstatSync(realpathSync(entry)).isDirectory();
  } catch {
    return false;
  }
}

function isInside(target: string, root: string): boolean {
  const rel = path.relative(root, target);
  return rel === "" || (!rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel));
}
