// The package's `prepare` (npm ci, npm install): builds, unless build/ was built after every input
// last changed (`--stamp`, the build's last step, marks it). `npx codex-harness` in a clone installs the clone into npx's
// cache and runs `prepare` again; a full build then would empty build/ under whatever runs from it
// (a second npx started meanwhile), for nothing.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const STAMP = path.join("build", ".prepared");
/** What the build reads. */
const INPUTS = [
  "src",
  "test",
  "examples",
  "bench",
  "soak",
  "scripts",
  "package.json",
  "tsconfig.json",
];

/** The latest change time under `entry` (a file or a folder), in ms. */
function newest(entry) {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const name of readdirSync(entry)) latest = Math.max(latest, newest(path.join(entry, name)));
  return latest;
}

if (process.argv.includes("--stamp")) {
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
  process.exit(0);
}
const built = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
if (
  built > 0 &&
  existsSync(path.join("build", "dist", "cli.js")) &&
  INPUTS.every((input) => newest(input) < built)
) {
  process.exit(0);
}
const npm = process.env.npm_execpath;
const result = npm
  ? spawnSync(process.execPath, [npm, "run", "build"], { stdio: "inherit" })
  : spawnSync("npm", ["run", "build"], { stdio: "inherit", shell: process.platform === "win32" });
process.exit(result.status ?? 1);
