// agent-spaces `permissions.toml`: reading, validating and merging it (what its path and host
// entries match: permission-match.ts).
import path from "node:path";
import { CodexHarnessError } from "../errors.js";
import { parseToml, readTextFile } from "../toml-file.js";
import { parseHost } from "./permission-match.js";
import { parseRoutingRules } from "./routing-rules.js";
import { isTable, kindOf } from "./value-kinds.js";

/** The name of a permissions object given without one (in messages). */
export const UNNAMED_PERMISSIONS = "permissions object";

/** A list of a permissions file, as `section.key`. */
export type PermissionList =
  | "read.paths"
  | "write.paths"
  | "exec.commands"
  | "exec.patterns"
  | "network.hosts"
  | "deny.read"
  | "deny.write"
  | "deny.exec"
  | "deny.network";

/** Of a merged spec: the files each entry came from, by list then entry as written. */
export type PermissionSources = Partial<Record<PermissionList, Record<string, string[]>>>;

/** A validated permissions file: every list present (possibly empty), entries as written. */
export interface PermissionsSpec {
  /** Where it came from (the file path), for messages. */
  origin: string;
  /** The directory relative paths resolve against (the file's directory), if known. */
  baseDir?: string;
  /**
   * Of a merged spec ({@link mergePermissions}): the file(s) each entry came from. An entry not
   * listed came from `origin`.
   */
  sources?: PermissionSources;
  read: { paths: string[] };
  write: { paths: string[] };
  exec: { commands: string[]; patterns: string[] };
  network: { hosts: string[] };
  deny: { read: string[]; write: string[]; exec: string[]; network: string[] };
}

/** A permissions object as a person writes it: every section and list optional. */
export interface PermissionsInput {
  read?: { paths?: string[] };
  write?: { paths?: string[] };
  exec?: { commands?: string[]; patterns?: string[] };
  network?: { hosts?: string[] };
  deny?: { read?: string[]; write?: string[]; exec?: string[]; network?: string[] };
}

/** The codex-harness extension section of a permissions file: `[[routing]]` rules. */
const ROUTING_SECTION = "routing";

const SECTIONS: Record<string, readonly string[]> = {
  read: ["paths"],
  write: ["paths"],
  exec: ["commands", "patterns"],
  network: ["hosts"],
  deny: ["read", "write", "exec", "network"],
};
/** Every list of a permissions file. */
export const PERMISSION_LISTS = Object.entries(SECTIONS).flatMap(([section, keys]) =>
  keys.map((key) => `${section}.${key}` as PermissionList),
);

/** Reads and validates a `permissions.toml` (synchronously); relative paths use its directory. */
export function readPermissionsFile(file: string): PermissionsSpec {
  const text = readTextFile(
    file,
    "invalid_permissions",
    "the permissions file",
    "pass the path of an existing permissions.toml",
  );
  return parsePermissions(text, file, { baseDir: path.dirname(path.resolve(file)) });
}

/** Parses and validates permissions TOML; `origin` names it in messages (usually its path). */
export function parsePermissions(
  text: string,
  origin: string,
  options: { baseDir?: string } = {},
): PermissionsSpec {
  const value: unknown = parseToml(text, origin, "invalid_permissions");
  const spec = validate(value, origin, false, (where) => tomlLineOf(text, where));
  // Not permissions, but in the same file: a broken rule fails the read all the same.
  parseRoutingRules(text, origin);
  return options.baseDir === undefined ? spec : { ...spec, baseDir: options.baseDir };
}

/**
 * One permissions spec from several, as a target composes its spaces' files (in load order):
 * every allow and deny list is the union of the parts', so a deny in any part wins. `origin`
 * names the parts and `sources` the part(s) each entry came from; `baseDir` is left out
 * (relative entries resolve against the user's `cwd`).
 */
