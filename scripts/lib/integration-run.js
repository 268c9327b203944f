// Runs the compiled integration tests against a codex binary: a snapshot of build/, node --test with TAP, a TAP reader, and what a failure means.
import { execFileSync, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { repoRoot } from "./common.js";

/** Node's per-test timeout, as in scripts/run-tests.mjs. */
export const TEST_TIMEOUT_MS = 120_000;

/** Tests that assert the pinned release on purpose: failing them on another release is expected. */
export const EXPECTED_FAILURES = [
  {
    file: "protocol-bindings.test.js",
    why: "compares the committed bindings with what the binary under test generates (via `findCodexBinary()`, which honours the env var), so any other release differs by design; `generate:protocol`'s RESULT_TYPE_EXCEPTIONS is also written for the pinned release",
  },
  {
    file: "app-server.test.js",
    name: /pinned version/,
    why: "asserts that the user agent names the pinned version",
  },
  {
    file: "cli-doctor.test.js",
    name: /bundled binary, the pinned version/,
    why: "asserts that doctor finds the bundled binary at the pinned version; with CODEX_HARNESS_CODEX_PATH set it rightly reports the override",
  },
  {
    name: /\bpinned\b/,
    why: "its name says it checks the pinned release",
  },
];

/** The test runner processes running now, killed by {@link killRunningTests}. */
const children = new Set();

/** Kills every test runner still running (their whole process groups). */
export function killRunningTests() {
  for (const child of children) killGroup(child);
}

/** A reason the script cannot run at all (exit 1 with its message, no stack). */
export class CannotRun extends Error {}

/**
 * Runs a script's `main`: exit 0 when it resolves, else 1 with the reason (a {@link CannotRun}'s
 * message, else the stack); on SIGINT/SIGTERM or failure, the test runners still running are killed.
 */
export function runScript(name, main) {
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => {
      killRunningTests();
      process.exit(130);
    });
  }
  main().then(
    () => process.exit(0),
    (error) => {
      console.error(
        `${name}: ${error instanceof CannotRun ? error.message : (error.stack ?? error)}`,
      );
      killRunningTests();
      process.exit(1);
    },
  );
}

/**
 * The environment of a test run: this one's, with `CODEX_HARNESS_CODEX_PATH` set to `codex` (or
 * removed, for the pinned one), an empty HOME (codex starts login shells, which read HOME's startup
 * files; see scripts/run-tests.mjs) and message validation off, so that another release is judged
 * by its behaviour, not by the pinned schema. Call `dispose()` when the run is over.
 */
export function testEnvironment(codex) {
  const home = mkdtempSync(path.join(tmpdir(), "codex-harness-test-home-"));
  const env = { ...process.env, HOME: home, CODEX_HARNESS_VALIDATE: "off" };
  delete env.CODEX_HARNESS_CODEX_PATH;
  if (codex) env.CODEX_HARNESS_CODEX_PATH = codex;
  return { env, dispose: () => rmSync(home, { recursive: true, force: true }) };
}

/**
 * Copies what the compiled tests read (build/, bin/, src/, test/fixtures, package.json) into a
 * temporary package root, so that a rebuild of build/ while the tests run cannot break them.
 * Tests find the package root from their own location (build/test/support/paths.js).
 */
export async function snapshotBuild(into, { log = () => {}, attempts = 10 } = {}) {
  const marker = path.join(repoRoot, "build/src/protocol/generated/package.json");
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (!existsSync(marker)) {
      if (attempt === 1) log("waiting for build/ to be complete…");
      await new Promise((resolve) => setTimeout(resolve, 3000));
      continue;
    }
    const stamp = () => {
      const a = statSync(path.join(repoRoot, "build"));
      const b = statSync(marker);
      return `${a.ino}:${b.ino}:${b.mtimeMs}`;
    };
    try {
      const before = stamp();
      rmSync(into, { recursive: true, force: true });
      mkdirSync(path.join(into, "test"), { recursive: true });
      for (const part of ["build", "bin", "src", "package.json"]) {
        cpSync(path.join(repoRoot, part), path.join(into, part), { recursive: true });
      }
      cpSync(path.join(repoRoot, "test/fixtures"), path.join(into, "test/fixtures"), {
        recursive: true,
      });
      symlinkSync(path.join(repoRoot, "node_modules"), path.join(into, "node_modules"), "dir");
      if (stamp() === before) {
        // Tests that leave the working directory out use the process's, which codex (and
        // codex-harness) expect inside a git repository, as the checkout is.
        execFileSync("git", ["init", "-q", into], { stdio: "ignore" });
        return;
      }
    } catch {
      // build/ changed under us (a concurrent `npm run build`): try again.
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }
  throw new Error("build/ is missing or keeps changing: run `npm run build` first.");
}

