// Runs the benchmarks (`npm run bench -- [--only a,b] [--rounds N] …`) with an empty HOME, as the
// tests run: codex starts login shells, which read the user's shell startup files (pyenv's rehash,
// for one, runs at each and, killed mid-run, leaves a lock that stalls every later shell 60 s) —
// what a benchmark measures must not depend on them.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const home = mkdtempSync(path.join(tmpdir(), "codex-harness-bench-home-"));
const result = spawnSync(
  process.execPath,
  ["--expose-gc", path.join("build", "bench", "run.js"), ...process.argv.slice(2)],
  { stdio: "inherit", env: { ...process.env, HOME: home } },
);
rmSync(home, { recursive: true, force: true });
process.exit(result.status ?? 1);
