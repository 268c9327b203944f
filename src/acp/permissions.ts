// codex's approvals asked of the person in the editor: `session/request_permission` with the
// command (its cwd and reason) or the file changes, and allow once / allow always (codex's
// acceptForSession) / reject. Whatever goes wrong — no answer, a cancelled prompt, an unknown
// option — declines.
import type * as acp from "@agentclientprotocol/sdk";
import { commandLine } from "../channels/titles.js";
import type { Approvals } from "../events/approval-types.js";
import type { CommandExecutionRequest } from "../events/server-requests/command-execution.js";
import type { FileChangeRequest } from "../events/server-requests/file-change.js";
import { changeContent } from "./session-updates.js";

/** Sends `session/request_permission` to the editor and resolves with its outcome. */
export type AskEditor = (
  request: acp.RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<acp.RequestPermissionResponse>;

const OPTIONS: acp.PermissionOption[] = [
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow in this session", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
];

/** What an editor's answer means to codex: accept, acceptForSession, or decline. */
function decisionOf(
  response: acp.RequestPermissionResponse,
): "accept" | "acceptForSession" | "decline" {
  if (response.outcome.outcome !== "selected") return "decline";
  if (response.outcome.optionId === "allow_once") return "accept";
  if (response.outcome.optionId === "allow_always") return "acceptForSession";
  return "decline";
}

/**
 * Approvals that ask the editor, under the session's id (`sessionId()`, known once its thread
 * started), about commands and file changes. Other requests
 * (questions, forms, permission grants) are left to the next handler, which declines by default.
 */
export function editorApprovals(sessionId: () => string, ask: AskEditor): Approvals {
  const permission = async (
    toolCall: acp.ToolCallUpdate,
    signal: AbortSignal,
    explain: ((reason: string) => void) | undefined,
  ) => {
    const response = await ask({ sessionId: sessionId(), toolCall, options: OPTIONS }, signal);
    const decision = decisionOf(response);
    explain?.(
      response.outcome.outcome === "selected"
        ? `${decision === "decline" ? "rejected" : "allowed"} in the editor (${response.outcome.optionId})`
        : "the editor cancelled the question",
    );
    return decision;
  };
  return {
    commandExecution: (request: CommandExecutionRequest, { signal, explain }) =>
      permission(commandToolCall(request), signal, explain),
    fileChange: (request: FileChangeRequest, { signal, explain }) =>
      permission(fileChangeToolCall(request), signal, explain),
  };
}

function commandToolCall(request: CommandExecutionRequest): acp.ToolCallUpdate {
  const lines = [
    `\`\`\`sh\n${request.command}\n\`\`\``,
    ...(request.cwd ? [`in ${request.cwd}`] : []),
    ...(request.reason ? [request.reason] : []),
    ...(request.network_approval_context
      ? [`network access to ${request.network_approval_context.host}`]
      : []),
  ];
  return {
    toolCallId: request.item_id ?? `approval-${String(request.request_id)}`,
    title: commandLine(request.command),
    kind: "execute",
    status: "pending",
    content: [{ type: "content", content: { type: "text", text: lines.join("\n\n") } }],
    rawInput: { command: request.command, cwd: request.cwd, reason: request.reason },
  };
}

function fileChangeToolCall(request: FileChangeRequest): acp.ToolCallUpdate {
  const paths = request.changes.map((change) => change.path);
  return {
    toolCallId: request.item_id ?? `approval-${String(request.request_id)}`,
    title: `Edit ${paths.join(", ") || "files"}`,
    kind: "edit",
    status: "pending",
    content: [
      ...request.changes.map((change) => changeContent(change)),
      ...(request.reason
        ? [{ type: "content" as const, content: { type: "text" as const, text: request.reason } }]
        : []),
    ],
    locations: paths.map((path) => ({ path })),
  };
}
