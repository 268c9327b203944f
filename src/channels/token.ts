// The runtime's bearer token: `<data-dir>/token`, generated on first start with mode 0600.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { CodexHarnessError } from "../errors.js";

/** The token file of a data directory. */
export function tokenFile(dataDir: string): string {
  return path.join(path.resolve(dataDir), "token");
}

/** Reads the token, creating it (0600) when missing. `created` says whether this call made it. */
export async function loadOrCreateToken(
  dataDir: string,
): Promise<{ token: string; file: string; created: boolean }> {
  const file = tokenFile(dataDir);
  const existing = await readToken(file);
  if (existing) return { token: existing, file, created: false };
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
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

/** The token in `file`, or undefined when there is none. */
export async function readToken(file: string): Promise<string | undefined> {
  try {
    const token = (await readFile(file, "utf8")).trim();
    if (token === "") {
      throw new CodexHarnessError(
        "invalid_token_file",
        `The token file ${file} is empty; delete it to make a new token.`,
      );
    }
    return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Compares two tokens in constant time. */
export function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
