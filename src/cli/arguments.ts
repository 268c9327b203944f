// Checks of what the user typed, before anything runs: each error names the flag and the value.
import { statSync } from "node:fs";
import path from "node:path";
import { InvalidArgumentError } from "commander";

/** A commander parser for a whole number of at least `min` (e.g. `--timeout`, `--port`). */
export function wholeNumber(min = 0): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (value.trim() === "" || !Number.isInteger(number) || number < min) {
      throw new InvalidArgumentError(
        `expected a whole number >= ${min}, got ${JSON.stringify(value)}.`,
      );
    }
    return number;
  };
}

/** A commander parser for a TCP port, 0 (any free one) to 65535. */
export function portNumber(value: string): number {
  const port = wholeNumber(0)(value);
  if (port > 65_535) throw new InvalidArgumentError(`a port is at most 65535, got ${port}.`);
  return port;
}

/**
 * A commander parser for `--codex-path`: a path (with a "/") must be an existing file; a bare
 * command name is looked up on PATH when codex starts.
 */
export function codexPath(value: string): string {
  if (!value.includes("/") && !value.includes("\\")) return value;
  let isFile = false;
  try {
    isFile = statSync(value).isFile();
  } catch {
    // Missing or unreadable: said below.
  }
  if (!isFile) {
    throw new InvalidArgumentError(
      `${JSON.stringify(value)} is not a file; give the codex executable, or leave the flag out to use the bundled one.`,
    );
  }
  return value;
}

/** A commander parser for a folder that must exist (e.g. `--project`). */
export function existingFolder(value: string): string {
  const problem = folderProblem(value);
  if (problem) throw new InvalidArgumentError(problem);
  return value;
}

/** Why `value` is not an existing folder here, or undefined when it is one. */
export function folderProblem(value: string): string | undefined {
  let isFolder = false;
  try {
    isFolder = statSync(value).isDirectory();
  } catch {
    // Missing or unreadable: said below.
  }
  return isFolder ? undefined : `${JSON.stringify(value)} is not a folder.`;
}

/** Why `value` cannot be a working directory on a remote machine (it must be absolute there). */
export function remoteFolder(value: string): string | undefined {
  return path.isAbsolute(value)
    ? undefined
    : `With --remote, give an absolute path on the remote machine (${JSON.stringify(value)} is relative to nothing there).`;
}

/** A commander parser for an http(s) address (e.g. a channels runtime's `--channels`). */
export function httpUrl(value: string): string {
  let protocol = "";
  try {
    protocol = new URL(value).protocol;
  } catch {
    // Not a URL: said below.
  }
  if (protocol !== "http:" && protocol !== "https:") {
    throw new InvalidArgumentError(
      `expected an http(s) address, e.g. http://127.0.0.1:4317; got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}
