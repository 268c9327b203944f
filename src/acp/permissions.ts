// codex's approvals asked of the person in the editor: `session/request_permission` with the
// command (its cwd and reason), the file changes (as diffs), the permissions or the MCP tool call,
// and allow once / allow always (codex's acceptForSession, a session grant) / reject; its tool
// call is always sent first (see session-view.ts). Whatever goes wrong — no answer, a cancelled
// prompt, an unknown option — declines.
import type * as acp from "@agentclientprotocol/sdk";
import { commandLine } from "../channels/titles.js";
import type { Approvals } from "../events/approval-types.js";
import type { CommandExecutionRequest } from "../events/server-requests/command-execution.js";
import type { ElicitationRequest } from "../events/server-requests/elicitation.js";
import type { FileChangeRequest } from "../events/server-requests/file-change.js";
import type { PermissionsRequest } from "../events/server-requests/permissions.js";
import type { UserInputRequest } from "../events/server-requests/user-input.js";
import { type AskForm, askMcpForm, askQuestions, formFields } from "./forms.js";
import { fileChangeCall, textContent } from "./session-updates.js";
import { SessionView } from "./session-view.js";

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
 * started), about commands, file changes, more sandbox permissions, an MCP server's yes/no
 * questions (its tool calls codex asks about), and questions with options (one permission request
 * per question, an option each plus "Don't answer"; where the editor renders forms, `askForm()`,
 * one form with "Other" to type in, see forms.ts). A question without options, a secret, or an
 * MCP form with fields and no forms in the editor are left to the next handler, which declines
 * by default. With the sessions' `views`, each request's tool call reaches the editor before it.
 */
export function editorApprovals(
  sessionId: () => string,
  ask: AskEditor,
  askForm?: () => AskForm | undefined,
  views?: { get(sessionId: string): SessionView | undefined },
): Approvals {
  const view = () => views?.get(sessionId());
  /** Asks about `toolCall`, sent first unless the editor has it; `alone`: no item will end it. */
  const asked = async (
    request: acp.RequestPermissionRequest,
    signal: AbortSignal,
    alone: boolean,
  ): Promise<acp.RequestPermissionResponse> => {
    const shown = view();
    const { toolCall } = request;
    await shown?.announce(toolCall);
    let failed = true;
    try {
      const response = await ask(request, signal);
      const { outcome } = response;
      const chosen =
        outcome.outcome === "selected"
          ? request.options.find((option) => option.optionId === outcome.optionId)
          : undefined;
      failed = !chosen || chosen.kind.startsWith("reject");
      return response;
    } finally {
      if (alone) {
        shown?.push({
          sessionUpdate: "tool_call_update",
          toolCallId: toolCall.toolCallId,
          status: failed ? "failed" : "completed",
        });
      }
    }
  };
  const permission = async (
    toolCall: acp.ToolCallUpdate,
    signal: AbortSignal,
    explain: ((reason: string) => void) | undefined,
    alone = false,
  ) => {
    const response = await asked(
      { sessionId: sessionId(), toolCall, options: OPTIONS },
      signal,
      alone,
    );
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
      permission(commandToolCall(request), signal, explain, !request.item_id),
    fileChange: (request: FileChangeRequest, { signal, explain }) =>
      permission(fileChangeToolCall(request, view()), signal, explain, !request.item_id),
    // More sandbox permissions: allowed, all that was asked for this turn; always, for the session.
    permissions: async (request: PermissionsRequest, { signal, explain }) => {
      const decision = await permission(permissionsToolCall(request), signal, explain, true);
      if (decision === "decline") return "decline";
      const { network, file_system } = request.permissions;
      return {
        grant: {
          ...(network ? { network } : {}),
          ...(file_system ? { fileSystem: file_system } : {}),
        },
        scope: decision === "acceptForSession" ? "session" : "turn",
      };
    },
    // An MCP server's yes/no question (codex's approval of an MCP tool call, or a form with no
    // fields). A form to fill or a URL to open is left to the next handler (channels, or decline).
    elicitation: async (request: ElicitationRequest, { signal, explain }) => {
      const fields = formFields(request);
      const form = askForm?.();
      if (form && fields !== undefined && fields > 0) {
        const decision = await askMcpForm(request, sessionId(), form, signal);
        explain?.(
          decision === "decline"
            ? "declined in the editor"
            : decision === "cancel"
              ? "cancelled in the editor"
              : "filled in in the editor",
        );
        return decision;
      }
      if (fields !== 0) return undefined;
      const decision = await permission(elicitationToolCall(request), signal, explain, true);
      if (decision === "decline") return "decline";
      // codex offers to remember an MCP tool approval for the session (`persist`).
      return decision === "acceptForSession"
        ? { accept: null, meta: { persist: "session" } }
        : { accept: null };
    },
    userInput: async (request: UserInputRequest, { signal, explain }) => {
      // Where the editor renders forms: one form, where "Other" can be typed in too.
      const form = askForm?.();
      if (form) {
        const decision = await askQuestions(request, sessionId(), form, signal);
        if (decision !== undefined) {
          explain?.(
            typeof decision === "string" ? "not answered in the editor" : "answered in the editor",
          );
        }
        return decision;
      }
      const answers: Record<string, string[]> = {};
      for (const question of request.questions) {
        // ACP v1 asks only by options: a question without them (free text) cannot be answered.
        if (!question.options?.length || question.is_secret) {
          // Left to whoever comes next (channels, or the default decline).
          return undefined;
        }
        const response = await asked(
          {
            sessionId: sessionId(),
            toolCall: {
              toolCallId: `${request.item_id ?? `question-${String(request.request_id)}`}-${question.id}`,
              title: question.header || question.question,
              kind: "other",
              status: "pending",
              content: [
                textContent(
                  [
                    question.question,
                    ...question.options.map((option) =>
                      option.description
                        ? `- ${option.label}: ${option.description}`
                        : `- ${option.label}`,
                    ),
                  ].join("\n"),
                ),
              ],
            },
            options: [
              ...question.options.map((option, index) => ({
                optionId: `option-${index}`,
                name: option.label,
                kind: "allow_once" as const,
              })),
              { optionId: "skip", name: "Don't answer", kind: "reject_once" },
            ],
          },
          signal,
          true,
        );
        const chosen =
          response.outcome.outcome === "selected"
            ? question.options[Number(/^option-(\d+)$/.exec(response.outcome.optionId)?.[1] ?? -1)]
            : undefined;
        if (!chosen) {
          explain?.("the question was not answered in the editor");
          return "decline";
        }
        answers[question.id] = [chosen.label];
      }
      explain?.("answered in the editor");
      return { answers };
    },
  };
}

