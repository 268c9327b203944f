// Tests that run a target: its installed home pointed at a ScriptedModel, and the CLI's arguments.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "smol-toml";
import {
  type ConfigObject,
  mergeConfig,
  renderConfigToml,
} from "../../src/app-server/codex-config.js";
import type { ScriptedModel } from "../../src/testing/scripted-model.js";

/** Adds the scripted provider to an installed home's config.toml (session homes copy it). */
export async function useScriptedModel(homeDir: string, model: ScriptedModel): Promise<void> {
  const file = path.join(homeDir, "config.toml");
  const installed = parse(await readFile(file, "utf8")) as ConfigObject;
  await writeFile(file, renderConfigToml(mergeConfig(installed, model.codexConfig())));
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
