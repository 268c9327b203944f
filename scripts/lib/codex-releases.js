// Codex releases from the npm registry, kept in a cache folder outside the repo: one folder per version, downloaded once.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

/** The npm tag of each platform's binary package (`@openai/codex@<version>-<tag>`). */
const PLATFORM_TAGS = {
  "linux-x64": { tag: "linux-x64", target: "x86_64-unknown-linux-musl" },
  "linux-arm64": { tag: "linux-arm64", target: "aarch64-unknown-linux-musl" },
  "darwin-x64": { tag: "darwin-x64", target: "x86_64-apple-darwin" },
  "darwin-arm64": { tag: "darwin-arm64", target: "aarch64-apple-darwin" },
};

/** `$XDG_CACHE_HOME/codex-harness/codex-releases`, else `~/.cache/codex-harness/codex-releases`. */
export function defaultCacheDir(env = process.env) {
  const base = env.XDG_CACHE_HOME || path.join(homedir(), ".cache");
  return path.join(base, "codex-harness", "codex-releases");
}

function platform() {
  const key = `${process.platform}-${process.arch}`;
  const found = PLATFORM_TAGS[key];
  if (!found) throw new Error(`No published codex binary for ${key}.`);
  return found;
}

/** Where a cached release's binary is (whether or not it is there yet). */
export function cachedBinary(cacheDir, version) {
  const { target } = platform();
  return path.join(cacheDir, version, "package", "vendor", target, "bin", "codex");
}

function run(file, args, { cwd, timeoutMs }) {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      // npm reads the user's ~/.npmrc (registry, proxy): it gets the real environment.
      { cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, env: process.env },
      (error, stdout, stderr) => {
        if (error) {
          const detail = String(stderr || error.message)
            .split("\n")
            .map((line) => line.trim())
            .filter((line) => line && !/^npm warn/i.test(line))
            .slice(-2)
            .join(" ");
          reject(new Error(`${file} ${args.join(" ")}: ${detail || error.message}`));
        } else resolve(String(stdout));
      },
    );
  });
}

/**
 * Makes sure `version`'s binary is in the cache: `npm pack @openai/codex@<version>-<platform>`
 * into a temporary folder next to it, extracted there and renamed into place, so that an
 * interrupted download never leaves a half folder that looks cached. Resolves with the binary's
 * path and whether it was downloaded now.
 */
export async function ensureRelease(version, { cacheDir, timeoutMs = 5 * 60_000 }) {
  const binary = cachedBinary(cacheDir, version);
  if (existsSync(binary)) return { binary, downloaded: false };
  const { tag } = platform();
  mkdirSync(cacheDir, { recursive: true });
  const staging = mkdtempSync(path.join(cacheDir, `.download-${version}-`));
  const began = Date.now();
  const remaining = () => Math.max(1000, timeoutMs - (Date.now() - began));
  try {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    await run(npm, ["pack", `@openai/codex@${version}-${tag}`, "--pack-destination", staging], {
      cwd: staging,
      timeoutMs: remaining(),
    });
    const tarball = readdirSync(staging).find((name) => name.endsWith(".tgz"));
    if (!tarball) throw new Error(`npm pack left no tarball for ${version}-${tag}.`);
    const into = path.join(staging, "release");
    mkdirSync(into);
    await run("tar", ["-xzf", path.join(staging, tarball), "-C", into], {
      cwd: staging,
      timeoutMs: remaining(),
    });
    const extracted = path.join(into, path.relative(path.join(cacheDir, version), binary));
    if (!existsSync(extracted)) {
      throw new Error(`The ${version}-${tag} package has no ${path.relative(into, extracted)}.`);
    }
    rmSync(path.join(cacheDir, version), { recursive: true, force: true });
    renameSync(into, path.join(cacheDir, version));
    return { binary, downloaded: true };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
