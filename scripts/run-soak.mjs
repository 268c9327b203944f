// Runs the random-stop campaign (`npm run soak -- --path stdio,acp --aborts 1000 [--seed N]`) with
// an empty HOME, as the tests run: codex's login shells must not read the user's startup files.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const home = mkdtempSync(path.join(tmpdir(), "codex-harness-soak-home-"));
const result = spawnSync(
  process.execPath,
  [path.join("build", "soak", "run.js"), ...process.argv.slice(2)],
  { stdio: "inherit", env: { ...process.env, HOME: home } },
);
rmSync(home, { recursive: true, force: true });
process.exit(result.status ?? 1);
