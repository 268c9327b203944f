// The release train: takes a new codex release from the drift report to the pin, the regenerated bindings, the build, the compat matrix and docs/compat.md, stopping at the first step that needs a person.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { defaultCacheDir, ensureRelease } from "./lib/codex-releases.js";
import { compareVersions, pinnedCodexVersion, readJson, repoRoot } from "./lib/common.js";

const STEPS = ["drift", "pin", "generate", "build", "matrix"];
const VERSIONS_FILE = path.join(repoRoot, "scripts/compat-versions.json");

const USAGE = `Usage: npm run release-train -- <version> [--from <step>] [--skip <step,…>] [--matrix all|new|none] [--cache <dir>]

Takes codex <version> (published on npm) through these steps, in order, each in this checkout:

  drift     download it (cached) and write docs/drift/codex-<version>.md: its protocol against the
            pinned one's, and the integration tests run on it (npm run drift -- --codex <binary>)
  pin       npm install @openai/codex@<version> --save-exact (package.json, package-lock.json)
  generate  npm run generate:protocol: src/protocol/generated/ and method-map.ts; it stops, writing
            nothing, when a method's result type cannot be derived, naming the line to add
  build     npm run build: what the new release broke fails to compile here (a server request it
            removed: keep it answered with a hand-kept type in src/protocol/removed.ts)
  matrix    add <version> to scripts/compat-versions.json and run npm run compat: the new release
            alone with the others' last results kept (--matrix new), every release (all, the
            default), or nothing (none); it rewrites docs/compat.md

  --from <step>     start there (after fixing what stopped an earlier run)
  --skip <steps>    leave these out (comma-separated)
  --matrix <which>  all (default), new or none
  --cache <dir>     where releases are kept (default: ${defaultCacheDir()})

It stops at the first step that fails, saying what to do and how to continue (--from). What it
leaves to a person: fixing the build, the notes of the drift report, docs/protocol.md's counts
and the facts in the docs that changed, and committing.`;

function parseArgs(argv) {
  const options = { skip: new Set(), matrix: "all", cache: defaultCacheDir() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (!next) fail(`${arg} needs a value.\n\n${USAGE}`);
      return next;
    };
    if (arg === "--help" || arg === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else if (arg === "--from") options.from = value();
    else if (arg === "--skip") for (const step of value().split(",")) options.skip.add(step);
    else if (arg === "--matrix") options.matrix = value();
    else if (arg === "--cache") options.cache = path.resolve(value());
    else if (/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(arg) && !options.version) options.version = arg;
    else fail(`Unknown argument ${arg}.\n\n${USAGE}`);
  }
  if (!options.version) fail(`Which release? \n\n${USAGE}`);
  for (const step of [options.from, ...options.skip].filter(Boolean)) {
    if (!STEPS.includes(step)) fail(`No step "${step}"; the steps are ${STEPS.join(", ")}.`);
  }
  if (!["all", "new", "none"].includes(options.matrix)) {
    fail(`--matrix takes all, new or none, not "${options.matrix}".`);
  }
  return options;
}

function fail(message) {
  console.error(`release-train: ${message}`);
  process.exit(1);
}

const log = (message) => console.log(`\n[release-train] ${message}`);

/** Runs a command in the checkout, its output shown; resolves with whether it exited 0. */
function sh(command, args) {
  console.log(`$ ${[command, ...args].join(" ")}`);
  const npm = process.platform === "win32" && command === "npm" ? "npm.cmd" : command;
  return spawnSync(npm, args, { cwd: repoRoot, stdio: "inherit" }).status === 0;
}

/** Stops the train at `step`, saying what to do, and how to go on. */
function stopAt(step, version, what) {
  fail(
    `stopped at "${step}": ${what}\nWhen it is fixed: npm run release-train -- ${version} --from ${step}`,
  );
}

/** Adds `version` to scripts/compat-versions.json, oldest first; says whether it was new. */
export function addToMatrix(version, file = VERSIONS_FILE) {
  const json = readJson(file);
  if (json.versions.includes(version)) return false;
  json.versions = [...json.versions, version].sort(compareVersions);
  writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
  return true;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const { version } = options;
  const start = options.from ? STEPS.indexOf(options.from) : 0;
  const runs = (step) => STEPS.indexOf(step) >= start && !options.skip.has(step);
  const pinnedBefore = pinnedCodexVersion();
  log(`codex ${version}; pinned now: ${pinnedBefore}`);

  if (runs("drift")) {
    log(`drift: ${version} against the pinned ${pinnedBefore}`);
    const { binary, downloaded } = await ensureRelease(version, { cacheDir: options.cache });
    console.log(`${downloaded ? "downloaded" : "cached"}: ${binary}`);
    if (!sh("npm", ["run", "drift", "--", "--codex", binary])) {
      stopAt("drift", version, "the drift report could not be written (see above).");
    }
  }

  if (runs("pin")) {
    log(`pin: @openai/codex ${version}`);
    if (!sh("npm", ["install", `@openai/codex@${version}`, "--save-exact"])) {
      stopAt("pin", version, "npm could not install it (see above).");
    }
    const pinned = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8"))
      .dependencies["@openai/codex"];
    if (pinned !== version || pinnedCodexVersion() !== version) {
      stopAt(
        "pin",
        version,
        `package.json pins ${pinned}, node_modules has ${pinnedCodexVersion()}.`,
      );
    }
  }

  if (runs("generate")) {
    log("generate: the protocol bindings from the pinned binary");
    if (!sh("npm", ["run", "generate:protocol"])) {
      stopAt(
        "generate",
        version,
        "the bindings were not regenerated (nothing was written). Do what the message above says " +
          "(e.g. add a RESULT_TYPE_EXCEPTIONS line in scripts/generate-protocol.ts).",
      );
    }
  }

  if (runs("build")) {
    log("build: the code against the new bindings");
    if (!sh("npm", ["run", "build"])) {
      stopAt(
        "build",
        version,
        "the code does not compile against the new bindings. A server request the release " +
          "removed is kept answered with a hand-kept type in src/protocol/removed.ts, labelled with " +
          "the releases that send it; a new server request fails EVERY_SERVER_REQUEST_ANSWERED " +
          "(src/events/server-requests/index.ts) until it has a spec.",
      );
    }
  }

  if (runs("matrix")) {
    if (addToMatrix(version)) log(`matrix: ${version} added to scripts/compat-versions.json`);
    if (options.matrix !== "none") {
      const args =
        options.matrix === "new"
          ? ["run", "compat", "--", version, "--merge"]
          : ["run", "compat", "--"];
      log(`matrix: ${options.matrix === "new" ? version : "every release"} (npm run compat)`);
      if (!sh("npm", [...args, "--cache", options.cache])) {
        stopAt("matrix", version, "the compat run did not write docs/compat.md (see above).");
      }
    }
  }

  log(
    `done. Left to do: read docs/drift/codex-${version}.md and write its notes; update ` +
      "docs/protocol.md (method counts, the compatibility section) and the docs whose facts " +
      "changed; run the suite (npm test); commit.",
  );
}

main().catch((error) => fail(error.stack ?? String(error)));
