// Owner-only files and folders of codex homes: config.toml and mcp.json may hold MCP env secrets.
import { chmod, writeFile } from "node:fs/promises";

/** Mode of a codex home folder (installed or per session). */
export const PRIVATE_DIR = 0o700;
/** Mode of a codex home's config.toml and mcp.json. */
export const PRIVATE_FILE = 0o600;
/** The files of a codex home that are kept {@link PRIVATE_FILE}. */
export const PRIVATE_FILES = ["config.toml", "mcp.json"] as const;

/** Writes a new file (failing if it exists) with mode {@link PRIVATE_FILE}, whatever the umask. */
export async function writePrivate(file: string, text: string): Promise<void> {
  await writeFile(file, text, { mode: PRIVATE_FILE, flag: "wx" });
  await chmod(file, PRIVATE_FILE);
}
