// Tests that run a target: its spaces pointed at a ScriptedModel, and the CLI's arguments.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { installTarget } from "../../src/spaces/install.js";
import type { ScriptedModel } from "../../src/testing/scripted-model.js";
import { scriptedSpaceToml } from "./scripted-project.js";

/**
 * Points every target of `projectDir` at `model`, the way a user would: a space whose
 * `[codex.config]` names the scripted provider, composed last into each target; then installs
 * `target`. Resolves with its installed home.
 */
export async function useScriptedModel(
  projectDir: string,
  model: ScriptedModel,
  target = "dev",
): Promise<string> {
  const space = path.join(projectDir, "spaces/scripted-model");
  await mkdir(space, { recursive: true });
  await writeFile(path.join(space, "space.toml"), scriptedSpaceToml("scripted-model", model));
  const targets = path.join(projectDir, "asp-targets.toml");
  const text = await readFile(targets, "utf8");
  await writeFile(
    targets,
    text.replace(/^compose = \[(.*)\]$/gm, 'compose = [$1, "space:path:./spaces/scripted-model"]'),
  );
  return (await installTarget(projectDir, target)).homeDir;
}

/** `run --target dev --project <project> --cd <cd> --skip-git-repo-check`, then `more`. */
export function runTargetArgs(project: string, cd: string, ...more: string[]): string[] {
  return [
    "run",
    "--target",
    "dev",
    "--project",
    project,
    "--cd",
    cd,
    "--skip-git-repo-check",
  ].concat(more);
}
