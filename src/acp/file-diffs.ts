// A file change as the texts an editor diffs: codex gives an added file's text, a deleted file's
// text, and for an update only a unified diff — its old text is read from disk (before the change is
// applied) and the diff applied to it; a change already applied is undone to get the old text back.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import type { ExtendedFileUpdateChange } from "../events/types.js";
import { applyUnifiedDiff } from "./unified-patch.js";

/** A file's text, or undefined when it cannot be read (missing, too large, not a file). */
export type ReadText = (file: string) => string | undefined;

/** What a change does to one file: its texts before and after, where it ends up. */
export interface FileTexts {
  /** Where the file is after the change (a move's new path), absolute. */
  path: string;
  /** null for a new file. */
  oldText: string | null;
  /** "" for a deleted file. */
  newText: string;
  /** For a move: where the file was. */
  movedFrom?: string;
}

/** Files larger than this are shown as codex's patch, not read whole. */
const MAX_TEXT_BYTES = 2 * 1024 * 1024;

/** Reads a file's text from disk (up to 2 MiB), synchronously so the updates keep their order. */
export const readText: ReadText = (file) => {
  try {
    if (statSync(file).size > MAX_TEXT_BYTES) return undefined;
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
};

/** codex appends a move's destination to its diff (`\n\nMoved to: /new/path`). */
const MOVED_TO = /\n*Moved to: (.+?)\s*$/;

/**
 * The texts of `change` (paths resolved against `cwd`), or undefined when an update's diff fits
 * neither the file as it is nor as it will be (shown as the patch instead).
 */
export function changeTexts(
  change: ExtendedFileUpdateChange,
  cwd: string,
  read: ReadText,
): FileTexts | undefined {
  const file = path.resolve(cwd, change.path);
  const diff = change.diff ?? "";
  if (change.kind === "add") return { path: file, oldText: null, newText: diff };
  if (change.kind === "delete") {
    return { path: file, oldText: diff !== "" ? diff : (read(file) ?? ""), newText: "" };
  }
  const note = MOVED_TO.exec(diff);
  const patch = note ? diff.slice(0, note.index) : diff;
  const target = change.move_path ?? note?.[1];
  const dest = target ? path.resolve(cwd, target) : file;
  const moved = dest !== file ? { movedFrom: file } : {};
  const before = read(file);
  if (before !== undefined) {
    const after = applyUnifiedDiff(before, patch);
    if (after !== undefined) return { path: dest, oldText: before, newText: after, ...moved };
  }
  // Already applied (codex ran it without asking): the file as it is, and the diff undone.
  const now = read(dest) ?? before;
  const undone = now === undefined ? undefined : applyUnifiedDiff(now, patch, true);
  if (now === undefined || undone === undefined) return undefined;
  return { path: dest, oldText: undone, newText: now, ...moved };
}

/** The texts of a change once applied: the old text as first seen, the new as the file is now. */
export function appliedTexts(before: FileTexts, read: ReadText): FileTexts {
  // A deleted file reads as nothing: its new text stays "".
  return { ...before, newText: read(before.path) ?? before.newText };
}

/** Texts as ACP `diff` content, a move with a note of where the file was. */
export function diffContent(texts: FileTexts): acp.ToolCallContent[] {
  const diff: acp.ToolCallContent = {
    type: "diff",
    path: texts.path,
    oldText: texts.oldText,
    newText: texts.newText,
    ...(texts.movedFrom ? { _meta: { movedFrom: texts.movedFrom } } : {}),
  };
  if (!texts.movedFrom) return [diff];
  return [
    diff,
    { type: "content", content: { type: "text", text: `Moved from ${texts.movedFrom}` } },
  ];
}
