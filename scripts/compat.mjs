// Compatibility matrix: runs the integration tests against a spread of codex releases (cached downloads) and writes docs/compat.md, release × capability.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { cachedBinary, defaultCacheDir, ensureRelease } from "./lib/codex-releases.js";
import {
  gitState,
  pinnedCodexVersion,
  readJson,
  repoRoot,
  runQuick,
  seconds,
} from "./lib/common.js";
import {
  CAPABILITIES,
  capabilityOf,
  judge,
  judgesFile,
  SKIPPED_FILES,
} from "./lib/compat-capabilities.js";
import { probeMissingMethods } from "./lib/compat-probe.js";
import { renderCompat } from "./lib/compat-report.js";
import {
  CannotRun,
  expectedFailure,
  integrationFiles,
  killRunningTests,
  runScript,
  snapshotBuild,
  testEnvironment,
} from "./lib/integration-run.js";
import { runEachFile, testOutcomes } from "./lib/per-file-runs.js";
import { compareProtocol } from "./lib/protocol-diff.js";

/** The default releases, oldest first: scripts/compat-versions.json (the release train adds to it). */
const DEFAULT_VERSIONS = readJson(path.join(repoRoot, "scripts/compat-versions.json")).versions;

const USAGE = `Usage: node scripts/compat.mjs [version…] [--cache <dir>] [--out <file>] [--files <a,b>] [--merge] [--render-only] [--keep]

Runs the compiled integration tests (the files that exercise codex) against each codex release
and writes <out> (default docs/compat.md): release × capability, pass / fail / unsupported, with
the reason. Releases are downloaded once with \`npm pack @openai/codex@<version>-<platform>\`
into the cache. Run \`npm run build\` first (\`npm run compat\` does).

  version…        the releases (default: ${DEFAULT_VERSIONS.join(" ")})
  --cache <dir>   where releases are kept (default: ${defaultCacheDir()})
  --out <file>    the report (default docs/compat.md)
  --files <a,b>   run only the test files whose path contains one of these
  --merge         keep the other releases of the last run's results in the report
  --render-only   write the report from the last run's results (<cache>/compat-results.json)
  --keep          keep the temporary folder (TAP output per file) and print its path

Exits 0 when the report is written, whatever the tests say; 1 when it could not run.`;

/** One release's test run: files that are still running then are killed. */
const RUN_BUDGET_MS = 8 * 60_000;
/** One file's run. */
const FILE_TIMEOUT_MS = 150_000;
/** Rerunning a release's failing files, to tell flaky tests apart. */
const RERUN_BUDGET_MS = 2 * 60_000;
/** Downloading one release. */
const DOWNLOAD_MS = 5 * 60_000;

const startedAt = Date.now();
const log = (message) => console.log(`[compat ${seconds(Date.now() - startedAt)}] ${message}`);

function parseArgs(argv) {
  const options = {
    versions: [],
    cache: defaultCacheDir(),
    out: path.join(repoRoot, "docs/compat.md"),
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--cache" || arg === "--out" || arg === "--files") {
      const value = argv[++i];
      if (!value) throw new CannotRun(`${arg} needs a value.\n\n${USAGE}`);
      options[arg.slice(2)] = arg === "--files" ? value.split(",") : path.resolve(value);
    } else if (arg === "--render-only") options.renderOnly = true;
    else if (arg === "--merge") options.merge = true;
    else if (arg === "--keep") options.keep = true;
    else if (arg === "--help" || arg === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else if (/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(arg)) options.versions.push(arg);
    else throw new CannotRun(`Unknown argument ${arg}.\n\n${USAGE}`);
  }
  if (options.versions.length === 0) options.versions = [...DEFAULT_VERSIONS];
  return options;
}

/** `[{kind, method}]` lists of a compareProtocol result, by kind: the release's own and the differences. */
function methodLists(protocol) {
  const byLabel = {
    "client requests": "client",
    "server notifications": "notification",
    "server requests": "serverRequest",
  };
  const lists = { methods: {}, onlyPinned: {}, onlyRelease: {} };
  for (const kind of protocol.kinds.filter((k) => k.variant === "experimental")) {
    const key = byLabel[kind.label];
    lists.methods[key] = kind.methods;
    lists.onlyPinned[key] = kind.onlyPinned;
    lists.onlyRelease[key] = kind.onlyOld;
  }
  return lists;
}

