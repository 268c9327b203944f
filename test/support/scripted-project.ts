// A project (asp-targets.toml, one space) whose space points codex at a ScriptedModel, copied
// once per worker "machine": for the fleet tests and benchmark.
import { cp, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ScriptedModel } from "../../src/testing/scripted-model.js";

/** Writes the project under `root` and `count` copies of it; resolves with the copies. */
export async function scriptedProjectCopies(
  root: string,
  model: ScriptedModel,
  count: number,
): Promise<string[]> {
  const base = path.join(root, "project");
  await mkdir(path.join(base, "spaces/app"), { recursive: true });
  await writeFile(
    path.join(base, "asp-targets.toml"),
    'schema = 1\n[targets.dev]\ncompose = ["space:path:./spaces/app"]\n',
  );
  await writeFile(path.join(base, "spaces/app/space.toml"), scriptedSpaceToml("app", model));
  await writeFile(path.join(base, "spaces/app/AGENTS.md"), "Answer briefly.");
  const copies: string[] = [];
  for (let n = 0; n < count; n++) {
    const copy = path.join(root, `machine-${n + 1}`);
    await cp(base, copy, { recursive: true });
    copies.push(copy);
  }
  return copies;
}

/** A space.toml whose `[codex.config]` points codex at `model`. */
export function scriptedSpaceToml(id: string, model: ScriptedModel): string {
  const provider = model
    .configOverrides({ sandbox_mode: "read-only" })
    .map((line) => line.replace(/^([^=]+)=/, '"$1" = '))
    .join("\n");
  return `schema = 1\nid = "${id}"\nversion = "1.0.0"\n[codex.config]\n${provider}\n`;
}
