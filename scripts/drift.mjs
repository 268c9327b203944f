// Protocol drift: runs the protocol comparison and the integration tests against another codex release and writes docs/drift/codex-<version>.md.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import {
  existingNotes,
  gitState,
  pinnedCodexVersion,
  plural,
  repoRoot,
  runQuick,
  seconds,
} from "./lib/common.js";
import { renderReport } from "./lib/drift-report.js";
import {
  CannotRun,
  classify,
  failuresOf,
  integrationFiles,
  killRunningTests,
  runScript,
  runTests,
  snapshotBuild,
  statusByKey,
  testEnvironment,
} from "./lib/integration-run.js";
import { compareProtocol, compareSchemas, harnessSource } from "./lib/protocol-diff.js";

const DEFAULT_CODEX = path.join(
  repoRoot,
  "node_modules/@openai/codex-sdk/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
);
const USAGE = `Usage: node scripts/drift.mjs [--codex <path>] [--out <dir>] [--no-baseline] [--keep]

Compares a codex binary (default: the 0.163.0 one @openai/codex-sdk installs) with the pinned one:
its protocol method lists against src/protocol/method-map.ts, its JSON schema against the committed
one, and the compiled integration tests run with CODEX_HARNESS_CODEX_PATH=<binary>. Writes
<out>/codex-<version>.md (default docs/drift). Run \`npm run build\` first (\`npm run drift\` does).

  --codex <path>   the codex binary to compare
  --out <dir>      where to write the report (default docs/drift)
  --no-baseline    do not rerun the failing test files on the pinned codex
  --keep           keep the temporary folder (schemas, TAP output) and print its path

Exits 0 when the report is written, whatever the tests say; 1 when it could not run.`;

/** The whole run's budget; every step gets what is left, and a watchdog ends it regardless. */
const OVERALL_MS = 10 * 60_000;
/** Kept for the steps after the main test run (rerun, baseline, report). */
const RESERVE_MS = 100_000;

const startedAt = Date.now();
const deadline = startedAt + OVERALL_MS;

function parseArgs(argv) {
  const options = { codex: DEFAULT_CODEX, out: path.join(repoRoot, "docs/drift"), baseline: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--codex" || arg === "--out") {
      const value = argv[++i];
      if (!value) throw new CannotRun(`${arg} needs a value.\n\n${USAGE}`);
      options[arg.slice(2)] = path.resolve(value);
    } else if (arg === "--no-baseline") options.baseline = false;
    else if (arg === "--keep") options.keep = true;
    else if (arg === "--help" || arg === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else throw new CannotRun(`Unknown argument ${arg}.\n\n${USAGE}`);
  }
  return options;
}

const left = () => deadline - Date.now();
const log = (message) => console.log(`[drift ${seconds(Date.now() - startedAt)}] ${message}`);

