// Runs an ES module script in a fresh node process under test/fixtures/import-hooks.mjs: what it
// resolves is recorded, and chosen packages look uninstalled.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { repoRoot } from "./paths.js";

const HOOKS = pathToFileURL(path.join(repoRoot, "test", "fixtures", "import-hooks.mjs")).href;

/** What {@link runWithHooks} saw. */
export interface HookedRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /**
   * Every URL the process resolved through the ES module loader, in order (with repeats); a file
   * of the bundle (build/dist) is followed by the compiled modules it holds (build/src/…), so that
   * what a process loaded reads the same bundled or not.
   */
  resolved: string[];
}

/**
 * Runs `script` (an ES module body; import with `await import()`, which the hooks see, never with
 * a static `import`, which would run before them) in a new node process whose working directory
 * is the repository, so `codex-harness` resolves to this package. `hide` lists packages that
 * then fail to resolve with node's own "Cannot find package" error; `env` is the process's
 * environment (default: this one's).
 */
export function runWithHooks(
  script: string,
  options: { hide?: string[]; env?: Record<string, string | undefined> } = {},
): HookedRun {
  const dir = mkdtempSync(path.join(os.tmpdir(), "codex-harness-hooks-"));
  const record = path.join(dir, "resolved.txt");
  try {
    const data = JSON.stringify({ record, hide: options.hide ?? [] });
    const prelude = `import { register } from "node:module"; register(${JSON.stringify(HOOKS)}, { data: ${data} });\n`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", prelude + script], {
      cwd: repoRoot,
      env: options.env ?? process.env,
      encoding: "utf8",
      timeout: 60_000,
    });
    let resolved: string[] = [];
    try {
      resolved = readFileSync(record, "utf8").split("\n").filter(Boolean);
    } catch {
      // nothing resolved (the process failed before its first import)
    }
    return {
      status: child.status,
      stdout: child.stdout,
      stderr: child.stderr,
      resolved: withBundledModules(resolved),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `resolved`, each build/dist file followed by the modules it holds (from build/dist/meta.json). */
function withBundledModules(resolved: string[]): string[] {
  const dist = pathToFileURL(path.join(repoRoot, "build", "dist")).href;
  if (!resolved.some((url) => url.startsWith(`${dist}/`))) return resolved;
  const meta = JSON.parse(
    readFileSync(path.join(repoRoot, "build", "dist", "meta.json"), "utf8"),
  ) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  return resolved.flatMap((url) => {
    if (!url.startsWith(`${dist}/`)) return [url];
    const output = meta.outputs[`build/dist/${url.slice(dist.length + 1)}`];
    const inputs = Object.keys(output?.inputs ?? {});
    return [url, ...inputs.map((input) => pathToFileURL(path.join(repoRoot, input)).href)];
  });
}
