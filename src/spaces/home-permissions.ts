// A target's permissions: its spaces' permissions.toml files merged at install into the codex
// home's `permissions.json`, and read back as the approvals policy of the turns run in it.
import path from "node:path";
import {
  mergePermissions,
  normalisePermissions,
  type PermissionSources,
  type PermissionsSpec,
  parsePermissions,
} from "../approvals/permissions-file.js";
import { fromPermissions } from "../approvals/policies.js";
import {
  normaliseRoutingRules,
  parseRoutingRules,
  type RoutingRule,
} from "../approvals/routing-rules.js";
import { nodeFs } from "../builtins.js";
import { CodexHarnessError } from "../errors.js";
import type { Approvals } from "../events/approval-types.js";
import { parseToml, readTextFile } from "../toml-file.js";
import type { Space } from "./space-manifest.js";

/** The file of a codex home holding its spaces' merged permissions. */
export const HOME_PERMISSIONS_FILE = "permissions.json";

/** What `permissions.json` holds: the merged rules and the files they came from. */
export interface HomePermissions {
  /** The spaces' `permissions.toml` files, in load order. */
  files: string[];
  /** Absent when the files hold only `[[routing]]` rules: then they allow and deny nothing. */
  permissions?: Omit<PermissionsSpec, "origin" | "baseDir" | "sources">;
  /**
   * The files' `[[routing]]` rules (who answers which requests), concatenated in load order:
   * the first that governs a request decides. Absent when there are none.
   */
  routing?: RoutingRule[];
  /**
   * The file(s) each entry came from, so a decision names the file of its rule (`denied by
   * [deny] exec "git push" in …/spaces/reviewer/permissions.toml`). Beside `permissions`, where
   * earlier versions reading the file do not look; a home installed before it existed names all
   * of `files` instead.
   */
  sources?: PermissionSources;
}

/**
 * Reads and validates the `permissions.toml` of each space (in load order) and merges them;
 * undefined when no space has one. A broken file throws `invalid_permissions` naming `file:line`.
 */
export function spacesPermissions(spaces: readonly Space[]): HomePermissions | undefined {
  const files = spaces.flatMap((space) => (space.permissionsFile ? [space.permissionsFile] : []));
  if (files.length === 0) return undefined;
  const read = files.map(readSpaceFile);
  const routing = read.flatMap((file) => file.routing);
  // A file of routing rules alone allows and denies nothing (it declines no file change).
  const parts = read.flatMap((file) => (file.permissions ? [file.permissions] : []));
  const merged = parts.length === 0 ? undefined : mergePermissions(parts);
  const { origin: _origin, sources, ...permissions } = merged ?? {};
  return {
    files,
    ...(merged === undefined ? {} : { permissions: permissions as HomePermissions["permissions"] }),
    ...(sources === undefined ? {} : { sources }),
    ...(routing.length === 0 ? {} : { routing }),
  };
}

/**
 * One space's `permissions.toml`: its permissions (undefined when it has no section but
 * `[[routing]]`) and its routing rules. Throws `invalid_permissions` naming `file:line`.
 */
function readSpaceFile(file: string): { permissions?: PermissionsSpec; routing: RoutingRule[] } {
  const text = readTextFile(
    file,
    "invalid_permissions",
    "the permissions file",
    "pass the path of an existing permissions.toml",
  );
  const permissions = parsePermissions(text, file, { baseDir: path.dirname(path.resolve(file)) });
  const routing = parseRoutingRules(text, file);
  const sections = Object.keys(parseToml(text, file, "invalid_permissions"));
  const onlyRouting = sections.length > 0 && sections.every((section) => section === "routing");
  return onlyRouting ? { routing } : { permissions, routing };
}

/**
 * The merged permissions installed in codex home `home`, or undefined when its spaces have none.
 * A damaged file throws `invalid_permissions` saying to reinstall.
 */
export async function readHomePermissions(home: string): Promise<PermissionsSpec | undefined> {
  const file = path.join(home, HOME_PERMISSIONS_FILE);
  let text: string;
  try {
    text = await nodeFs().promises.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw damaged(file, error);
  }
  try {
    const stored = JSON.parse(text) as Partial<HomePermissions>;
    const files = Array.isArray(stored.files) ? stored.files.join(" + ") : file;
    const { permissions, sources } = stored;
    // Files of routing rules alone: no permissions to enforce.
    if (permissions === undefined && Array.isArray(stored.routing)) return undefined;
    // Validated whole: sources only joins rules that are a table (no rules stays an error).
    const rules =
      sources !== undefined && typeof permissions === "object" && permissions !== null
        ? { ...permissions, sources }
        : permissions;
    return normalisePermissions(rules as PermissionsSpec, files);
  } catch (error) {
    throw damaged(file, error);
  }
}

/**
 * The `[[routing]]` rules of the spaces installed in codex home `home` (load order), or none. A
 * damaged file throws `invalid_permissions` saying to reinstall.
 */
export async function readHomeRouting(home: string): Promise<RoutingRule[]> {
  const file = path.join(home, HOME_PERMISSIONS_FILE);
  let text: string;
  try {
    text = await nodeFs().promises.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw damaged(file, error);
  }
  try {
    const { routing } = JSON.parse(text) as Partial<HomePermissions>;
    return routing === undefined ? [] : normaliseRoutingRules(routing, file, "invalid_permissions");
  } catch (error) {
    throw damaged(file, error);
  }
}

/**
 * The approvals policy of the spaces installed in `home` ({@link fromPermissions} of their merged
 * files, relative paths resolved against `cwd`, the folder the agent works in), or undefined when
 * they have no permissions. What the files do not decide is left to the next handler.
 */
export async function homePermissionsPolicy(
  home: string,
  cwd: string,
): Promise<Approvals | undefined> {
  const spec = await readHomePermissions(home);
  return spec === undefined ? undefined : fromPermissions(spec, { cwd });
}

function damaged(file: string, cause: unknown): CodexHarnessError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new CodexHarnessError(
    "invalid_permissions",
    `${file}: cannot read the installed permissions (${why}); run \`codex-harness install\` again`,
    { cause },
  );
}
