// A session's thread moving between workers: its codex rollout, found in one session home after a
// turn, stored compressed, and put back into another's before the next.
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { isRunning } from "../app-server/process-sweep.js";

/**
 * The rollout of `threadId` in codex home `home`: its path relative to the home (codex keeps
 * them under `sessions/YYYY/MM/DD/`), its content, gzip-compressed, and its last record (parsed;
 * undefined when it is not whole JSON); undefined when missing.
 */
export async function readRollout(
  home: string,
  threadId: string,
): Promise<{ relativePath: string; gzipped: Buffer; lastRecord: unknown } | undefined> {
  const found = await findFile(path.join(home, "sessions"), `-${threadId}.jsonl`);
  if (!found) return undefined;
  const content = await readFile(found);
  return {
    relativePath: path.relative(home, found),
    gzipped: gzipSync(content),
    lastRecord: lastRecord(content),
  };
}

/** Whether a rollout's last record is codex's record of turn `turnId`'s end (`task_complete`). */
export function endsTurn(record: unknown, turnId: string | undefined): boolean {
  if (turnId === undefined || typeof record !== "object" || record === null) return false;
  const { type, payload } = record as {
    type?: unknown;
    payload?: { type?: unknown; turn_id?: unknown } | null;
  };
  return type === "event_msg" && payload?.type === "task_complete" && payload.turn_id === turnId;
}

/** The rollout's last line, parsed: only that line is decoded (a rollout grows turn by turn). */
function lastRecord(content: Buffer): unknown {
  let end = content.length;
  // Trailing newlines, carriage returns, spaces and tabs.
  while (end > 0 && [10, 13, 32, 9].includes(content[end - 1] as number)) end--;
  const start = content.lastIndexOf(10, end - 1) + 1;
  try {
    return JSON.parse(content.toString("utf8", start, end));
  } catch {
    return undefined;
  }
}

/**
 * Writes a stored rollout into codex home `home` at its relative path (codex 0.169.0 resumes a
 * thread whose rollout is in the home's `sessions/` tree; a path outside it is refused).
 */
export async function writeRollout(
  home: string,
  relativePath: string,
  gzipped: Buffer,
): Promise<void> {
  const target = path.resolve(home, relativePath);
  if (!target.startsWith(`${path.join(home, "sessions")}${path.sep}`)) {
    throw new Error(`refusing to write a rollout outside ${home}/sessions: ${relativePath}`);
  }
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, gunzipSync(gzipped), { mode: 0o600 });
}

/**
 * A hash of what an installed home gives codex (its manifest and its merged permission rules,
 * leaving out where the project sits on this machine): the same spaces hash the same everywhere.
 */
export async function manifestHash(homeDir: string): Promise<string> {
  const { permissions: _files, ...manifest } = JSON.parse(
    await readFile(path.join(homeDir, "manifest.json"), "utf8"),
  ) as Record<string, unknown>;
  const rules = await readFile(path.join(homeDir, "permissions.json"), "utf8").then(
    (text) => (JSON.parse(text) as { permissions?: unknown }).permissions ?? null,
    () => null,
  );
  return createHash("sha256").update(JSON.stringify({ manifest, rules })).digest("hex");
}

async function findFile(dir: string, suffix: string): Promise<string | undefined> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isFile() && entry.name.endsWith(suffix)) return full;
    if (entry.isDirectory()) {
      const found = await findFile(full, suffix);
      if (found) return found;
    }
  }
  return undefined;
}

/** Where an attempt keeps its session's codex home, and how it lets go of it. */
export interface ClaimedHome {
  /** The agent-spaces home the attempt's session home lives under. */
  aspHome: string;
  release(): Promise<void>;
}

/**
 * The agent-spaces home for an attempt of `sessionId` on this machine: the worker's own
 * (`aspHome`), where the session's codex home keeps the same path turn after turn (codex re-sends
 * its skills list to the model whenever that path changes), unless another live attempt on this
 * machine holds it — a paused worker's stale attempt, another worker sharing the project folder —
 * then `ownHome`, the attempt's own (codex allows one writer per thread and home). A lock file
 * with the holder's pid says which; one left by a process that is gone is taken over.
 */
export async function claimSessionHome(
  aspHome: string,
  sessionId: string,
  ownHome: string,
): Promise<ClaimedHome> {
  const digest = createHash("sha256").update(sessionId, "utf8").digest("hex");
  const lock = path.join(aspHome, "fleet-locks", `${digest}.lock`);
  await mkdir(path.dirname(lock), { recursive: true });
  for (let tries = 0; tries < 2; tries++) {
    try {
      await writeFile(lock, String(process.pid), { flag: "wx", mode: 0o600 });
      return { aspHome, release: () => rm(lock, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number((await readFile(lock, "utf8").catch(() => "")).trim());
      if (holder === process.pid || (holder > 0 && (await isRunning(holder)))) break;
      await rm(lock, { force: true });
    }
  }
  return { aspHome: ownHome, release: () => rm(ownHome, { recursive: true, force: true }) };
}
