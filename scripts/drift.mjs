// Protocol drift: runs the protocol comparison and the integration tests against another codex release and writes docs/drift/codex-<version>.md.
import { execFile, execFileSync, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
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
/** Node's per-test timeout, as in scripts/run-tests.mjs. */
const TEST_TIMEOUT_MS = 120_000;
/** Kept for the steps after the main test run (rerun, baseline, report). */
const RESERVE_MS = 100_000;

/** Tests that assert the pinned release on purpose: failing them on another release is expected. */
const EXPECTED_FAILURES = [
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

const NOTES_START = "<!-- notes:start -->";
const NOTES_END = "<!-- notes:end -->";

const startedAt = Date.now();
const deadline = startedAt + OVERALL_MS;
const children = new Set();

class CannotRun extends Error {}

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
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const log = (message) => console.log(`[drift ${seconds(Date.now() - startedAt)}] ${message}`);

/** Runs a short command; resolves with its stdout or rejects with a one-line reason. */
function runQuick(file, args, timeoutMs = 60_000) {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { timeout: Math.max(1000, Math.min(timeoutMs, left())), maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          const detail = String(stderr || error.message)
            .trim()
            .split("\n")[0];
          reject(new Error(`${path.basename(file)} ${args.join(" ")}: ${detail}`));
        } else resolve(String(stdout));
      },
    );
  });
}

// ---------------------------------------------------------------------------------------------
// Protocol: method lists and schema definitions

function readJson(file) {
  return JSON.parse(readFileSync(file, "utf8"));
}

function schemaMethods(schemaDir, name) {
  const schema = readJson(path.join(schemaDir, `${name}.json`));
  return schema.oneOf.map((variant) => variant.properties.method.enum[0]);
}

/** The methods of a `generate-ts` union, parsed the way scripts/generate-protocol.ts does. */
function tsMethods(tsDir, name) {
  const file = path.join(tsDir, `${name}.ts`);
  if (!existsSync(file)) return [];
  return [...readFileSync(file, "utf8").matchAll(/"method": "([^"]+)"/g)].map((m) => m[1]);
}

const PROTOCOL_KINDS = [
  { schema: "ClientRequest", list: "CLIENT_REQUEST_METHODS", label: "client requests" },
  {
    schema: "ServerNotification",
    list: "SERVER_NOTIFICATION_METHODS",
    label: "server notifications",
  },
  { schema: "ServerRequest", list: "SERVER_REQUEST_METHODS", label: "server requests" },
];

async function compareProtocol(codex, work, methodMap, pinnedSchemaDir) {
  const experimental = path.join(work, "schema-experimental");
  const stable = path.join(work, "schema-stable");
  const ts = path.join(work, "ts-experimental");
  await runQuick(codex, [
    "app-server",
    "generate-json-schema",
    "--experimental",
    "--out",
    experimental,
  ]);
  await runQuick(codex, ["app-server", "generate-json-schema", "--out", stable]);
  let tsError;
  await runQuick(codex, ["app-server", "generate-ts", "--experimental", "--out", ts]).catch(
    (error) => {
      tsError = error.message;
    },
  );
  const kinds = [];
  for (const kind of PROTOCOL_KINDS) {
    for (const variant of ["experimental", "stable"]) {
      const dir = variant === "experimental" ? experimental : stable;
      const listName = variant === "experimental" ? kind.list : `STABLE_${kind.list}`;
      const old = new Set(schemaMethods(dir, kind.schema));
      const oldTs = new Set(variant === "experimental" ? tsMethods(ts, kind.schema) : []);
      const pinned = new Set(methodMap[listName]);
      const pinnedSchema = new Set(
        variant === "experimental" ? schemaMethods(pinnedSchemaDir, kind.schema) : pinned,
      );
      kinds.push({
        label: kind.label,
        variant,
        // generate-ts lists a few methods the JSON schema leaves out; count them as the map does.
        oldCount: new Set([...old, ...oldTs]).size,
        pinnedCount: pinned.size,
        onlyOld: [...old].filter((m) => !pinned.has(m)).sort(),
        // A method the JSON schema leaves out but generate-ts lists is in both releases.
        onlyPinned: [...pinned].filter((m) => !old.has(m) && !oldTs.has(m)).sort(),
        tsOnly: [...pinned].filter((m) => !pinnedSchema.has(m) && oldTs.has(m)).sort(),
      });
    }
  }
  return { kinds, tsError, experimentalDir: experimental };
}