export function integrationFiles(root) {
  const dir = path.join(root, "build/test/integration");
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith(".test.js"))
    .map((file) => path.join("build/test/integration", file))
    .sort();
}

/**
 * Runs node's test runner with TAP output in its own process group, killed at `timeoutMs`. With
 * `names`, only the tests of those names run (`--test-name-pattern`, matched whole).
 */
export function runTests({ root, files, env, timeoutMs, tapFile, names }) {
  return new Promise((resolve) => {
    const began = Date.now();
    const child = spawn(
      process.execPath,
      [
        "--test",
        "--test-concurrency=2",
        `--test-timeout=${TEST_TIMEOUT_MS}`,
        "--test-reporter=tap",
        ...(names ?? []).map(
          (name) => `--test-name-pattern=^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`,
        ),
        ...files,
      ],
      { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    children.add(child);
    let tap = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      tap += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    let timedOut = false;
    let done = false;
    const finish = (code, signal, error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      children.delete(child);
      writeFileSync(tapFile, tap);
      resolve({
        ...parseTap(tap),
        code,
        signal,
        timedOut,
        stderr: error ? error.message : stderr,
        elapsedMs: Date.now() - began,
        tapFile,
      });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    child.on("close", (code, signal) => finish(code, signal));
    child.on("error", (error) => finish(null, null, error));
    // A grandchild in another process group may keep the pipes open after the runner exits.
    child.on("exit", (code, signal) => {
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code, signal);
      }, 5000).unref();
    });
  });
}

export function killGroup(child) {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
}

function unquoteYaml(value) {
  const v = value.trim();
  if (v.startsWith("'") && v.endsWith("'")) return v.slice(1, -1).replaceAll("''", "'");
  if (v.startsWith('"') && v.endsWith('"')) {
    try {
      return JSON.parse(v);
    } catch {
      return v.slice(1, -1);
    }
  }
  return v === "~" ? "" : v;
}

/** Reads node's TAP: every result with its ancestors, its YAML fields, and the comments before it. */
export function parseTap(text) {
  const lines = text.split(/\r?\n/);
  const stack = [];
  const results = [];
  const summary = {};
  let comments = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    let m = /^( *)# Subtest: (.*)$/.exec(line);
    if (m) {
      const depth = Math.floor(m[1].length / 4);
      stack.length = depth;
      stack[depth] = m[2];
      continue;
    }
    m = /^( *)(ok|not ok) \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$/.exec(line);
    if (m) {
      const depth = Math.floor(m[1].length / 4);
      const name = m[3].replace(/\\(.)/g, "$1");
      const yaml = {};
      if (lines[i + 1]?.trim() === "---") {
        const indent = m[1].length + 2;
        let j = i + 2;
        let key;
        for (; j < lines.length && lines[j].trim() !== "..."; j++) {
          const field = lines[j].slice(indent);
          const kv = /^([A-Za-z_]+): ?(.*)$/.exec(field);
          if (kv && !lines[j].slice(0, indent).trim() && !field.startsWith(" ")) {
            key = kv[1];
            yaml[key] = kv[2] === "|-" || kv[2] === "|" ? "" : unquoteYaml(kv[2]);
            if (kv[2] !== "|-" && kv[2] !== "|") key = undefined;
          } else if (key) {
            yaml[key] += `${yaml[key] ? "\n" : ""}${lines[j].slice(indent + 2)}`;
          }
        }
        i = j;
      }
      results.push({
        depth,
        ok: m[2] === "ok",
        directive: m[4],
        name,
        ancestors: stack.slice(0, depth),
        yaml,
        comments,
      });
      comments = [];
      continue;
    }
    m = /^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) (\S+)$/.exec(line);
    if (m) {
      summary[m[1]] = Number(m[2]);
      continue;
    }
    m = /^ *# (.*)$/.exec(line);
    if (m) comments.push(m[1]);
  }
  if (summary.tests === undefined) {
    // A run cut off before its summary: count the tests that finished.
    const tests = results.filter((r) => r.yaml.type !== "suite" && !/\.test\.js$/.test(r.name));
    summary.tests = tests.length;
    summary.pass = tests.filter((r) => r.ok && !r.directive).length;
    summary.cancelled = tests.filter((r) => r.yaml.failureType === "cancelledByParent").length;
    summary.fail = tests.filter((r) => !r.ok && !r.directive).length - summary.cancelled;
    summary.skipped = tests.filter((r) => r.directive).length;
  }
  return { results, summary };
}

