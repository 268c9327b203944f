// Resolving a target of asp-targets.toml into its ordered spaces (deps first, each space once).
import { realpathSync } from "node:fs";
import path from "node:path";
import { CodexHarnessError } from "../errors.js";
import { parseSpaceRef, refDir } from "./refs.js";
import { readSpace, type Space } from "./space-manifest.js";
import { readTargets, type TargetDefinition } from "./targets.js";
import { failer } from "./toml-read.js";

/** A target with its spaces in load order. */
export interface ResolvedTarget {
  projectDir: string;
  target: TargetDefinition;
  /** Dependencies before dependents, compose order otherwise, each space once. */
  spaces: Space[];
}

/**
 * Resolves `targetName` of `<projectDir>/asp-targets.toml` into its spaces in load order: each
 * compose ref's `[deps] spaces` first (depth-first), each space once at its first position.
 * Throws `invalid_targets` for an unknown target, a dependency cycle, or two folders with one id.
 */
export function resolveTarget(projectDir: string, targetName: string): ResolvedTarget {
  const file = readTargets(projectDir);
  const target = file.targets[targetName];
  if (target === undefined) {
    const known = Object.keys(file.targets);
    throw new CodexHarnessError(
      "invalid_targets",
      `${file.file}: there is no target "${targetName}"; ` +
        (known.length === 0
          ? "the file defines no targets, so add a [targets.<name>] table"
          : `use one of ${known.map((name) => `"${name}"`).join(", ")}`),
    );
  }
  return {
    projectDir: file.projectDir,
    target,
    spaces: loadSpaces(file.projectDir, target, file.file),
  };
}

/**
 * Resolves a list of space refs (`space:path:<dir>` relative to `projectDir`, or
 * `space:project:<id>`) as one unnamed target called `targetName`, without an `asp-targets.toml`.
 * Throws `invalid_targets` for an empty list, a bad ref, a missing folder or a cycle.
 */
export function resolveSpaceRefs(
  projectDir: string,
  refs: readonly string[],
  targetName: string,
): ResolvedTarget {
  const origin = "the spaces list";
  if (!Array.isArray(refs) || refs.length === 0) {
    throw new CodexHarnessError(
      "invalid_targets",
      `${origin} is empty; give at least one space ref such as "space:path:./spaces/my-space"`,
    );
  }
  const fail = failer("invalid_targets", origin);
  const compose = refs.map((ref, index) => parseSpaceRef(String(ref), origin, `[${index}]`, fail));
  const target: TargetDefinition = { name: targetName, compose, codex: {} };
  const dir = path.resolve(projectDir);
  return { projectDir: dir, target, spaces: loadSpaces(dir, target, origin) };
}

/** The target's spaces in load order: deps first (depth-first), each space once. */
function loadSpaces(projectDir: string, target: TargetDefinition, fileLabel: string): Space[] {
  const targetName = target.name;
  const file = { file: fileLabel, projectDir };
  const spaces: Space[] = [];
  const byDir = new Map<string, Space>();
  const byId = new Map<string, string>();
  const visit = (dir: string, stack: { dir: string; id: string }[], via: string): void => {
    const real = realDir(dir, via);
    if (byDir.has(real)) return;
    const loop = stack.findIndex((entry) => entry.dir === real);
    if (loop !== -1) {
      const cycle = [...stack.slice(loop).map((entry) => entry.id), stack[loop]?.id].join(" -> ");
      throw new CodexHarnessError(
        "invalid_targets",
        `${file.file}: target "${targetName}" has a dependency cycle ${cycle}; ` +
          "remove one of these [deps] spaces entries",
      );
    }
    const space = readSpace(real);
    const other = byId.get(space.id);
    if (other !== undefined && other !== real) {
      throw new CodexHarnessError(
        "invalid_targets",
        `${file.file}: target "${targetName}" loads two spaces with id "${space.id}" ` +
          `(${other} and ${real}); give them different ids or use one folder`,
      );
    }
    byId.set(space.id, real);
    const origin = path.join(real, "space.toml");
    const fail = failer("invalid_space", origin);
    const next = [...stack, { dir: real, id: space.id }];
    space.deps.forEach((ref, index) => {
      const parsed = parseSpaceRef(ref, origin, `[deps] spaces[${index}]`, fail);
      visit(refDir(parsed, real, file.projectDir), next, `${origin} [deps] spaces[${index}]`);
    });
    if (!byDir.has(real)) {
      byDir.set(real, space);
      spaces.push(space);
    }
  };
  target.compose.forEach((ref, index) => {
    visit(
      refDir(ref, file.projectDir, file.projectDir),
      [],
      `${file.file} [targets.${targetName}] compose[${index}]`,
    );
  });
  return spaces;
}

function realDir(dir: string, via: string): string {
  try {
    return realpathSync(dir);
  } catch (error) {
    throw new CodexHarnessError(
      "invalid_targets",
      `${via}: the space folder ${dir} does not exist; fix the ref or create the space there`,
      { cause: error },
    );
  }
}