/** Every definition of a schema bundle, v1/shared and v2 alike, by name. */
function bundleDefinitions(schemaDir) {
  const bundle = readJson(path.join(schemaDir, "codex_app_server_protocol.schemas.json"));
  const definitions = new Map();
  for (const [name, schema] of Object.entries(bundle.definitions ?? {})) {
    if (name !== "v2") definitions.set(name, schema);
  }
  for (const [name, schema] of Object.entries(bundle.definitions?.v2 ?? {})) {
    const key =
      definitions.has(name) && JSON.stringify(definitions.get(name)) !== JSON.stringify(schema)
        ? `v2.${name}`
        : name;
    definitions.set(key, schema);
  }
  return definitions;
}

function withoutDescriptions(value) {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== "description")
        .map(([key, inner]) => [key, withoutDescriptions(inner)]),
    );
  }
  return value;
}

const same = (a, b) =>
  JSON.stringify(withoutDescriptions(a)) === JSON.stringify(withoutDescriptions(b));

function variantTag(variant) {
  const props = variant?.properties ?? {};
  const tag = props.type?.enum?.[0] ?? props.method?.enum?.[0];
  if (tag !== undefined) return String(tag);
  if (variant?.title) return variant.title;
  if (variant?.enum) return variant.enum.join("|");
  if (variant?.$ref) return variant.$ref.split("/").pop();
  if (variant?.type) return String(variant.type);
  return JSON.stringify(withoutDescriptions(variant)).slice(0, 40);
}

/** The string values a schema allows: its own `enum` and those of its enum-only variants. */
function enumValues(schema) {
  const values = new Set(schema?.enum ?? []);
  for (const variant of [...(schema?.oneOf ?? []), ...(schema?.anyOf ?? [])]) {
    if (Array.isArray(variant?.enum) && !variant.properties) {
      for (const value of variant.enum) values.add(value);
    }
  }
  return values;
}

/** The variants of a union that are not plain enums (those are compared as values). */
const objectVariants = (variants) =>
  (variants ?? []).filter((v) => !(Array.isArray(v?.enum) && !v.properties));

/** What changed between two versions of one definition, as short phrases (old -> pinned). */
function describeChange(old, pinned, depth = 0) {
  if (same(old, pinned)) return [];
  const out = [];
  const oldProps = old?.properties ?? {};
  const newProps = pinned?.properties ?? {};
  const added = Object.keys(newProps).filter((k) => !(k in oldProps));
  const removed = Object.keys(oldProps).filter((k) => !(k in newProps));
  const changed = Object.keys(newProps).filter(
    (k) => k in oldProps && !same(oldProps[k], newProps[k]),
  );
  if (added.length) out.push(`+${added.join(", +")}`);
  if (removed.length) out.push(`-${removed.join(", -")}`);
  if (changed.length) out.push(`~${changed.join(", ~")}`);
  const oldRequired = new Set(old?.required ?? []);
  const newRequired = new Set(pinned?.required ?? []);
  const nowRequired = [...newRequired].filter((k) => !oldRequired.has(k) && k in oldProps);
  const noLongerRequired = [...oldRequired].filter((k) => !newRequired.has(k) && k in newProps);
  if (nowRequired.length) out.push(`now required: ${nowRequired.join(", ")}`);
  if (noLongerRequired.length) out.push(`now optional: ${noLongerRequired.join(", ")}`);
  const a = enumValues(old);
  const b = enumValues(pinned);
  const plusValues = [...b].filter((v) => !a.has(v));
  const minusValues = [...a].filter((v) => !b.has(v));
  if (plusValues.length) out.push(`values +${plusValues.join(", +")}`);
  if (minusValues.length) out.push(`values -${minusValues.join(", -")}`);
  for (const key of ["oneOf", "anyOf"]) {
    if (!Array.isArray(old?.[key]) && !Array.isArray(pinned?.[key])) continue;
    const a = new Map(objectVariants(old?.[key]).map((v) => [variantTag(v), v]));
    const b = new Map(objectVariants(pinned?.[key]).map((v) => [variantTag(v), v]));
    const plus = [...b.keys()].filter((t) => !a.has(t));
    const minus = [...a.keys()].filter((t) => !b.has(t));
    if (plus.length) out.push(`variants +${plus.join(", +")}`);
    if (minus.length) out.push(`variants -${minus.join(", -")}`);
    if (depth < 1) {
      for (const [tag, variant] of b) {
        if (!a.has(tag)) continue;
        const inner = describeChange(a.get(tag), variant, depth + 1);
        if (inner.length) out.push(`${tag} (${inner.join("; ")})`);
      }
    }
  }
  if (out.length === 0) out.push("shape changed");
  return out;
}

