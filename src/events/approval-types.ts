// Server requests as the event model presents them (snake_case requests, camelCase decisions) and the handler bag.

import type { JsonValue } from "../protocol/generated/ts/serde_json/JsonValue.js";
import type { AdditionalFileSystemPermissions } from "../protocol/generated/ts/v2/AdditionalFileSystemPermissions.js";
import type { AdditionalNetworkPermissions } from "../protocol/generated/ts/v2/AdditionalNetworkPermissions.js";
import type { CommandAction } from "../protocol/generated/ts/v2/CommandAction.js";
import type { DynamicToolCallOutputContentItem } from "../protocol/generated/ts/v2/DynamicToolCallOutputContentItem.js";
import type { NetworkPolicyAmendment } from "../protocol/generated/ts/v2/NetworkPolicyAmendment.js";
import type { RequestId } from "../protocol/messages.js";
import type { ExtendedFileUpdateChange } from "./types.js";

/** How long an answer may take by default: 10 minutes. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

/** Every kind of server request, one handler name each. */
export const APPROVAL_KINDS = [
  "commandExecution",
  "fileChange",
  "permissions",
  "userInput",
  "elicitation",
  "dynamicTool",
  "tokenRefresh",
] as const;

/** Which server request: one handler name per kind. */
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

/** What every request carries. Ids are null where codex does not say (e.g. token refresh). */
export interface ApprovalRequestBase {
  kind: ApprovalKind;
  /** The JSON-RPC id codex gave the request (its own id space). */
  request_id: RequestId;
  /** The wire method, e.g. `item/commandExecution/requestApproval`. */
  method: string;
  thread_id: string | null;
  turn_id: string | null;
  item_id: string | null;
}

/** codex wants to run a command (outside the sandbox, or with more permissions). */
export interface CommandExecutionRequest extends ApprovalRequestBase {
  kind: "commandExecution";
  /**
   * What is asked: `command` (run it), `humanCommand` (a person must decide), `writeStdin` (send
   * input to a running terminal).
   */
  approval_kind: "command" | "humanCommand" | "writeStdin";
  /** The command line as codex will run it, e.g. `/bin/bash -lc 'ls -la'`. */
  command: string;
  cwd: string | null;
  reason: string | null;
  /** codex's parse of the command: one entry per simple command, with its own text. */
  command_actions: CommandAction[];
  /** A prefix rule codex proposes to remember (argv), if any. */
  proposed_execpolicy_amendment: string[] | null;
  proposed_network_policy_amendments: NetworkPolicyAmendment[];
  /** Set when the approval is about network access to a host. */
  network_approval_context: { host: string; protocol: string } | null;
}

/** codex wants to apply a patch. `changes` are the files, as the turn's `file_change` item lists them. */
export interface FileChangeRequest extends ApprovalRequestBase {
  kind: "fileChange";
  reason: string | null;
  /** A root codex asks to be allowed to write under for the rest of the session. */
  grant_root: string | null;
  changes: ExtendedFileUpdateChange[];
}

/** codex asks for more sandbox permissions. */
export interface PermissionsRequest extends ApprovalRequestBase {
  kind: "permissions";
  cwd: string | null;
  reason: string | null;
  permissions: {
    network: AdditionalNetworkPermissions | null;
    file_system: AdditionalFileSystemPermissions | null;
  };
}

/** One question of a `request_user_input` call. */
export interface UserInputQuestion {
  id: string;
  header: string;
  question: string;
  is_other: boolean;
  is_secret: boolean;
  options: { label: string; description: string }[] | null;
}

/** The agent asks the user questions. */
export interface UserInputRequest extends ApprovalRequestBase {
  kind: "userInput";
  questions: UserInputQuestion[];
  is_blocking: boolean;
}

/** An MCP server asks the user for input (a form, a URL to open, a verification). */
export interface ElicitationRequest extends ApprovalRequestBase {
  kind: "elicitation";
  server_name: string;
  mode: string;
  message: string | null;
  /** The JSON Schema of the form, for form modes. */
  requested_schema: JsonValue | null;
  url: string | null;
  /** The whole wire params, for modes this version does not break out. */
  params: Record<string, unknown>;
}

