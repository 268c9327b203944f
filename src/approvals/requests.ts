// Turns the params of codex's server requests into the snake_case request objects handlers get.
import type { ExtendedFileUpdateChange } from "../events/types.js";
import type { JsonValue } from "../protocol/generated/ts/serde_json/JsonValue.js";
import type { RequestId } from "../protocol/messages.js";
import type { ServerRequestMethod } from "../protocol/types.js";
import type {
  ApprovalKind,
  ApprovalRequest,
  ApprovalRequestBase,
  CommandExecutionRequest,
} from "./types.js";

/**
 * How codex-harness answers each server request method of the pinned codex: the handler kind that
 * decides it (v2 methods and their v1 twins), or what the client answers by itself. The compiler
 * refuses a generated method missing here, so a new one cannot silently get -32601.
 */
export const SERVER_REQUEST_ANSWERS = {
  "item/commandExecution/requestApproval": "commandExecution",
  execCommandApproval: "commandExecution",
  "item/fileChange/requestApproval": "fileChange",
  applyPatchApproval: "fileChange",
  "item/permissions/requestApproval": "permissions",
  "item/tool/requestUserInput": "userInput",
  "mcpServer/elicitation/request": "elicitation",
  "item/tool/call": "dynamicTool",
  "account/chatgptAuthTokens/refresh": "tokenRefresh",
  /** Answered with this machine's clock. */
  "currentTime/read": "client:currentTime",
  /** Refused with a clear error: initialize says `requestAttestation: false`. */
  "attestation/generate": "client:refused",
} as const satisfies Record<
  ServerRequestMethod,
  ApprovalKind | "client:currentTime" | "client:refused"
>;

/** Each server request method a handler answers, and the handler kind. */
export const KIND_OF_METHOD: Readonly<Record<string, ApprovalKind>> = Object.fromEntries(
  Object.entries(SERVER_REQUEST_ANSWERS).filter(([, answer]) => !answer.startsWith("client:")),
) as Record<string, ApprovalKind>;

type Params = Record<string, unknown>;

const str = (value: unknown): string | null => (typeof value === "string" ? value : null);
const list = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

/**
 * The request object for a server request, or `undefined` for a method no handler answers.
 * `changesOf(itemId)` gives a file change's files, as its `file_change` item listed them.
 */
export function toApprovalRequest(
  method: string,
  requestId: RequestId,
  params: unknown,
  changesOf: (itemId: string) => ExtendedFileUpdateChange[] = () => [],
): ApprovalRequest | undefined {
  const kind = KIND_OF_METHOD[method];
  if (!kind) return undefined;
  const p = (params ?? {}) as Params;
  const base = (itemId: string | null): Omit<ApprovalRequestBase, "kind"> => ({
    request_id: requestId,
    method,
    thread_id: str(p.threadId) ?? str(p.conversationId),
    turn_id: str(p.turnId),
    item_id: itemId,
  });
  switch (kind) {
    case "commandExecution": {
      const argv = Array.isArray(p.command) ? (p.command as string[]) : null;
      const context = p.networkApprovalContext as { host: string; protocol: string } | null;
      return {
        kind,
        ...base(str(p.itemId) ?? str(p.callId)),
        approval_kind:
          (str(p.kind) as CommandExecutionRequest["approval_kind"] | null) ?? "command",
        command: argv ? argv.map(shellQuote).join(" ") : (str(p.command) ?? ""),
        cwd: str(p.cwd),
        reason: str(p.reason),
        command_actions: list(p.commandActions ?? p.parsedCmd),
        proposed_execpolicy_amendment: (p.proposedExecpolicyAmendment as string[] | null) ?? null,
        proposed_network_policy_amendments: list(p.proposedNetworkPolicyAmendments),
        network_approval_context: context ?? null,
      };
    }
    case "fileChange": {
      const itemId = str(p.itemId) ?? str(p.callId);
      return {
        kind,
        ...base(itemId),
        reason: str(p.reason),
        grant_root: str(p.grantRoot),
        changes: p.fileChanges
          ? v1Changes(p.fileChanges as Params)
          : itemId
            ? changesOf(itemId)
            : [],
      };
    }
    case "permissions": {
      const permissions = (p.permissions ?? {}) as Params;
      return {
        kind,
        ...base(str(p.itemId)),
        cwd: str(p.cwd),
        reason: str(p.reason),
        permissions: {
          network: (permissions.network as never) ?? null,
          file_system: (permissions.fileSystem as never) ?? null,
        },
      };
    }
    case "userInput":
      return {
        kind,
        ...base(str(p.itemId)),
        questions: list<Params>(p.questions).map((question) => ({
          id: str(question.id) ?? "",
          header: str(question.header) ?? "",
          question: str(question.question) ?? "",
          is_other: question.isOther === true,
          is_secret: question.isSecret === true,
          options: Array.isArray(question.options)
            ? (question.options as { label: string; description: string }[])
            : null,
        })),
        is_blocking: p.isBlocking !== false,
      };
    case "elicitation":
      return {
        kind,
        ...base(null),
        server_name: str(p.serverName) ?? "",
        mode: str(p.mode) ?? "form",
        message: str(p.message) ?? str(p.description),
        requested_schema: (p.requestedSchema as JsonValue | undefined) ?? null,
        url: str(p.url),
        params: p,
      };
    case "dynamicTool":
      return {
        kind,
        ...base(str(p.callId)),
        call_id: str(p.callId) ?? "",
        namespace: str(p.namespace),
        tool: str(p.tool) ?? "",
        arguments: (p.arguments as JsonValue | undefined) ?? null,
      };
    case "tokenRefresh":
      return {
        kind,
        ...base(null),
        reason: str(p.reason) ?? "",
        previous_account_id: str(p.previousAccountId),
      };
  }
}

/** Quotes one argv word for a shell command line (v1 approvals give argv, not a line). */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_/.,:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** v1 `applyPatchApproval` lists its files as `{ path: change }`. */
function v1Changes(fileChanges: Params): ExtendedFileUpdateChange[] {
  return Object.entries(fileChanges).map(([path, change]) => {
    const type = str((change as Params | null)?.type) ?? "update";
    return {
      path,
      kind: (["add", "delete"].includes(type)
        ? type
        : "update") as ExtendedFileUpdateChange["kind"],
    };
  });
}
