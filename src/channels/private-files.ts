// Files of the runtime's data directory stay the owner's: the folder 0700, its files 0600, even
// when they already exist with wider modes (chmod, not only a creation mode).
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";
import path from "node:path";
import { CodexHarnessError } from "../errors.js";

/**
 * Creates `dir` (and its parents) when missing, then makes it 0700. Fails with
 * `data_dir_unusable` naming the folder when it cannot be made (Node's own recursive mkdir spins
 * forever on a path under /proc, so the levels are made one at a time).
 */
export function ensurePrivateDir(dir: string): void {
  try {
    makeDir(path.resolve(dir));
    const mode = statSync(dir).mode;
    // A folder others write to (/tmp, 1777) is not ours to close: that would lock them out.
    if ((mode & STICKY) !== 0 || (mode & 0o002) !== 0) {
      throw new Error(
        `it is shared with other users (mode ${(mode & 0o7777).toString(8)}), so it is not made private; give a folder of its own, e.g. ${path.join(dir, "codex-harness")}`,
      );
    }
    chmodSync(dir, 0o700);
  } catch (error) {
    throw new CodexHarnessError(
      "data_dir_unusable",
      `Cannot use ${dir} as the data directory: ${(error as Error).message}. Give a folder you can write (--data-dir).`,
      { cause: error },
    );
  }
}

const STICKY = 0o1000;

function makeDir(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    const parent = path.dirname(dir);
    if (code !== "ENOENT" || parent === dir) throw error;
    makeDir(parent);
    mkdirSync(dir, { mode: 0o700 });
  }
}

/** Creates `file` empty (0600) when missing; makes it 0600 either way. */
export function ensurePrivateFile(file: string): void {
  closeSync(openSync(file, "a", 0o600));
  chmodSync(file, 0o600);
}

/** Makes each of `files` that exists 0600 (missing ones are skipped). */
export function restrictFiles(files: readonly string[]): void {
  for (const file of files) {
    try {
      chmodSync(file, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
}