/** The outcome of every test of a run, with its file (relative to build/test/integration). */
function outcomesOf(runs, root, codex) {
  const outcomes = [];
  for (const run of runs) {
    const file = path.relative("build/test/integration", run.file);
    if (run.notRun) {
      outcomes.push({ file, key: "(file)", status: "fail", reason: "not run: out of time" });
      continue;
    }
    const own = testOutcomes(run, root, codex);
    for (const outcome of own) outcomes.push({ file, ...outcome });
    if (run.timedOut) {
      outcomes.push({
        file,
        key: "(file)",
        status: "fail",
        reason: `still running after ${seconds(run.elapsedMs)}: killed (a hang?)`,
      });
    } else if (
      // The runner ended before its summary, or badly with no failing test to say why: the tests
      // it did not report must not pass for passed.
      (run.summary.duration_ms === undefined || run.code !== 0) &&
      !own.some((o) => o.status === "fail")
    ) {
      const how = run.signal ? `signal ${run.signal}` : `exit code ${run.code}`;
      const stderr =
        String(run.stderr ?? "")
          .trim()
          .split("\n")
          .at(-1) ?? "";
      outcomes.push({
        file,
        key: "(file)",
        status: "fail",
        reason: `the test runner ended early (${how}) after ${own.length} tests${stderr ? `: ${stderr.slice(0, 200)}` : ""}`,
      });
    }
  }
  return outcomes;
}

/** How a failure reads when the release lacks what the test uses and says so. */
const UNSUPPORTED_REASONS =
  /is not supported by this codex version|unexpected argument '--[\w-]+' found|managed standalone Codex install not found|Cyber access programs are disabled/;

/**
 * Sets aside the failures that say nothing about codex-harness on this release (tests that check
 * the pinned release on purpose, the official SDK's own "control" runs) and marks those that are
 * a clear refusal of something the release lacks "unsupported".
 */
function setAside(record, outcomes) {
  for (const o of outcomes) {
    if (o.status !== "fail") continue;
    const rule = !record.pinned && expectedFailure({ file: path.basename(o.file), name: o.key });
    if (rule) Object.assign(o, { status: "expected", why: rule.why });
    else if (/ › control( ›|$)/.test(o.key)) o.status = "control";
    // A clear refusal of something this release lacks: codex-harness's typed errors, codex
    // exec's own for a flag it does not know, an early daemon's need of codex's own installer.
    else if (UNSUPPORTED_REASONS.test(o.detail ?? o.reason)) {
      o.status = "unsupported";
      // The line that says so, rather than a warning printed before it.
      const line = (o.detail ?? "").split("\n").find((l) => UNSUPPORTED_REASONS.test(l));
      if (line && !UNSUPPORTED_REASONS.test(o.reason)) o.reason = `${o.reason} … ${line.trim()}`;
    }
  }
}

/** Judges each capability of a release. Also run on stored results by --render-only. */
function judgeCapabilities(record) {
  setAside(record, record.outcomes ?? []);
  record.cells = {};
  for (const capability of CAPABILITIES) {
    const tests = (record.outcomes ?? []).filter((o) => capabilityOf(o.file, o.key) === capability);
    record.cells[capability.id] = judge(capability, {
      tests,
      methods: record.methods,
      probe: record.probe,
    });
  }
}