export function mergePermissions(parts: readonly PermissionsSpec[]): PermissionsSpec {
  const union = (pick: (spec: PermissionsSpec) => string[]): string[] => [
    ...new Set(parts.flatMap(pick)),
  ];
  const sources: PermissionSources = {};
  for (const list of PERMISSION_LISTS) {
    const files = new Map<string, string[]>();
    for (const part of parts) {
      for (const entry of listOf(part, list)) {
        const from = sourcesOf(part, list, entry);
        files.set(entry, [...new Set([...(files.get(entry) ?? []), ...from])]);
      }
    }
    if (files.size > 0) sources[list] = Object.fromEntries(files);
  }
  return {
    origin: parts.map((part) => part.origin).join(" + ") || "no permissions files",
    sources,
    read: { paths: union((p) => p.read.paths) },
    write: { paths: union((p) => p.write.paths) },
    exec: { commands: union((p) => p.exec.commands), patterns: union((p) => p.exec.patterns) },
    network: { hosts: union((p) => p.network.hosts) },
    deny: {
      read: union((p) => p.deny.read),
      write: union((p) => p.deny.write),
      exec: union((p) => p.deny.exec),
      network: union((p) => p.deny.network),
    },
  };
}

/** The entries of one list of a spec. */
export function listOf(spec: PermissionsSpec, list: PermissionList): string[] {
  const [section, key] = list.split(".") as [string, string];
  return (spec as unknown as Record<string, Record<string, string[]>>)[section]?.[key] ?? [];
}

/** The file(s) an entry of `spec` came from: its `sources` record, else its `origin`. */
export function sourcesOf(spec: PermissionsSpec, list: PermissionList, entry: string): string[] {
  const byEntry = spec.sources?.[list];
  const files = byEntry && Object.hasOwn(byEntry, entry) ? byEntry[entry] : undefined;
  return files && files.length > 0 ? files : [spec.origin];
}

/**
 * The 1-based line a validation message's `where` (`[section]` or `[section] key[index]`) points
 * at in TOML `text`: the key's line under its `[section]` header (or a dotted `section.key`),
 * else the header's; undefined when neither is written.
 */
function tomlLineOf(text: string, where: string): number | undefined {
  const match = /^\[([^\]]+)\](?: ([A-Za-z0-9_-]+))?/.exec(where);
  if (!match) return undefined;
  const [, section = "", key] = match;
  const quote = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const lines = text.split("\n");
  const find = (pattern: RegExp, from = 0) => {
    const index = lines.findIndex((line, k) => k >= from && pattern.test(line));
    return index === -1 ? undefined : index;
  };
  const header = find(new RegExp(`^\\s*\\[\\s*${quote(section)}\\s*\\]`));
  if (key !== undefined && header !== undefined) {
    const next = find(/^\s*\[/, header + 1) ?? lines.length;
    const keyLine = find(new RegExp(`^\\s*${quote(key)}\\s*=`), header + 1);
    if (keyLine !== undefined && keyLine < next) return keyLine + 1;
  }
  const dotted = find(
    new RegExp(
      `^\\s*${quote(section)}\\s*${key === undefined ? "[.=]" : `\\.\\s*${quote(key)}\\s*=`}`,
    ),
  );
  const line = dotted ?? header;
  return line === undefined ? undefined : line + 1;
}

/**
 * Validates a permissions object (written in code, or a {@link PermissionsSpec}) into a
 * {@link PermissionsSpec}. Throws `invalid_permissions` naming `origin`, the key and what is wrong.
 */
export function normalisePermissions(
  value: PermissionsInput | PermissionsSpec,
  origin?: string,
): PermissionsSpec {
  const meta = value as Partial<PermissionsSpec>;
  const name = origin ?? (typeof meta.origin === "string" ? meta.origin : UNNAMED_PERMISSIONS);
  return validate(value, name, true);
}

/**
 * `metadata`: accept the `origin` and `baseDir` strings and the `sources` of a
 * {@link PermissionsSpec}; `lineOf` finds the line a `where` is written on, for `origin:line` in
 * messages.
 */
