// Runs the compiled tests with node's test runner: `node scripts/run-tests.mjs [unit|integration|examples]…`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const suites = process.argv.slice(2);
const chosen = suites.length > 0 ? suites : ["unit", "integration", "examples"];
const roots = chosen.map((suite) => path.join("build", "test", suite));
/** The compiled test files of some suites. */
const filesOf = (names) =>
  names
    .map((suite) => path.join("build", "test", suite))
    .filter((root) => existsSync(root))
    .flatMap((root) =>
      readdirSync(root, { recursive: true })
        .map(String)
        .filter((file) => file.endsWith(".test.js"))
        .map((file) => path.join(root, file)),
    )
    .sort();
if (filesOf(chosen).length === 0) {
  console.error(`No compiled tests under ${roots.join(", ")}: run \`npm run build\` first.`);
  process.exit(1);
}
// codex runs commands in login shells, which read the user's shell startup files: an empty HOME
// keeps the tests from depending on them (pyenv's rehash, killed mid-run by a test that stops a
// turn, leaves a lock that makes every later shell wait 60 s).
const home = mkdtempSync(path.join(tmpdir(), "codex-harness-test-home-"));
// The integration tests check everything codex sends against its schema (`validate: "strict"`,
// unless CODEX_HARNESS_VALIDATE says otherwise); the unit tests and examples run with the default.
const runs = [
  { files: filesOf(chosen.filter((suite) => suite !== "integration")), env: {} },
  {
    files: filesOf(chosen.filter((suite) => suite === "integration")),
    env: { CODEX_HARNESS_VALIDATE: process.env.CODEX_HARNESS_VALIDATE ?? "strict" },
  },
];
let status = 0;
// Three files at a time on two cores: most of a test's time is spent waiting on codex, a browser or
// PostgreSQL (the suite's CPU time is about 1.3 cores' worth of its wall time at two).
for (const run of runs.filter((run) => run.files.length > 0)) {
  const result = spawnSync(
    process.execPath,
    ["--test", "--test-concurrency=3", "--test-timeout=120000", ...run.files],
    { stdio: "inherit", env: { ...process.env, HOME: home, ...run.env } },
  );
  if (result.status !== 0) status = result.status ?? 1;
}
rmSync(home, { recursive: true, force: true });
process.exit(status);