async function judgeRelease(version, context) {
  const { root, work, methodMap, pinnedSchemaDir, options, pinnedVersion } = context;
  const began = Date.now();
  const record = { version, pinned: version === pinnedVersion };
  let binary;
  if (record.pinned) {
    const { findCodexBinary } = await import(
      pathToFileURL(path.join(root, "build/src/app-server/codex-binary.js")).href
    );
    binary = findCodexBinary({ env: {} }).executablePath;
    record.source = `bundled \`@openai/codex\` ${pinnedVersion}`;
  } else {
    const cached = existsSync(cachedBinary(options.cache, version));
    if (!cached) log(`${version}: downloading…`);
    const got = await ensureRelease(version, { cacheDir: options.cache, timeoutMs: DOWNLOAD_MS });
    binary = got.binary;
    record.source = got.downloaded ? "downloaded now" : "cached";
  }
  record.versionLine = (await runQuick(binary, ["--version"], 20_000)).trim();

  const dir = mkdtempSync(path.join(work, `${version}-`));
  try {
    Object.assign(
      record,
      methodLists(await compareProtocol(binary, dir, methodMap, pinnedSchemaDir, 120_000)),
    );
  } catch (error) {
    record.protocolError = error.message.split("\n")[0];
    log(`${version}: method lists failed: ${record.protocolError}`);
  }

  const lacking = record.onlyPinned?.client ?? [];
  record.probe = await probeMissingMethods({ root, codex: binary, methods: lacking.slice(0, 3) });

  const test = testEnvironment(record.pinned ? undefined : binary);
  try {
    const runs = await runEachFile({
      root,
      files: context.files,
      env: test.env,
      fileTimeoutMs: FILE_TIMEOUT_MS,
      deadline: Date.now() + RUN_BUDGET_MS,
      tapDir: dir,
    });
    let outcomes = outcomesOf(runs, root, binary);
    // Only the failing tests run again (not those set aside), unless a whole file or suite failed.
    setAside(record, outcomes);
    const namesByFile = new Map();
    for (const o of outcomes.filter((x) => x.status === "fail")) {
      const file = path.join("build/test/integration", o.file);
      if (o.whole || o.key === "(file)") namesByFile.set(file, undefined);
      else if (!namesByFile.has(file) || namesByFile.get(file)) {
        namesByFile.set(file, [...(namesByFile.get(file) ?? []), o.name]);
      }
    }
    if (namesByFile.size) {
      const count = [...namesByFile.values()].reduce((n, names) => n + (names?.length ?? 1), 0);
      log(`${version}: rerunning ${count} failing tests…`);
      const again = await runEachFile({
        root,
        files: [...namesByFile.keys()],
        namesByFile,
        env: test.env,
        fileTimeoutMs: FILE_TIMEOUT_MS,
        deadline: Date.now() + RERUN_BUDGET_MS,
        tapDir: mkdtempSync(path.join(dir, "rerun-")),
      });
      const rerun = outcomesOf(again, root, binary);
      const passedAgain = new Set(
        rerun.filter((o) => o.status === "pass").map((o) => `${o.file}\n${o.key}`),
      );
      outcomes = outcomes.map((o) =>
        o.status === "fail" && passedAgain.has(`${o.file}\n${o.key}`)
          ? { ...o, status: "pass", flaky: o.reason }
          : o,
      );
      // A file that ended early or hung, then ran whole without a failure: its second run counts.
      for (const broken of outcomes.filter((o) => o.key === "(file)" && o.status === "fail")) {
        const second = rerun.filter((o) => o.file === broken.file);
        if (second.length === 0 || second.some((o) => o.status === "fail")) continue;
        const seen = new Set(outcomes.filter((o) => o.file === broken.file).map((o) => o.key));
        outcomes = [
          ...outcomes.filter((o) => o.file !== broken.file),
          ...second.map((o) => (seen.has(o.key) ? o : { ...o, flaky: broken.reason })),
        ];
      }
    }
    record.outcomes = outcomes;
    record.fileSeconds = Object.fromEntries(
      runs.map((r) => [
        path.relative("build/test/integration", r.file),
        Math.round((r.elapsedMs ?? 0) / 100) / 10,
      ]),
    );
  } finally {
    test.dispose();
  }
  judgeCapabilities(record);
  if (!options.keep) rmSync(dir, { recursive: true, force: true });
  record.elapsedMs = Date.now() - began;
  return record;
}