export function fileOf(result) {
  const location = result.yaml.location ?? "";
  const m = /([^/\\]+\.test\.js)(?::\d+:\d+)?$/.exec(location);
  if (m) return m[1];
  const n = /([^/\\]+\.test\.js)$/.exec(result.name);
  return n ? n[1] : "";
}

export const keyOf = (result) =>
  /\.test\.js$/.test(result.name) && result.depth === 0
    ? path.basename(result.name)
    : [...result.ancestors, result.name].join(" › ");

/** A failure's error text, without the paths of this run's temporary folders and binary. */
export function sanitize(text, root, codex) {
  return text
    .replaceAll(`${root}/`, "")
    .replaceAll(root, ".")
    .replaceAll(codex, "<codex>")
    .replace(/(\/tmp\/[\w.-]+-)[A-Za-z0-9]{6}\b/g, "$1XXXXXX");
}

/** A failure's error text as the TAP gives it (the comment line when it only says "test failed"). */
export function errorText(result) {
  const text = result.yaml.error ?? "";
  if (/^test failed$/.test(text) && result.comments.length) {
    return result.comments.find((c) => /error/i.test(c)) ?? result.comments[0];
  }
  return text;
}

/** The first line of a failure (and the next one when the first only introduces it). */
export function firstLine(result, root, codex) {
  const text = errorText(result);
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  let line = lines[0] ?? result.yaml.failureType ?? "failed";
  if (line.endsWith(":") && lines[1]) line = `${line} ${lines[1]}`;
  // An assertion's diff: the lines that differ say more than its header.
  if (/\+ actual - expected$/.test(line)) {
    const diff = lines.slice(2).filter((l) => /^[+-] /.test(l));
    if (diff.length) line = `${line}: ${diff.slice(0, 4).join(" ")}`;
  }
  return sanitize(line, root, codex);
}

/** The failures worth a row: failed tests, and suites whose own hook failed (with their cancelled tests). */
export function failuresOf(run, root, codex) {
  const rows = [];
  const brokenSuites = new Map();
  for (const result of run.results) {
    if (result.ok || result.directive) continue;
    const type = result.yaml.failureType;
    if (type === "subtestsFailed") continue;
    if (type === "cancelledByParent") continue;
    const row = {
      key: keyOf(result),
      file: fileOf(result),
      name: keyOf(result),
      type,
      reason: firstLine(result, root, codex),
      cancelled: 0,
    };
    if (type === "hookFailed") brokenSuites.set(row.key, row);
    rows.push(row);
  }
  for (const result of run.results) {
    if (result.yaml.failureType !== "cancelledByParent") continue;
    const parentKey = result.ancestors.join(" › ");
    const suite = brokenSuites.get(parentKey);
    if (suite) suite.cancelled++;
    else {
      rows.push({
        key: keyOf(result),
        file: fileOf(result),
        name: keyOf(result),
        type: "cancelledByParent",
        reason: firstLine(result, root, codex),
        cancelled: 0,
      });
    }
  }
  return rows;
}

export function statusByKey(run) {
  const map = new Map();
  for (const result of run.results) {
    map.set(keyOf(result), result.ok ? "pass" : result.directive ? "skip" : "fail");
  }
  return map;
}

/** The rule of {@link EXPECTED_FAILURES} that a failure row (file, name) matches, if any. */
export function expectedFailure(row) {
  return EXPECTED_FAILURES.find(
    (rule) => (!rule.file || rule.file === row.file) && (!rule.name || rule.name.test(row.name)),
  );
}

/** What a failure means, given its file's rerun on the same binary and its run on the pinned one. */
export function classify(row, rerun, baseline, pinnedVersion) {
  if (rerun?.get(row.key) === "pass") {
    return { kind: "flaky", label: "flaky (passed when rerun)" };
  }
  if (baseline?.get(row.key) === "fail") {
    return { kind: "pinned-too", label: "fails on the pinned codex too (not drift)" };
  }
  const rule = expectedFailure(row);
  if (rule) {
    return {
      kind: "expected",
      label: `expected (test pins ${pinnedVersion} on purpose)`,
      why: rule.why,
    };
  }
  return { kind: "real", label: "real behaviour difference" };
}
