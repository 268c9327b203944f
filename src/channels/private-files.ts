// Files of the runtime's data directory stay the owner's: the folder 0700, its files 0600, even
// when they already exist with wider modes (chmod, not only a creation mode).
import { chmodSync, closeSync, mkdirSync, openSync } from "node:fs";

/** Creates `dir` (and its parents) when missing, then makes it 0700. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
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