function summaryLine(record) {
  const counts = {};
  for (const cell of Object.values(record.cells ?? {})) {
    counts[cell.status] = (counts[cell.status] ?? 0) + 1;
  }
  const tests = record.outcomes ?? [];
  const passed = tests.filter((o) => o.status === "pass").length;
  const failed = tests.filter((o) => o.status === "fail").length;
  return (
    `${Object.entries(counts)
      .map(([status, n]) => `${n} ${status}`)
      .join(", ")} — ${passed} tests passed, ${failed} failed` +
    ` (${seconds(record.elapsedMs ?? 0)})`
  );
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  // Each release is bounded (download, run, rerun, probe); this is the backstop.
  const watchdogMs = 60_000 + 12 * 60_000 * options.versions.length;
  setTimeout(() => {
    console.error(`compat: still running after ${seconds(watchdogMs)}; giving up.`);
    killRunningTests();
    process.exit(1);
  }, watchdogMs).unref();
  const resultsFile = path.join(options.cache, "compat-results.json");
  if (options.renderOnly) {
    if (!existsSync(resultsFile)) throw new CannotRun(`No earlier results at ${resultsFile}.`);
    const run = readJson(resultsFile);
    for (const record of run.releases) if (!record.error) judgeCapabilities(record);
    writeFileSync(options.out, renderCompat(run, options.out));
    log(`wrote ${path.relative(process.cwd(), options.out)} from ${resultsFile}`);
    return;
  }
  const pinnedVersion = pinnedCodexVersion();
  // The pinned release first: what fails there is not about compatibility.
  const versions = [...new Set(options.versions)].sort((a, b) =>
    a === pinnedVersion ? -1 : b === pinnedVersion ? 1 : 0,
  );
  const work = mkdtempSync(path.join(tmpdir(), "codex-harness-compat-"));
  const root = path.join(work, "package");
  const run = {
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    node: process.version,
    pinnedVersion,
    versions: options.versions,
    cacheShown: options.cache === defaultCacheDir() ? "default" : options.cache,
    ...gitState(),
    releases: [],
  };
  const kept = [];
  if (options.merge && existsSync(resultsFile)) {
    const earlier = readJson(resultsFile);
    if (earlier.pinnedVersion === pinnedVersion) {
      kept.push(...earlier.releases.filter((r) => !versions.includes(r.version)));
      for (const record of kept) {
        record.commit ??= earlier.commit;
        record.dirty ??= earlier.dirty;
      }
      // Judged again with the current rules, as --render-only does.
      for (const record of kept) if (!record.error) judgeCapabilities(record);
      log(`keeping ${kept.length} releases of the run of ${earlier.date}`);
    }
  }
  try {
    await snapshotBuild(root, { log }).catch((error) => {
      throw new CannotRun(error.message);
    });
    const methodMap = await import(
      pathToFileURL(path.join(root, "build/src/protocol/method-map.js")).href
    );
    const skipped = new Set(SKIPPED_FILES.map((s) => s.file));
    const files = integrationFiles(root).filter((file) => {
      const name = path.relative("build/test/integration", file);
      return (
        !skipped.has(name) &&
        judgesFile(name) &&
        (!options.files || options.files.some((f) => name.includes(f)))
      );
    });
    run.files = files.map((file) => path.relative("build/test/integration", file));
    log(`${versions.length} releases × ${files.length} test files; cache ${options.cache}`);
    const context = {
      root,
      work,
      methodMap,
      pinnedSchemaDir: path.join(root, "src/protocol/generated/schema"),
      options,
      pinnedVersion,
      files,
    };
    for (const version of versions) {
      const began = Date.now();
      let record;
      try {
        record = await judgeRelease(version, context);
        log(`${version}: ${summaryLine(record)}`);
        for (const [id, cell] of Object.entries(record.cells)) {
          if (cell.status === "fail" || cell.status === "unsupported") {
            log(`  ${cell.status} ${id}: ${cell.reason.slice(0, 200)}`);
          }
        }
      } catch (error) {
        record = { version, error: error.message.split("\n")[0], elapsedMs: Date.now() - began };
        log(`${version}: could not be judged: ${record.error}`);
      }
      // The code under test is the snapshot's, taken at the start of the run.
      Object.assign(record, {
        date: new Date().toISOString(),
        commit: run.commit,
        dirty: run.dirty,
      });
      run.releases.push(record);
      // Kept after each release, so that an interrupted run loses only the release it was on.
      mkdirSync(options.cache, { recursive: true });
      const sofar = { ...run, releases: [...run.releases, ...kept] };
      writeFileSync(resultsFile, `${JSON.stringify(sofar, null, 1)}\n`);
    }
  } finally {
    if (options.keep) log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
  run.elapsedMs = Date.now() - startedAt;
  run.releases.push(...kept);
  run.versions = run.releases.map((r) => r.version);
  mkdirSync(options.cache, { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(run, null, 1)}\n`);
  writeFileSync(options.out, renderCompat(run, options.out));
  log(`wrote ${path.relative(process.cwd(), options.out)} (results kept in ${resultsFile})`);
}

runScript("compat", main);
