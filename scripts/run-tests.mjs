// Runs the compiled tests with node's test runner: `node scripts/run-tests.mjs [unit|integration|examples]…`.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";

const suites = process.argv.slice(2);
const roots = (suites.length > 0 ? suites : ["unit", "integration", "examples"]).map((suite) =>
  path.join("build", "test", suite),
);
const files = roots
  .filter((root) => existsSync(root))
  .flatMap((root) =>
    readdirSync(root, { recursive: true })
      .map(String)
      .filter((file) => file.endsWith(".test.js"))
      .map((file) => path.join(root, file)),
  )
  .sort();
if (files.length === 0) {
  console.error(`No compiled tests under ${roots.join(", ")}: run \`npm run build\` first.`);
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ["--test", "--test-concurrency=2", "--test-timeout=120000", ...files],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
