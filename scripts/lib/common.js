// What the drift and compat scripts share: the repo root, short commands with a time limit, JSON, Markdown cells, kept notes, git facts.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
export const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Runs a short command; resolves with its stdout or rejects with a one-line reason. Killed at
 * `timeoutMs` (at least one second).
 */
export function runQuick(file, args, timeoutMs = 60_000) {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { timeout: Math.max(1000, timeoutMs), maxBuffer: 64 * 1024 * 1024 },
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

export function readJson(file) {
  return JSON.parse(readFileSync(file, "utf8"));
}

/** Orders release versions by their numbers (`0.99.0` before `0.150.0`), for `sort`. */
export function compareVersions(a, b) {
  const parts = (v) => v.split(/[.-]/).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const [pa, pb] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const [x, y] = [pa[i], pb[i]];
    if (x === y) continue;
    // A pre-release (`0.171.0-alpha.1`) comes before its release.
    if (x === undefined) return typeof y === "string" ? 1 : -1;
    if (y === undefined) return typeof x === "string" ? -1 : 1;
    if (typeof x === "number" && typeof y === "number") return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

/** The version of the codex codex-harness pins (its `@openai/codex` dependency as installed). */
export function pinnedCodexVersion() {
  return readJson(path.join(repoRoot, "node_modules/@openai/codex/package.json")).version;
}

/** The short commit of the repo and whether tracked files have uncommitted changes. */
export function gitState() {
  try {
    const run = (args) =>
      execFileSync("git", args, { cwd: repoRoot, stdio: ["ignore", "pipe", "ignore"] })
        .toString()
        .trim();
    return {
      commit: run(["rev-parse", "--short", "HEAD"]),
      dirty: run(["status", "--porcelain", "--untracked-files=no"]) !== "",
    };
  } catch {
    return {}; // not a git checkout
  }
}

// Markdown
export const cell = (text, max = 240) => {
  const flat = String(text).replaceAll("\n", " ");
  return (flat.length > max ? `${flat.slice(0, max)}…` : flat).replaceAll("|", "\\|");
};
export const code = (text) => `\`${String(text).replaceAll("`", "'")}\``;
export const names = (list) => (list.length ? list.map(code).join(", ") : "—");

export const NOTES_START = "<!-- notes:start -->";
export const NOTES_END = "<!-- notes:end -->";

/** The hand-written section between the notes markers of an earlier report, if any. */
export function existingNotes(file) {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, "utf8");
  const start = text.indexOf(NOTES_START);
  const end = text.indexOf(NOTES_END);
  if (start < 0 || end < start) return undefined;
  return text.slice(start + NOTES_START.length, end).trim();
}
