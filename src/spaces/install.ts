// `install`: materializing a target's spaces as a codex home (AGENTS.md, config.toml, skills, prompts).
import { createHash, randomBytes } from "node:crypto";
import { chmod, cp, mkdir, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { renderConfigToml } from "../app-server/codex-config.js";
import { CodexHarnessError } from "../errors.js";
import { writeAgentsMd } from "./agents-md.js";
import { buildConfig, MCP_STARTUP_TIMEOUT_MS, mcpJson } from "./home-config.js";
import { HOME_PERMISSIONS_FILE, spacesPermissions } from "./home-permissions.js";
import { PRIVATE_DIR, writePrivate } from "./private-files.js";
import { type ResolvedTarget, resolveSpaceRefs, resolveTarget } from "./resolve.js";
import { sameTree } from "./same-tree.js";
import type { Space } from "./space-manifest.js";
import { readTargets } from "./targets.js";

/** Options of {@link installTarget}. */
export interface InstallOptions {
  /** Called with each collision warning (a name defined by two spaces). */
  onWarning?: (message: string) => void;
}

/** What {@link installTarget} wrote. */
export interface InstallResult {
  target: string;
  /** Absolute path of `asp_modules/<target>/codex/codex.home`. */
  homeDir: string;
  spaces: { id: string; version: string }[];
  /** Sorted names of the installed skills, prompt files and MCP servers. */
  skills: string[];
  prompts: string[];
  mcpServers: string[];
  /** The spaces' `permissions.toml` files (load order), merged into the home's approvals policy. */
  permissionsFiles: string[];
  /** The collision warnings, also passed to `onWarning`. */
  warnings: string[];
  /**
   * Whether this install changed the home: false when the home already there was the same
   * (installs are deterministic), so reinstalling an unchanged target costs no swap.
   */
  changed: boolean;
}

export { buildConfig, MCP_STARTUP_TIMEOUT_MS };

const CODE = "install_failed";

/** The codex home folder of `targetName` under `projectDir`. */
export function codexHomeDir(projectDir: string, targetName: string): string {
  return path.join(path.resolve(projectDir), "asp_modules", targetName, "codex", "codex.home");
}

/**
 * Installs `targetName` of `<projectDir>/asp-targets.toml` into
 * `asp_modules/<target>/codex/codex.home/`. The home is built in a temp sibling and renamed
 * into place, so a failed install leaves the previous home (or none). Output is deterministic.
 * The home folder is created 0700 and its config.toml and mcp.json 0600 (they may hold MCP env
 * secrets); a home already there with other modes is replaced.
 */
export async function installTarget(
  projectDir: string,
  targetName: string,
  options: InstallOptions = {},
): Promise<InstallResult> {
  const resolved = resolveTarget(projectDir, targetName);
  return installResolved(resolved, codexHomeDir(resolved.projectDir, targetName), options);
}

/**
 * Installs a list of space refs (relative to `projectDir`) as an unnamed target
 * `spaces-<hash of the refs>` under `<installRoot>/asp_modules/` — for callers that name spaces
 * rather than a target of `asp-targets.toml`.
 */
export async function installSpaces(
  refs: readonly string[],
  options: InstallOptions & { projectDir: string; installRoot: string },
): Promise<InstallResult> {
  const name = spacesTargetName(refs);
  const resolved = resolveSpaceRefs(options.projectDir, refs, name);
  return installResolved(resolved, codexHomeDir(options.installRoot, name), options);
}

/** The target name {@link installSpaces} gives a list of refs. */
export function spacesTargetName(refs: readonly string[]): string {
  return `spaces-${createHash("sha256").update(JSON.stringify(refs)).digest("hex").slice(0, 12)}`;
}

async function installResolved(
  resolved: ResolvedTarget,
  homeDir: string,
  options: InstallOptions,
): Promise<InstallResult> {
  const targetName = resolved.target.name;
  const warnings: string[] = [];
  const warn = (message: string): void => {
    warnings.push(message);
    options.onWarning?.(message);
  };
  const { spaces } = resolved;
  const skills = pickLast(
    spaces.filter((space) => space.codex.skillsEnabled),
    (space) => space.skills,
    "skill",
    warn,
  );
  const prompts = pickLast(
    spaces.filter((space) => space.codex.promptsEnabled),
    (space) => space.commands,
    "prompt",
    warn,
  );
  const servers = pickLast(spaces, (space) => space.mcpServers, "MCP server", warn);
  // A broken permissions.toml fails the install (file:line), before anything is written.
  const permissions = spacesPermissions(spaces);

  const parent = path.dirname(homeDir);
  await mkdir(parent, { recursive: true });
  const suffix = randomBytes(6).toString("hex");
  const work = path.join(parent, `.codex.home.tmp-${suffix}`);
  const old = path.join(parent, `.codex.home.old-${suffix}`);
  try {
    await mkdir(work, { mode: PRIVATE_DIR });
    await chmod(work, PRIVATE_DIR);
    const out = (...parts: string[]): string => inside(work, path.join(work, ...parts));
    const instructions = await writeAgentsMd(out("AGENTS.md"), targetName, spaces);
    const serverTable = Object.fromEntries(
      [...servers].map(([name, { item }]) => [name, item] as const),
    );
    await writePrivate(
      out("config.toml"),
      renderConfigToml(buildConfig(resolved.target.codex, spaces, serverTable)),
    );
    await writePrivate(out("mcp.json"), json({ mcpServers: mcpJson(serverTable) }));
    await mkdir(out("skills"));
    for (const [name, { item }] of skills) await linkOrCopy(item.dir, out("skills", name));
    await mkdir(out("prompts"));
    for (const [name, { item }] of prompts) await linkOrCopy(item.file, out("prompts", name));
    if (permissions) await writeFile(out(HOME_PERMISSIONS_FILE), json(permissions));
    const result: InstallResult = {
      target: targetName,
      homeDir,
      spaces: spaces.map((space) => ({ id: space.id, version: space.version })),
      skills: [...skills.keys()],
      prompts: [...prompts.keys()],
      mcpServers: [...servers.keys()],
      permissionsFiles: permissions?.files ?? [],
      warnings,
      changed: true,
    };
    await writeFile(
      out("manifest.json"),
      json({
        target: targetName,
        spaces: result.spaces,
        instructions,
        skills: result.skills,
        prompts: result.prompts,
        mcpServers: result.mcpServers,
        permissions: result.permissionsFiles,
      }),
    );
    result.changed = await swapInto(work, homeDir, old);
    return result;
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    if (error instanceof CodexHarnessError) throw error;
    throw new CodexHarnessError(
      CODE,
      `could not install target "${targetName}" into ${homeDir}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * Installs each of `targetNames` (default: every target of `asp-targets.toml`, in file order),
 * one after another, stopping at the first failure.
 */
export async function installTargets(
  projectDir: string,
  targetNames?: string[],
  options: InstallOptions = {},
): Promise<InstallResult[]> {
  const names = targetNames ?? Object.keys(readTargets(projectDir).targets);
  const results: InstallResult[] = [];
  for (const name of names) results.push(await installTarget(projectDir, name, options));
  return results;
}

/**
 * Moves the finished `work` folder to `homeDir`. Where there was no home it simply lands; where
 * the same home is already there (installs are deterministic, e.g. a concurrent install of the
 * same target won) ours is dropped and the home is never missing for a moment; only a changed
 * home replaces the old one, and on failure the old one is put back. Resolves whether the home
 * changed.
 */
async function swapInto(work: string, homeDir: string, old: string): Promise<boolean> {
  try {
    await rename(work, homeDir);
    return true;
  } catch (error) {
    const code = errnoOf(error);
    if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
  }
  if (await sameTree(work, homeDir)) {
    await rm(work, { recursive: true, force: true });
    return false;
  }
  let movedOld = false;
  try {
    try {
      await rename(homeDir, old);
      movedOld = true;
    } catch (error) {
      if (errnoOf(error) !== "ENOENT") throw error;
    }
    try {
      await rename(work, homeDir);
    } catch (error) {
      const code = errnoOf(error);
      if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
      // Another install put its home in place meanwhile: it is as new as ours.
      await rm(work, { recursive: true, force: true });
    }
  } catch (error) {
    if (movedOld && !(await exists(homeDir))) {
      await rename(old, homeDir).catch(() => undefined);
    }
    throw error;
  } finally {
    if (movedOld) await rm(old, { recursive: true, force: true });
  }
  return true;
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/** Each item name mapped to its last defining space, sorted by name; warns on every collision. */
function pickLast<T extends { name: string }>(
  spaces: Space[],
  items: (space: Space) => T[],
  what: string,
  warn: (message: string) => void,
): Map<string, { space: Space; item: T }> {
  const byName = new Map<string, { space: Space; item: T }>();
  for (const space of spaces) {
    for (const item of items(space)) {
      const earlier = byName.get(item.name);
      if (earlier !== undefined) {
        warn(
          `${what} "${item.name}" is defined by space ${label(earlier.space)} and space ` +
            `${label(space)}; using the one from ${label(space)} (the last space wins)`,
        );
      }
      byName.set(item.name, { space, item });
    }
  }
  return new Map([...byName].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Symlinks `dest` to `source`; copies it (dereferencing links) where symlinks fail. */
async function linkOrCopy(source: string, dest: string): Promise<void> {
  const isDir = (await stat(source)).isDirectory();
  try {
    await symlink(source, dest, isDir ? "dir" : "file");
  } catch {
    await cp(source, dest, { recursive: true, dereference: true });
  }
}

/** `file`, after checking that it stays inside `root`. */
function inside(root: string, file: string): string {
  const rel = path.relative(root, file);
  if (rel === "" || rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
    throw new CodexHarnessError(
      CODE,
      `refusing to write ${file}: it is outside the codex home ${root}; rename the item`,
    );
  }
  return file;
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

function label(space: Space): string {
  return `${space.id}@${space.version}`;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
