// A target's permissions: its spaces' permissions.toml files merged at install into the codex
// home's `permissions.json`, and read back as the approvals policy of the turns run in it.
import path from "node:path";
import {
  mergePermissions,
  normalisePermissions,
  type PermissionSources,
  type PermissionsSpec,
  readPermissionsFile,
} from "../approvals/permissions-file.js";
import { fromPermissions } from "../approvals/policies.js";
import { nodeFs } from "../builtins.js";
import { CodexHarnessError } from "../errors.js";
import type { Approvals } from "../events/approval-types.js";
import type { Space } from "./space-manifest.js";

/** The file of a codex home holding its spaces' merged permissions. */
export const HOME_PERMISSIONS_FILE = "permissions.json";

/** What `permissions.json` holds: the merged rules and the files they came from. */
export interface HomePermissions {
  /** The spaces' `permissions.toml` files, in load order. */
  files: string[];
  permissions: Omit<PermissionsSpec, "origin" | "baseDir" | "sources">;
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
  const merged = mergePermissions(files.map(readPermissionsFile));
  const { origin: _origin, sources, ...permissions } = merged;
  return { files, permissions, ...(sources === undefined ? {} : { sources }) };
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