function compareSchemas(oldDir, pinnedDir, sourceText) {
  const old = bundleDefinitions(oldDir);
  const pinned = bundleDefinitions(pinnedDir);
  const onlyOld = [...old.keys()].filter((n) => !pinned.has(n)).sort();
  const onlyPinned = [...pinned.keys()].filter((n) => !old.has(n)).sort();
  const changed = [];
  let descriptionsOnly = 0;
  for (const [name, schema] of pinned) {
    if (!old.has(name) || JSON.stringify(old.get(name)) === JSON.stringify(schema)) continue;
    if (same(old.get(name), schema)) {
      descriptionsOnly++;
      continue;
    }
    const bare = name.replace(/^v2\./, "");
    changed.push({
      name,
      used: new RegExp(`\\b${bare}\\b`).test(sourceText),
      change: describeChange(old.get(name), schema).join("; "),
    });
  }
  changed.sort((a, b) => a.name.localeCompare(b.name));
  return {
    oldCount: old.size,
    pinnedCount: pinned.size,
    onlyOld,
    onlyPinned,
    changed,
    descriptionsOnly,
  };
}

/** codex-harness's own source (not the generated bindings), to tell which types it names. */
function harnessSource(srcDir) {
  const texts = [];
  for (const entry of readdirSync(srcDir, { recursive: true })) {
    const file = String(entry);
    if (!file.endsWith(".ts") || file.startsWith(path.join("protocol", "generated"))) continue;
    if (file === path.join("protocol", "method-map.ts")) continue;
    texts.push(readFileSync(path.join(srcDir, file), "utf8"));
  }
  return texts.join("\n");
}

// ---------------------------------------------------------------------------------------------
// Integration tests: a snapshot of build/, node --test with TAP, and a TAP reader

/**
 * Copies what the compiled tests read (build/, bin/, src/, test/fixtures, package.json) into a
 * temporary package root, so that a rebuild of build/ while the tests run cannot break them.
 * Tests find the package root from their own location (build/test/support/paths.js).
 */
async function snapshotBuild(into) {
  const marker = path.join(repoRoot, "build/src/protocol/generated/package.json");
  for (let attempt = 1; attempt <= 10; attempt++) {
    if (!existsSync(marker)) {
      if (attempt === 1) log("waiting for build/ to be complete…");
      await new Promise((resolve) => setTimeout(resolve, 3000));
      if (left() < RESERVE_MS) break;
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
      if (stamp() === before) return;
    } catch {
      // build/ changed under us (a concurrent `npm run build`): try again.
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }
  throw new CannotRun("build/ is missing or keeps changing: run `npm run build` first.");
}

function integrationFiles(root) {
  const dir = path.join(root, "build/test/integration");
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith(".test.js"))
    .map((file) => path.join("build/test/integration", file))
    .sort();
}