function validate(
  value: unknown,
  origin: string,
  metadata: boolean,
  lineOf: (where: string) => number | undefined = () => undefined,
): PermissionsSpec {
  const fail = (where: string, what: string): never => {
    const line = lineOf(where);
    const at = line === undefined ? origin : `${origin}:${line}`;
    throw new CodexHarnessError("invalid_permissions", `${at}: ${where} ${what}`);
  };
  if (!isTable(value)) fail("the permissions", `must be a table/object, got ${kindOf(value)}`);
  const list = (section: string, key: string): string[] => {
    const table = (value as Record<string, unknown>)[section];
    if (table === undefined) return [];
    if (!isTable(table)) fail(`[${section}]`, `must be a table, got ${kindOf(table)}`);
    const items = (table as Record<string, unknown>)[key];
    const where = `[${section}] ${key}`;
    if (items === undefined) return [];
    if (!Array.isArray(items)) {
      fail(where, `must be an array of strings (${key} = ["…"]), got ${kindOf(items)}`);
    }
    return (items as unknown[]).map((item, index) => {
      if (typeof item !== "string") {
        fail(`${where}[${index}]`, `must be a string, got ${kindOf(item)}`);
      }
      const entry = (item as string).trim();
      if (entry === "") fail(`${where}[${index}]`, "is empty; remove it or write a value");
      return entry;
    });
  };
  for (const [section, table] of Object.entries(value as object)) {
    if (table === undefined) continue;
    if (metadata && (section === "origin" || section === "baseDir") && typeof table === "string") {
      continue;
    }
    if (metadata && section === "sources") {
      checkSources(table, fail);
      continue;
    }
    if (section === ROUTING_SECTION) {
      // `[[routing]]` (routing-rules.ts): who answers, read beside the permissions from a file.
      if (!metadata) continue;
      fail(
        ROUTING_SECTION,
        "holds routing rules, which are not permissions: give them to channelsApprovals({ rules }) or write them in a permissions.toml",
      );
    }
    const keys = SECTIONS[section];
    if (keys === undefined) {
      const known = Object.keys(SECTIONS).map((name) => `[${name}]`);
      fail(
        `[${section}]`,
        `is not a permissions section; use ${known.join(", ")} (and [[routing]] for who answers)`,
      );
    }
    if (!isTable(table)) fail(`[${section}]`, `must be a table, got ${kindOf(table)}`);
    for (const key of Object.keys(table as object)) {
      if (!keys?.includes(key)) {
        fail(`[${section}] ${key}`, `is not a known key; use ${keys?.join(", ")}`);
      }
    }
  }
  const spec: PermissionsSpec = {
    origin,
    read: { paths: list("read", "paths") },
    write: { paths: list("write", "paths") },
    exec: { commands: list("exec", "commands"), patterns: list("exec", "patterns") },
    network: { hosts: list("network", "hosts") },
    deny: {
      read: list("deny", "read"),
      write: list("deny", "write"),
      exec: list("deny", "exec"),
      network: list("deny", "network"),
    },
  };
  spec.exec.commands.forEach((command, index) => {
    if (/\s/.test(command)) {
      fail(
        `[exec] commands[${index}]`,
        `is "${command}"; list program names there and put whole commands in [exec] patterns`,
      );
    }
  });
  for (const [where, hosts] of [
    ["[network] hosts", spec.network.hosts],
    ["[deny] network", spec.deny.network],
  ] as const) {
    hosts.forEach((host, index) => {
      if (parseHost(host) === null) {
        fail(`${where}[${index}]`, `is "${host}"; write a host, host:port, or *.domain[:port]`);
      }
    });
  }
  const { baseDir, sources } = value as { baseDir?: unknown; sources?: PermissionSources };
  if (metadata && typeof baseDir === "string") spec.baseDir = baseDir;
  if (metadata && sources !== undefined) spec.sources = copySources(sources);
  return spec;
}

function copySources(sources: PermissionSources): PermissionSources {
  const copy = (files: Record<string, string[]>) =>
    Object.fromEntries(Object.entries(files).map(([entry, from]) => [entry, [...from]]));
  return Object.fromEntries(
    Object.entries(sources).map(([list, files]) => [list, copy(files)]),
  ) as PermissionSources;
}

/** Checks a spec's `sources`: lists of entries, each naming the files it came from. */
function checkSources(value: unknown, fail: (where: string, what: string) => never): void {
  if (!isTable(value)) fail("sources", `must be a table, got ${kindOf(value)}`);
  for (const [list, entries] of Object.entries(value as object)) {
    if (!PERMISSION_LISTS.includes(list as PermissionList)) {
      fail(`sources.${list}`, `is not a permissions list; use ${PERMISSION_LISTS.join(", ")}`);
    }
    if (!isTable(entries)) fail(`sources.${list}`, `must be a table, got ${kindOf(entries)}`);
    for (const [entry, files] of Object.entries(entries as object)) {
      if (!Array.isArray(files) || !files.every((file) => typeof file === "string")) {
        fail(`sources.${list} "${entry}"`, `must be an array of file names, got ${kindOf(files)}`);
      }
    }
  }
}
