// Session records of runTurn: external session id -> harness, codex thread, model, timestamps.
// One JSON file per session under `<aspHome>/sessions/`, written atomically (temp file + rename).
import path from "node:path";
import { nodeCrypto, nodeFs } from "../builtins.js";
import { CodexHarnessError } from "../errors.js";

/** What is remembered about an external session. */
export interface SessionRecord {
  externalSessionId: string;
  /** The harness that ran it (`"codex"`). */
  harness: string;
  /** The codex thread id, once a thread started. */
  harnessSessionId?: string;
  model?: string;
  /** ISO 8601 times. */
  createdAt: string;
  updatedAt: string;
}

/** The record file of `externalSessionId` (the id is hashed, never used as a path). */
export function sessionRecordPath(aspHome: string, externalSessionId: string): string {
  const digest = nodeCrypto().createHash("sha256").update(externalSessionId, "utf8").digest("hex");
  return path.join(path.resolve(aspHome), "sessions", `${digest}.json`);
}

/** The record of `externalSessionId`, or null when there is none. A damaged file throws `invalid_session_record`. */
export async function readSessionRecord(
  aspHome: string,
  externalSessionId: string,
): Promise<SessionRecord | null> {
  const file = sessionRecordPath(aspHome, externalSessionId);
  let text: string;
  try {
    text = await nodeFs().promises.readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch (error) {
    throw damaged(file, externalSessionId, "it is not JSON", error);
  }
  const r = record as Partial<SessionRecord>;
  if (
    typeof r !== "object" ||
    r === null ||
    r.externalSessionId !== externalSessionId ||
    typeof r.harness !== "string" ||
    (r.harnessSessionId !== undefined && typeof r.harnessSessionId !== "string")
  ) {
    throw damaged(file, externalSessionId, "it is not a session record of this id", undefined);
  }
  return r as SessionRecord;
}

/** Writes `record` atomically: readers see the old record or the new one, never a part. */
export async function writeSessionRecord(aspHome: string, record: SessionRecord): Promise<void> {
  const file = sessionRecordPath(aspHome, record.externalSessionId);
  await nodeFs().promises.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.tmp-${nodeCrypto().randomBytes(6).toString("hex")}`;
  try {
    await nodeFs().promises.writeFile(temp, `${JSON.stringify(record, null, 2)}\n`, {
      mode: 0o600,
    });
    await nodeFs().promises.rename(temp, file);
  } catch (error) {
    await nodeFs().promises.rm(temp, { force: true });
    throw error;
  }
}

/**
 * Records that `externalSessionId` runs on codex thread `harnessSessionId` (with `model`), keeping
 * when `previous` (the record read before the turn) was created.
 */
export async function saveCodexSessionRecord(
  aspHome: string,
  previous: SessionRecord | null,
  session: { externalSessionId: string; harnessSessionId?: string; model?: string },
): Promise<void> {
  const now = new Date().toISOString();
  const model = session.model ?? previous?.model;
  await writeSessionRecord(aspHome, {
    externalSessionId: session.externalSessionId,
    harness: "codex",
    ...(session.harnessSessionId ? { harnessSessionId: session.harnessSessionId } : {}),
    ...(model ? { model } : {}),
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
  });
}

function damaged(file: string, id: string, why: string, cause: unknown): CodexHarnessError {
  return new CodexHarnessError(
    "invalid_session_record",
    `The session record ${file} of session ${JSON.stringify(id)} is damaged (${why}); ` +
      "delete it to start the session over.",
    { cause },
  );
}
