// File change approvals: `item/fileChange/requestApproval` and its v1 twin `applyPatchApproval`.
import type { FileChange } from "../../protocol/generated/ts/FileChange.js";
import type { ExtendedFileUpdateChange } from "../types.js";
import { reviewDecision } from "./command-execution.js";
import { type ApprovalRequestBase, kindSpec } from "./spec.js";

/** codex wants to apply a patch. `changes` are the files, as the turn's `file_change` item lists them. */
export interface FileChangeRequest extends ApprovalRequestBase {
  kind: "fileChange";
  reason: string | null;
  /** A root codex asks to be allowed to write under for the rest of the session. */
  grant_root: string | null;
  changes: ExtendedFileUpdateChange[];
}

export type FileChangeDecision = "accept" | "acceptForSession" | "decline" | "cancel";

export const fileChange = kindSpec<FileChangeRequest, FileChangeDecision>()({
  kind: "fileChange",
  accepts: '"accept", "acceptForSession", "decline", "cancel"',
  isDecision: (value): value is FileChangeDecision =>
    value === "accept" || value === "acceptForSession" || value === "cancel",
  methods: {
    "item/fileChange/requestApproval": {
      request: (params, changesOf) => ({
        item_id: params.itemId,
        reason: params.reason ?? null,
        grant_root: params.grantRoot ?? null,
        changes: params.itemId ? changesOf(params.itemId) : [],
      }),
      result: (decision) => ({ decision }),
    },
    applyPatchApproval: {
      request: (params) => ({
        item_id: params.callId,
        reason: params.reason ?? null,
        grant_root: params.grantRoot ?? null,
        changes: v1Changes(params.fileChanges ?? {}),
      }),
      result: (decision) => ({ decision: reviewDecision(decision) }),
    },
  },
});

/** v1 `applyPatchApproval` lists its files as `{ path: change }`. */
function v1Changes(fileChanges: {
  [path: string]: FileChange | undefined;
}): ExtendedFileUpdateChange[] {
  return Object.entries(fileChanges).map(([path, change]) => {
    const type = change?.type;
    return { path, kind: type === "add" || type === "delete" ? type : "update" };
  });
}