/** The agent calls a tool the client declared (`dynamicTools`). */
export interface DynamicToolRequest extends ApprovalRequestBase {
  kind: "dynamicTool";
  call_id: string;
  namespace: string | null;
  tool: string;
  arguments: JsonValue;
}

/** codex needs fresh ChatGPT tokens (the client manages them). */
export interface TokenRefreshRequest extends ApprovalRequestBase {
  kind: "tokenRefresh";
  reason: string;
  previous_account_id: string | null;
}

export type ApprovalRequest =
  | CommandExecutionRequest
  | FileChangeRequest
  | PermissionsRequest
  | UserInputRequest
  | ElicitationRequest
  | DynamicToolRequest
  | TokenRefreshRequest;

/** How to answer a command: run it (once, or for the session, or remembering a rule), or not. */
export type CommandDecision =
  | "accept"
  | "acceptForSession"
  | "decline"
  | "cancel"
  | { acceptWithExecpolicyAmendment: string[] }
  | { applyNetworkPolicyAmendment: NetworkPolicyAmendment };

export type FileChangeDecision = "accept" | "acceptForSession" | "decline" | "cancel";

/** Grant a subset of the requested permissions, for this turn or the session. */
export type PermissionsDecision =
  | "decline"
  | {
      grant: {
        network?: AdditionalNetworkPermissions;
        fileSystem?: AdditionalFileSystemPermissions;
      };
      scope: "turn" | "session";
    };

/** Answers by question id (each a list: the chosen options or free text). */
export type UserInputDecision = "decline" | "cancel" | { answers: Record<string, string[]> };

export type ElicitationDecision = "decline" | "cancel" | { accept: JsonValue; meta?: JsonValue };

/** A dynamic tool's result: text, or content items; `success` defaults to true. */
export type DynamicToolDecision =
  | "decline"
  | { output: string | DynamicToolCallOutputContentItem[]; success?: boolean };

export type TokenRefreshDecision =
  | "decline"
  | { accessToken: string; chatgptAccountId: string; chatgptPlanType?: string | null };

/** Every kind's request and decision types. */
export interface ApprovalKinds {
  commandExecution: { request: CommandExecutionRequest; decision: CommandDecision };
  fileChange: { request: FileChangeRequest; decision: FileChangeDecision };
  permissions: { request: PermissionsRequest; decision: PermissionsDecision };
  userInput: { request: UserInputRequest; decision: UserInputDecision };
  elicitation: { request: ElicitationRequest; decision: ElicitationDecision };
  dynamicTool: { request: DynamicToolRequest; decision: DynamicToolDecision };
  tokenRefresh: { request: TokenRefreshRequest; decision: TokenRefreshDecision };
}

export type DecisionOf<K extends ApprovalKind> = ApprovalKinds[K]["decision"];
export type RequestOf<K extends ApprovalKind> = ApprovalKinds[K]["request"];

/** What a handler gets besides the request. */
export interface ApprovalContext {
  /** Aborts when codex clears the request, the turn ends, or the connection closes. */
  signal: AbortSignal;
}

/**
 * Answers one kind of request. Returning `undefined` defers: to the next policy of a
 * composition, then to the turn's stream (`approval.requested`), then to `decline`.
 */
export type ApprovalHandler<K extends ApprovalKind> = (
  request: RequestOf<K>,
  context: ApprovalContext,
) => DecisionOf<K> | undefined | Promise<DecisionOf<K> | undefined>;

/** The handlers of `new Codex({ approvals })` (and `ThreadOptions.approvals`). */
export type ApprovalHandlers = { [K in ApprovalKind]?: ApprovalHandler<K> };

/** Handlers plus how long an answer may take (default 10 minutes; per kind if an object). */
export interface Approvals extends ApprovalHandlers {
  timeoutMs?: number | Partial<Record<ApprovalKind, number>>;
}

/** Who decided. */
export type ApprovalDecider =
  /** A handler (or policy) returned the decision. */
  | "handler"
  /** Someone answered `approval.requested` through the stream. */
  | "stream"
  /** Nobody answered in time: declined. */
  | "timeout"
  /** The handler threw, or a decision not of the request's kind came (handler or `respond()`): declined. */
  | "error"
  /** Nobody could answer (no handler, `run()`): declined at once. */
  | "default"
  /** codex cleared the request itself (answered elsewhere, turn ended) or the connection closed. */
  | "cleared";
