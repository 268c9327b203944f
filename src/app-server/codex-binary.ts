// Finds the codex executable: an explicit path, an env var, or the pinned @openai/codex platform package.
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { CodexHarnessError } from "../errors.js";

/** The environment variable that overrides where the codex binary is found. */
export const CODEX_PATH_ENV = "CODEX_HARNESS_CODEX_PATH";

const PLATFORM_PACKAGE_BY_TARGET: Record<string, string> = {
  "x86_64-unknown-linux-musl": "@openai/codex-linux-x64",
  "aarch64-unknown-linux-musl": "@openai/codex-linux-arm64",
  "x86_64-apple-darwin": "@openai/codex-darwin-x64",
  "aarch64-apple-darwin": "@openai/codex-darwin-arm64",
  "x86_64-pc-windows-msvc": "@openai/codex-win32-x64",
  "aarch64-pc-windows-msvc": "@openai/codex-win32-arm64",
};

const TARGET_BY_PLATFORM_ARCH: Record<string, string> = {
  "linux-x64": "x86_64-unknown-linux-musl",
  "linux-arm64": "aarch64-unknown-linux-musl",
  "android-x64": "x86_64-unknown-linux-musl",
  "android-arm64": "aarch64-unknown-linux-musl",
  "darwin-x64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin",
  "win32-x64": "x86_64-pc-windows-msvc",
  "win32-arm64": "aarch64-pc-windows-msvc",
};

/** Where the codex binary is, and the folders codex expects on PATH (e.g. its bundled `rg`). */
export interface CodexBinary {
  executablePath: string;
  /** Folders to prepend to PATH when spawning codex. */
  pathDirs: string[];
  /** How the binary was found. */
  source: "option" | "env" | "package";
}

export interface FindCodexBinaryOptions {
  /**
   * The codex executable: a path, or a bare command name (`"codex"`) looked up on the PATH of
   * `env`, as `spawn` would run it. Wins over everything else.
   */
  codexPathOverride?: string | undefined;
  /**
   * The environment codex will get: {@link CODEX_PATH_ENV} is read from it, and a bare command
   * name is looked up on its PATH (on `process.env`'s when it has none). Default `process.env`.
   */
  env?: Record<string, string | undefined> | undefined;
}

/**
 * Finds the codex executable the way `@openai/codex-sdk` does (the platform package's vendor
 * folder, resolved from `@openai/codex`), unless `codexPathOverride` or the
 * `CODEX_HARNESS_CODEX_PATH` environment variable names one (a path, or a command on PATH).
 */
export function findCodexBinary(options: FindCodexBinaryOptions = {}): CodexBinary {
  const env = options.env ?? process.env;
  if (options.codexPathOverride) {
    return explicitBinary(options.codexPathOverride, "option", "the codexPathOverride option", env);
  }
  const fromEnv = env[CODEX_PATH_ENV];
  if (fromEnv) {
    return explicitBinary(fromEnv, "env", `the ${CODEX_PATH_ENV} environment variable`, env);
  }
  return packagedBinary();
}

function explicitBinary(
  executablePath: string,
  source: "option" | "env",
  origin: string,
  env: Record<string, string | undefined>,
): CodexBinary {
  if (isCommandName(executablePath)) {
    const found = findOnPath(executablePath, env);
    if (!found) {
      throw new CodexHarnessError(
        "codex_not_found",
        `No ${JSON.stringify(executablePath)} command (given by ${origin}) on the PATH codex would run with (${pathOf(env) || "empty"}). Put codex on that PATH, give the full path to the executable, or unset it to use the bundled @openai/codex.`,
      );
    }
    return { executablePath: found, pathDirs: [], source };
  }
  if (!isFile(executablePath)) {
    throw new CodexHarnessError(
      "codex_not_found",
      `The codex binary ${JSON.stringify(executablePath)} given by ${origin} does not exist or is not a file. Point it at a codex executable, or unset it to use the bundled @openai/codex.`,
    );
  }
  return { executablePath, pathDirs: [], source };
}

/** A bare command name (no folder in it), which `spawn` looks up on PATH. */
function isCommandName(name: string): boolean {
  return !name.includes("/") && !(process.platform === "win32" && name.includes("\\"));
}

/** The PATH of `env` (any case on Windows), else this process's. */
function pathOf(env: Record<string, string | undefined>): string {
  const key =
    process.platform === "win32"
      ? Object.keys(env).findLast((name) => name.toLowerCase() === "path")
      : "PATH";
  return (key === undefined ? undefined : env[key]) ?? process.env.PATH ?? "";
}

/**
 * Where `spawn` would find `name`: the first executable file of that name in the PATH folders
 * (on Windows also with each PATHEXT extension). Relative folders are taken from the cwd.
 */
function findOnPath(name: string, env: Record<string, string | undefined>): string | undefined {
  const extensions =
    process.platform === "win32"
      ? ["", ...(env.PATHEXT ?? process.env.PATHEXT ?? ".EXE;.CMD;.BAT;.COM").split(";")]
      : [""];
  for (const dir of pathOf(env).split(path.delimiter)) {
    if (dir === "") continue;
    for (const extension of extensions) {
      const candidate = path.resolve(dir, name + extension);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return undefined;
}

function isExecutableFile(p: string): boolean {
  if (!isFile(p)) return false;
  if (process.platform === "win32") return true;
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function packagedBinary(): CodexBinary {
  const target = TARGET_BY_PLATFORM_ARCH[`${process.platform}-${process.arch}`];
  const platformPackage = target ? PLATFORM_PACKAGE_BY_TARGET[target] : undefined;
  if (!target || !platformPackage) {
    throw new CodexHarnessError(
      "codex_not_found",
      `@openai/codex ships no binary for ${process.platform}-${process.arch}. Install codex yourself and set ${CODEX_PATH_ENV} or the codexPathOverride option.`,
    );
  }
  let vendorRoot: string;
  try {
    const moduleRequire = createRequire(import.meta.url);
    const codexPackageJson = moduleRequire.resolve("@openai/codex/package.json");
    const codexRequire = createRequire(codexPackageJson);
    vendorRoot = path.join(
      path.dirname(codexRequire.resolve(`${platformPackage}/package.json`)),
      "vendor",
    );
  } catch (cause) {
    throw new CodexHarnessError(
      "codex_not_found",
      `Cannot find ${platformPackage} (the codex binary for this platform). Reinstall with optional dependencies (npm install --include=optional), or set ${CODEX_PATH_ENV}.`,
      { cause },
    );
  }
  const binaryName = process.platform === "win32" ? "codex.exe" : "codex";
  const packageRoot = path.join(vendorRoot, target);
  const executablePath = path.join(packageRoot, "bin", binaryName);
  if (!isFile(executablePath)) {
    throw new CodexHarnessError(
      "codex_not_found",
      `${platformPackage} is installed but has no ${path.join("bin", binaryName)} under ${packageRoot}. Reinstall @openai/codex, or set ${CODEX_PATH_ENV}.`,
    );
  }
  const pathDir = path.join(packageRoot, "codex-path");
  return {
    executablePath,
    pathDirs: isDirectory(pathDir) ? [pathDir] : [],
    source: "package",
  };
}

function isFile(p: string): boolean {
  return existsSync(p) && statSync(p).isFile();
}

function isDirectory(p: string): boolean {
  return existsSync(p) && statSync(p).isDirectory();
}