function permissionsToolCall(request: PermissionsRequest): acp.ToolCallUpdate {
  const { network, file_system } = request.permissions;
  const asked = [
    ...(network?.enabled ? ["network access"] : []),
    ...(file_system?.read ?? []).map((path) => `read ${path}`),
    ...(file_system?.write ?? []).map((path) => `write ${path}`),
    ...(file_system?.entries ?? []).map((entry) => JSON.stringify(entry)),
  ];
  const lines = [
    `codex asks for more sandbox permissions: ${asked.join(", ") || "(none named)"}`,
    ...(request.reason ? [request.reason] : []),
    ...(request.cwd ? [`in ${request.cwd}`] : []),
  ];
  return {
    toolCallId: request.item_id ?? `approval-${String(request.request_id)}`,
    title: `Permissions: ${asked.join(", ") || "more access"}`,
    kind: "other",
    status: "pending",
    content: [textContent(lines.join("\n\n"))],
    rawInput: { permissions: request.permissions, reason: request.reason },
  };
}

function elicitationToolCall(request: ElicitationRequest): acp.ToolCallUpdate {
  const meta = (request.params._meta ?? {}) as { tool_name?: unknown; tool_params?: unknown };
  const tool = typeof meta.tool_name === "string" ? meta.tool_name : undefined;
  return {
    toolCallId: `elicitation-${String(request.request_id)}`,
    title: tool ? `${request.server_name}/${tool}` : `${request.server_name} asks`,
    kind: "other",
    status: "pending",
    content: [
      textContent(request.message ?? `The MCP server ${request.server_name} asks to go on.`),
    ],
    ...(meta.tool_params !== undefined ? { rawInput: meta.tool_params } : {}),
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
    content: [textContent(lines.join("\n\n"))],
    rawInput: { command: request.command, cwd: request.cwd, reason: request.reason },
  };
}

function fileChangeToolCall(
  request: FileChangeRequest,
  view: SessionView | undefined,
): acp.ToolCallUpdate {
  const id = request.item_id ?? `approval-${String(request.request_id)}`;
  // Without a session's view (no folder to read in): what codex sent, as a replay shows it.
  const call = fileChangeCall(id, request.changes, view ?? SessionView.replay());
  return {
    ...call,
    status: "pending",
    content: [...(call.content ?? []), ...(request.reason ? [textContent(request.reason)] : [])],
  };
}