// ---------------------------------------------------------------------------------------------

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (!existsSync(options.codex)) throw new CannotRun(`No codex binary at ${options.codex}.`);
  const versionLine = (
    await runQuick(options.codex, ["--version"], 20_000).catch((error) => {
      throw new CannotRun(`\`${options.codex} --version\` failed: ${error.message}`);
    })
  ).trim();
  const version = /(\d+\.\d+\.\d+(?:-[\w.]+)?)/.exec(versionLine)?.[1];
  if (!version) throw new CannotRun(`Cannot read a version from "${versionLine}".`);
  const pinnedVersion = pinnedCodexVersion();
  log(`comparing ${versionLine} (${options.codex}) with the pinned ${pinnedVersion}`);

  const work = mkdtempSync(path.join(tmpdir(), "codex-harness-drift-"));
  const root = path.join(work, "package");
  const report = {
    version,
    versionLine,
    pinnedVersion,
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    codexShown: options.codex.startsWith(`${repoRoot}/`)
      ? path.relative(repoRoot, options.codex)
      : options.codex,
    codexArg:
      options.codex === DEFAULT_CODEX ? undefined : path.relative(process.cwd(), options.codex),
    scriptLink: path
      .relative(options.out, path.join(repoRoot, "scripts/drift.mjs"))
      .split(path.sep)
      .join("/"),
    rows: [],
    counts: {},
    ...gitState(),
  };

  const homes = [];
  const envFor = (codex) => {
    const test = testEnvironment(codex);
    homes.push(test);
    return test.env;
  };
  try {
    await snapshotBuild(root, { log }).catch((error) => {
      throw new CannotRun(error.message);
    });
    log("snapshot of build/ taken");

    // (b) method lists and types
    try {
      const methodMap = await import(
        pathToFileURL(path.join(root, "build/src/protocol/method-map.js")).href
      );
      const pinnedSchemaDir = path.join(root, "src/protocol/generated/schema");
      report.protocol = await compareProtocol(
        options.codex,
        work,
        methodMap,
        pinnedSchemaDir,
        Math.min(180_000, left()),
      );
      report.schemas = compareSchemas(
        report.protocol.experimentalDir,
        pinnedSchemaDir,
        harnessSource(path.join(root, "src")),
      );
      const exp = report.protocol.kinds.filter((k) => k.variant === "experimental");
      for (const k of exp) {
        log(
          `${k.label}: ${k.onlyOld.length} only in ${version}, ${k.onlyPinned.length} only in ${pinnedVersion}`,
        );
      }
    } catch (error) {
      report.protocolError = error.message.split("\n")[0];
      log(`protocol comparison failed: ${report.protocolError}`);
    }

    // (c) the integration tests
    const files = integrationFiles(root);
    report.testFiles = files.length;
    if (files.length === 0)
      throw new CannotRun("No compiled integration tests under build/test/integration.");
    log(`running ${files.length} integration test files on ${version}…`);
    const first = await runTests({
      root,
      files,
      env: envFor(options.codex),
      timeoutMs: Math.max(60_000, left() - RESERVE_MS),
      tapFile: path.join(work, `codex-${version}.tap`),
    });
    report.tests = first;
    const s = first.summary;
    log(
      `${s.tests ?? "?"} tests: ${s.pass ?? "?"} passed, ${s.fail ?? "?"} failed, ${s.cancelled ?? 0} cancelled (${seconds(first.elapsedMs)})`,
    );
    const rows = failuresOf(first, root, options.codex);
    const failingFiles = [...new Set(rows.map((row) => row.file).filter(Boolean))]
      .map((f) => files.find((file) => path.basename(file) === f))
      .filter(Boolean);

    let rerun;
    let baseline;
    report.rerunNote = "nothing to rerun";
    report.baselineNote = options.baseline ? "nothing to run" : "skipped: --no-baseline";
    if (failingFiles.length) {
      if (left() > 60_000) {
        log(`rerunning ${plural(failingFiles.length, "failing file")} on ${version}…`);
        const again = await runTests({
          root,
          files: failingFiles,
          env: envFor(options.codex),
          timeoutMs: Math.max(30_000, (left() - 30_000) / 2),
          tapFile: path.join(work, `codex-${version}-rerun.tap`),
        });
        rerun = statusByKey(again);
        report.rerunNote = `${plural(failingFiles.length, "file")}, ${again.summary.fail ?? "?"} failed again`;
      } else report.rerunNote = "skipped: out of time";
      if (options.baseline && left() > 45_000) {
        log(
          `running the same ${plural(failingFiles.length, "file")} on the pinned ${pinnedVersion}…`,
        );
        const pinned = await runTests({
          root,
          files: failingFiles,
          env: envFor(undefined),
          timeoutMs: Math.max(30_000, left() - 30_000),
          tapFile: path.join(work, `codex-${pinnedVersion}-baseline.tap`),
        });
        baseline = statusByKey(pinned);
        report.baselineNote = `${plural(failingFiles.length, "file")}, ${pinned.summary.pass ?? "?"} of ${pinned.summary.tests ?? "?"} tests passed`;
      } else if (options.baseline) report.baselineNote = "skipped: out of time";
    }
    for (const row of rows) {
      row.class = classify(row, rerun, baseline, pinnedVersion);
      report.counts[row.class.kind] = (report.counts[row.class.kind] ?? 0) + 1;
      log(`  ✗ ${row.name} [${row.file}] — ${row.class.label}: ${row.reason}`);
    }
    report.rows = rows;
  } catch (error) {
    if (error instanceof CannotRun) throw error;
    report.testsError ??= error.message;
    log(`error: ${error.stack ?? error.message}`);
  } finally {
    for (const home of homes) home.dispose();
    if (options.keep) log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }

  mkdirSync(options.out, { recursive: true });
  const reportFile = path.join(options.out, `codex-${version}.md`);
  report.notes = existingNotes(reportFile);
  report.elapsedMs = Date.now() - startedAt;
  writeFileSync(reportFile, renderReport(report));
  log(`wrote ${path.relative(process.cwd(), reportFile) || reportFile}`);
}

const watchdog = setTimeout(() => {
  console.error(`drift: still running after ${seconds(OVERALL_MS + 30_000)}; giving up.`);
  killRunningTests();
  process.exit(1);
}, OVERALL_MS + 30_000);
watchdog.unref();
runScript("drift", main);