/** Runs node's test runner with TAP output in its own process group, killed at `timeoutMs`. */
function runTests({ root, files, env, timeoutMs, tapFile }) {
  return new Promise((resolve) => {
    const began = Date.now();
    const child = spawn(
      process.execPath,
      [
        "--test",
        "--test-concurrency=2",
        `--test-timeout=${TEST_TIMEOUT_MS}`,
        "--test-reporter=tap",
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

function killGroup(child) {
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
function parseTap(text) {
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

function fileOf(result) {
  const location = result.yaml.location ?? "";
  const m = /([^/\\]+\.test\.js)(?::\d+:\d+)?$/.exec(location);
  if (m) return m[1];
  const n = /([^/\\]+\.test\.js)$/.exec(result.name);
  return n ? n[1] : "";
}

const keyOf = (result) =>
  /\.test\.js$/.test(result.name) && result.depth === 0
    ? path.basename(result.name)
    : [...result.ancestors, result.name].join(" › ");

/** The first line of a failure (and the next one when the first only introduces it). */
function firstLine(result, root, codex) {
  let text = result.yaml.error ?? "";
  if (/^test failed$/.test(text) && result.comments.length) {
    text = result.comments.find((c) => /error/i.test(c)) ?? result.comments[0];
  }
  const lines = text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  let line = lines[0] ?? result.yaml.failureType ?? "failed";
  if (line.endsWith(":") && lines[1]) line = `${line} ${lines[1]}`;
  return line
    .replaceAll(`${root}/`, "")
    .replaceAll(root, ".")
    .replaceAll(codex, "<codex>")
    .replace(/(\/tmp\/[\w.-]+-)[A-Za-z0-9]{6}\b/g, "$1XXXXXX");
}

/** The failures worth a row: failed tests, and suites whose own hook failed (with their cancelled tests). */
function failuresOf(run, root, codex) {
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

function statusByKey(run) {
  const map = new Map();
  for (const result of run.results) {
    map.set(keyOf(result), result.ok ? "pass" : result.directive ? "skip" : "fail");
  }
  return map;
}

function classify(row, rerun, baseline, pinnedVersion) {
  if (rerun?.get(row.key) === "pass") {
    return { kind: "flaky", label: "flaky (passed when rerun)" };
  }
  if (baseline?.get(row.key) === "fail") {
    return { kind: "pinned-too", label: "fails on the pinned codex too (not drift)" };
  }
  for (const rule of EXPECTED_FAILURES) {
    if (rule.file && rule.file !== row.file) continue;
    if (rule.name && !rule.name.test(row.name)) continue;
    return {
      kind: "expected",
      label: `expected (test pins ${pinnedVersion} on purpose)`,
      why: rule.why,
    };
  }
  return { kind: "real", label: "real behaviour difference" };
}

// ---------------------------------------------------------------------------------------------
// The report

const cell = (text, max = 240) => {
  const flat = String(text).replaceAll("\n", " ");
  return (flat.length > max ? `${flat.slice(0, max)}…` : flat).replaceAll("|", "\\|");
};
const code = (text) => `\`${String(text).replaceAll("`", "'")}\``;
const names = (list) => (list.length ? list.map(code).join(", ") : "—");

function existingNotes(file) {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, "utf8");
  const start = text.indexOf(NOTES_START);
  const end = text.indexOf(NOTES_END);
  if (start < 0 || end < start) return undefined;
  return text.slice(start + NOTES_START.length, end).trim();
}

function renderReport(r) {
  const out = [];
  const p = (line = "") => out.push(line);
  p(`# codex ${r.version} against the pinned ${r.pinnedVersion}`);
  p();
  p(
    `Generated by \`npm run drift\` ([scripts/drift.mjs](${r.scriptLink})) on ${r.date}` +
      `${r.commit ? ` at commit \`${r.commit}\`${r.dirty ? " (plus uncommitted changes)" : ""}` : ""}, node ${process.version}, in ${seconds(r.elapsedMs)}. ` +
      `Everything above "What this means" is regenerated on every run; that section is kept.`,
  );
  p();
  p("| | under test | pinned |");
  p("| --- | --- | --- |");
  p(`| \`codex --version\` | \`${r.versionLine}\` | \`codex-cli ${r.pinnedVersion}\` |`);
  p(`| binary | \`${r.codexShown}\` | bundled \`@openai/codex\` ${r.pinnedVersion} |`);
  p();

  p("## Summary");
  p();
  if (r.protocol) {
    const exp = r.protocol.kinds.filter((k) => k.variant === "experimental");
    const parts = exp.map(
      (k) =>
        `${k.label}: ${k.onlyOld.length} only in ${r.version}, ${k.onlyPinned.length} only in ${r.pinnedVersion}`,
    );
    p(`- **Methods** (experimental API, which codex-harness uses): ${parts.join("; ")}.`);
  } else p(`- **Methods**: not compared (${r.protocolError}).`);
  if (r.schemas) {
    const used = r.schemas.changed.filter((c) => c.used).length;
    p(
      `- **Types**: ${r.schemas.onlyPinned.length} schema definitions only in ${r.pinnedVersion}, ` +
        `${r.schemas.onlyOld.length} only in ${r.version}, ${r.schemas.changed.length} changed ` +
        `(${used} of them named by codex-harness's own code).`,
    );
  }
  if (r.tests) {
    const s = r.tests.summary;
    const counts = Object.entries(r.counts)
      .filter(([, n]) => n > 0)
      .map(([kind, n]) => `${n} ${KIND_TEXT[kind][n === 1 ? 0 : 1]}`)
      .join(", ");
    p(
      `- **Integration tests** with \`CODEX_HARNESS_CODEX_PATH\` = the binary under test: ` +
        `${s.tests ?? "?"} tests, ${s.pass ?? "?"} passed, ${s.fail ?? "?"} failed, ${s.cancelled ?? 0} cancelled` +
        `${counts ? ` — classified below as ${counts}` : ""}.` +
        `${r.tests.timedOut ? " **The run was cut off at the time limit.**" : ""}`,
    );
  }
  p();

  p("## Method lists");
  p();
  if (r.protocol) {
    p(
      `The binary's own \`app-server generate-json-schema\` (with and without \`--experimental\`; ` +
        `methods from the \`ClientRequest\`, \`ServerNotification\` and \`ServerRequest\` schemas) ` +
        `against the committed \`src/protocol/method-map.ts\` (${r.pinnedVersion}).`,
    );
    p();
    p(
      `| methods | API | ${r.version} | ${r.pinnedVersion} | only in ${r.version} | only in ${r.pinnedVersion} |`,
    );
    p("| --- | --- | ---: | ---: | ---: | ---: |");
    for (const k of r.protocol.kinds) {
      p(
        `| ${k.label} | ${k.variant} | ${k.oldCount} | ${k.pinnedCount} | ${k.onlyOld.length} | ${k.onlyPinned.length} |`,
      );
    }
    p();
    for (const k of r.protocol.kinds.filter((x) => x.variant === "experimental")) {
      const stable = r.protocol.kinds.find((x) => x.variant === "stable" && x.label === k.label);
      const stableSet = new Set([...(stable?.onlyPinned ?? []), ...(stable?.onlyOld ?? [])]);
      const mark = (list) =>
        list.length
          ? list.map((m) => `${code(m)}${stableSet.has(m) ? "" : " (experimental)"}`).join(", ")
          : "—";
      p(`- ${k.label} only in ${r.pinnedVersion}: ${mark(k.onlyPinned)}`);
      p(`- ${k.label} only in ${r.version}: ${mark(k.onlyOld)}`);
    }
    const tsOnly = r.protocol.kinds
      .filter((k) => k.variant === "experimental")
      .flatMap((k) => k.tsOnly);
    if (tsOnly.length) {
      p();
      p(
        `Not counted as differences: ${names(tsOnly)} are in the TypeScript bindings (\`generate-ts\`, ` +
          `from which the method map is derived) of both releases but in the JSON schema of neither.`,
      );
    }
    if (r.protocol.tsError) p(`\n(\`generate-ts\` failed: ${r.protocol.tsError}.)`);
  } else {
    p(`Not compared: ${r.protocolError}.`);
  }
  p();

  if (r.schemas) {
    const s = r.schemas;
    p("## Types (JSON schema definitions)");
    p();
    p(
      `The binary's \`generate-json-schema --experimental\` bundle (${s.oldCount} definitions) against the committed ` +
        `\`src/protocol/generated/schema\` (${s.pinnedCount}). ${s.descriptionsOnly} more differ only in their descriptions. ` +
        `In the changes, \`+x\` is a property only ${r.pinnedVersion} has, \`-x\` one only ${r.version} has, ` +
        `\`~x\` one whose type changed, \`values\` the strings an enum allows; \`tag (…)\` is a change inside one variant of a union.`,
    );
    p();
    p(`- Only in ${r.pinnedVersion} (${s.onlyPinned.length}): ${names(s.onlyPinned)}`);
    p(`- Only in ${r.version} (${s.onlyOld.length}): ${names(s.onlyOld)}`);
    p();
    const used = s.changed.filter((c) => c.used);
    p(
      `Changed types that codex-harness's own code (\`src/\`, not the generated bindings) names (${used.length}):`,
    );
    p();
    if (used.length) {
      p("| type | change |");
      p("| --- | --- |");
      for (const c of used) p(`| ${code(c.name)} | ${cell(c.change, 2000)} |`);
    } else p("None.");
    p();
    const rest = s.changed.filter((c) => !c.used);
    p(`<details><summary>The other ${rest.length} changed types</summary>`);
    p();
    p("| type | change |");
    p("| --- | --- |");
    for (const c of rest) p(`| ${code(c.name)} | ${cell(c.change, 2000)} |`);
    p();
    p("</details>");
    p();
  }

  p("## Integration tests");
  p();
  if (r.tests) {
    const s = r.tests.summary;
    p(
      `\`node --test --test-concurrency=2 --test-timeout=${TEST_TIMEOUT_MS} --test-reporter=tap build/test/integration/*.test.js\` ` +
        `(${r.testFiles} files, run from a snapshot of \`build/\`) with \`CODEX_HARNESS_CODEX_PATH\` set to the binary under test. ` +
        `Tests that pass \`codexPathOverride\` (fake servers, missing or wrong binaries) do not exercise it.`,
    );
    p();
    p("| tests | passed | failed | cancelled | skipped | time |");
    p("| ---: | ---: | ---: | ---: | ---: | ---: |");
    p(
      `| ${s.tests ?? "?"} | ${s.pass ?? "?"} | ${s.fail ?? "?"} | ${s.cancelled ?? 0} | ${s.skipped ?? 0} | ${seconds(r.tests.elapsedMs)} |`,
    );
    p();
    if (r.tests.timedOut)
      p("**The run was cut off at the time limit**; the counts are of what finished.\n");
    p(
      `Each failing file was then rerun on the same binary (${r.rerunNote}) and on the pinned codex (${r.baselineNote}), ` +
        `which tells flaky tests and tests that fail on the pinned codex too apart from drift.`,
    );
    p();
    if (r.rows.length) {
      p("| test | file | classification | first line of the failure |");
      p("| --- | --- | --- | --- |");
      for (const row of r.rows) {
        const name = row.cancelled
          ? `${row.name} (its hook failed: ${row.cancelled} tests cancelled)`
          : row.name;
        p(`| ${cell(name)} | ${code(row.file)} | ${row.class.label} | ${code(cell(row.reason))} |`);
      }
      p();
      const expected = r.rows.filter((row) => row.class.kind === "expected");
      if (expected.length) {
        p("Why the expected ones fail:");
        p();
        for (const row of expected) p(`- ${cell(row.name)}: ${row.class.why}.`);
        p();
      }
    } else {
      p("No test failed.");
      p();
    }
  } else {
    p(`Not run: ${r.testsError}.`);
    p();
  }

  p("## What this means");
  p();
  p(NOTES_START);
  p(r.notes ?? placeholderNotes(r));
  p(NOTES_END);
  p();
  p("## Reproduce");
  p();
  p("```sh");
  p(`npm run drift${r.codexArg ? ` -- --codex ${r.codexArg}` : ""}`);
  p("```");
  p();
  return out.join("\n");
}

const KIND_TEXT = {
  real: ["real behaviour difference", "real behaviour differences"],
  expected: ["expected (pinned on purpose)", "expected (pinned on purpose)"],
  flaky: ["flaky", "flaky"],
  "pinned-too": ["failing on the pinned codex too", "failing on the pinned codex too"],
};

function placeholderNotes(r) {
  const real = (r.rows ?? []).filter((row) => row.class.kind === "real");
  const lines = [
    "_Not written yet: read the failures above and say here what changed in codex and what it means for codex-harness. `npm run drift` keeps this section when it regenerates the report._",
  ];
  if (real.length) {
    lines.push("", "Real behaviour differences to explain:", "");
    for (const row of real) lines.push(`- ${row.name} (${row.file})`);
  }
  return lines.join("\n");
}

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
  const pinnedVersion = readJson(
    path.join(repoRoot, "node_modules/@openai/codex/package.json"),
  ).version;
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
  };
  try {
    report.commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "ignore"],
    })
      .toString()
      .trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "ignore"],
    }).toString();
    report.dirty = dirty.trim() !== "";
  } catch {
    // not a git checkout
  }

  try {
    await snapshotBuild(root);
    log("snapshot of build/ taken");

    // (b) method lists and types
    try {
      const methodMap = await import(
        pathToFileURL(path.join(root, "build/src/protocol/method-map.js")).href
      );
      const pinnedSchemaDir = path.join(root, "src/protocol/generated/schema");
      report.protocol = await compareProtocol(options.codex, work, methodMap, pinnedSchemaDir);
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
    const envFor = (codex) => {
      const env = { ...process.env };
      delete env.CODEX_HARNESS_CODEX_PATH;
      if (codex) env.CODEX_HARNESS_CODEX_PATH = codex;
      // The schema validate checks against is the pinned release's: another release's messages
      // are compared schema to schema above, not refused one by one (unless asked for).
      env.CODEX_HARNESS_VALIDATE ??= "off";
      return env;
    };
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
  for (const child of children) killGroup(child);
  process.exit(1);
}, OVERALL_MS + 30_000);
watchdog.unref();
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    for (const child of children) killGroup(child);
    process.exit(130);
  });
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`drift: ${error instanceof CannotRun ? error.message : (error.stack ?? error)}`);
    for (const child of children) killGroup(child);
    process.exit(1);
  },
);
