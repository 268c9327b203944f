// The runtime's bearer token: `<data-dir>/token`, generated on first start with mode 0600. An
// existing one is used only when it is a regular file (not a symlink) that only its owner can
// read or write, and long enough to resist guessing.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { constants } from "node:fs";
import { chmod, type FileHandle, open, writeFile } from "node:fs/promises";
import path from "node:path";
import { CodexHarnessError } from "../errors.js";
import { ensurePrivateDir } from "./private-files.js";

/** Shortest token accepted from an existing token file (a generated one has 43 characters). */
export const MIN_TOKEN_LENGTH = 32;

/** The token file of a data directory. */
export function tokenFile(dataDir: string): string {
  return path.join(path.resolve(dataDir), "token");
}

/**
 * Reads the token, creating it (0600) when missing; the data directory is made 0700. `created`
 * says whether this call made it. Rejects like {@link readToken} for an unsafe existing file.
 */
export async function loadOrCreateToken(
  dataDir: string,
): Promise<{ token: string; file: string; created: boolean }> {
  const file = tokenFile(dataDir);
  ensurePrivateDir(path.dirname(file));
  const existing = await readToken(file);
  if (existing) return { token: existing, file, created: false };
  const token = randomBytes(32).toString("base64url");
  try {
    await writeFile(file, `${token}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    // Another runtime on this data directory made it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      const theirs = await readToken(file);
      if (theirs) return { token: theirs, file, created: false };
    }
    throw error;
  }
  await chmod(file, 0o600);
  return { token, file, created: true };
}

/**
 * The token in `file`, or undefined when there is none. Rejects with code `unsafe_token_file`
 * when the file is a symlink or not a regular file, can be read or written by group or others,
 * or holds fewer than {@link MIN_TOKEN_LENGTH} characters; `invalid_token_file` when it is empty.
 * The message says what to do.
 */
export async function readToken(file: string): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP" || code === "EMLINK") {
      throw unsafe(
        file,
        "is a symbolic link; replace it with the token file itself (or delete it: a new token is made on the next start)",
        error,
      );
    }
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw unsafe(file, "is not a regular file; delete it");
    if (process.platform !== "win32" && (info.mode & 0o077) !== 0) {
      throw unsafe(
        file,
        `has mode ${(info.mode & 0o777).toString(8).padStart(4, "0")}, so others may have read it; delete it to make a new token (or, if it never left your account, run chmod 600 on it)`,
      );
    }
    const token = (await handle.readFile("utf8")).trim();
    if (token === "") {
      throw new CodexHarnessError(
        "invalid_token_file",
        `The token file ${file} is empty; delete it to make a new token.`,
      );
    }
    if (token.length < MIN_TOKEN_LENGTH) {
      throw unsafe(
        file,
        `holds a token of ${token.length} characters, fewer than ${MIN_TOKEN_LENGTH}; delete it to make a new one, or write a longer random one`,
      );
    }
    return token;
  } finally {
    await handle.close();
  }
}

function unsafe(file: string, problem: string, cause?: unknown): CodexHarnessError {
  return new CodexHarnessError(
    "unsafe_token_file",
    `The token file ${file} ${problem}.`,
    cause === undefined ? {} : { cause },
  );
}

/** Compares two tokens in constant time. */
export function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
