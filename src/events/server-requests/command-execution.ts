// Command approvals: `item/commandExecution/requestApproval` and its v1 twin `execCommandApproval`.
import type { ParsedCommand } from "../../protocol/generated/ts/ParsedCommand.js";
import type { ReviewDecision } from "../../protocol/generated/ts/ReviewDecision.js";
import type { CommandAction } from "../../protocol/generated/ts/v2/CommandAction.js";
import type { CommandExecutionApprovalDecision } from "../../protocol/generated/ts/v2/CommandExecutionApprovalDecision.js";
import type { NetworkPolicyAmendment } from "../../protocol/generated/ts/v2/NetworkPolicyAmendment.js";
import { wrappedScriptOf } from "../../shell-split.js";
import { isObject } from "../wire-values.js";
import { type ApprovalRequestBase, kindSpec, listOf } from "./spec.js";

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
  /**
   * The command as the model wrote it: the script of the shell codex wraps it in (`ls -la` for
   * `/bin/bash -lc 'ls -la'`, quotes removed), else `command` itself. What a handler that matches
   * on the command means (`request.script.startsWith("ls")`); policies still judge every simple
   * command of it.
   */
  script: string;
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

/** How to answer a command: run it (once, or for the session, or remembering a rule), or not. */
export type CommandDecision =
  | "accept"
  | "acceptForSession"
  | "decline"
  | "cancel"
  | { acceptWithExecpolicyAmendment: string[] }
  | { applyNetworkPolicyAmendment: NetworkPolicyAmendment };

export const commandExecution = kindSpec<CommandExecutionRequest, CommandDecision>()({
  kind: "commandExecution",
  accepts:
    '"accept", "acceptForSession", "decline", "cancel", { acceptWithExecpolicyAmendment: argv }, { applyNetworkPolicyAmendment: { host, action } }',
  isDecision: (value): value is CommandDecision =>
    value === "accept" ||
    value === "acceptForSession" ||
    value === "cancel" ||
    (isObject(value) &&
      ((Array.isArray(value.acceptWithExecpolicyAmendment) &&
        value.acceptWithExecpolicyAmendment.every((part) => typeof part === "string")) ||
        (isObject(value.applyNetworkPolicyAmendment) &&
          typeof value.applyNetworkPolicyAmendment.host === "string"))),
  methods: {
    "item/commandExecution/requestApproval": {
      request: (params) => ({
        item_id: params.itemId,
        approval_kind: params.kind ?? "command",
        command: params.command ?? "",
        script: scriptOf(params.command ?? ""),
        cwd: params.cwd ?? null,
        reason: params.reason ?? null,
        command_actions: listOf(params.commandActions),
        proposed_execpolicy_amendment: params.proposedExecpolicyAmendment ?? null,
        proposed_network_policy_amendments: listOf(params.proposedNetworkPolicyAmendments),
        network_approval_context: params.networkApprovalContext ?? null,
      }),
      result: (decision) => ({ decision: commandDecision(decision) }),
    },
    execCommandApproval: {
      request: (params) => ({
        item_id: params.callId,
        approval_kind: "command",
        command: listOf(params.command).map(shellQuote).join(" "),
        script: scriptOf(listOf(params.command).map(shellQuote).join(" ")),
        cwd: params.cwd ?? null,
        reason: params.reason ?? null,
        command_actions: listOf(params.parsedCmd).map(commandAction),
        proposed_execpolicy_amendment: null,
        proposed_network_policy_amendments: [],
        network_approval_context: null,
      }),
      result: (decision) => ({ decision: reviewDecision(decision) }),
    },
  },
});

function commandDecision(decision: CommandDecision): CommandExecutionApprovalDecision {
  if (typeof decision === "string") return decision;
  if ("acceptWithExecpolicyAmendment" in decision) {
    return {
      acceptWithExecpolicyAmendment: {
        execpolicy_amendment: decision.acceptWithExecpolicyAmendment,
      },
    };
  }
  return {
    applyNetworkPolicyAmendment: { network_policy_amendment: decision.applyNetworkPolicyAmendment },
  };
}

/** The v1 `ReviewDecision` for `execCommandApproval` / `applyPatchApproval`. */
export function reviewDecision(decision: CommandDecision): ReviewDecision {
  if (decision === "accept") return "approved";
  if (decision === "acceptForSession") return "approved_for_session";
  if (decision === "cancel") return "abort";
  if (decision === "decline") return { denied: { rejection: "Declined by the client." } };
  if ("acceptWithExecpolicyAmendment" in decision) {
    return {
      approved_execpolicy_amendment: {
        proposed_execpolicy_amendment: decision.acceptWithExecpolicyAmendment,
      },
    };
  }
  return {
    network_policy_amendment: { network_policy_amendment: decision.applyNetworkPolicyAmendment },
  };
}

/** A v1 parsed command as the v2 command action it became (`cmd` -> `command`, `list_files` -> `listFiles`). */
function commandAction(parsed: ParsedCommand): CommandAction {
  const { cmd, ...rest } = parsed;
  if (rest.type === "list_files") return { ...rest, type: "listFiles", command: cmd };
  return { ...rest, command: cmd } as CommandAction;
}

/** Quotes one argv word for a shell command line (v1 approvals give argv, not a line). */
function shellQuote(word: string): string {
  return /^[A-Za-z0-9_/.,:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The command as the model wrote it: the script of codex's shell wrapper, else the command. */
function scriptOf(command: string): string {
  return wrappedScriptOf(command) ?? command;
}
