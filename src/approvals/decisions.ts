// Checks a handler's decision and turns it into the exact wire result of the pinned protocol.
import { CodexHarnessError } from "../errors.js";
import type { ApprovalKind, ApprovalKinds, DecisionOf } from "./types.js";

type Wire = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The decisions each kind accepts, as error messages name them. */
const DECISIONS_OF: Readonly<Record<ApprovalKind, string>> = {
  commandExecution:
    '"accept", "acceptForSession", "decline", "cancel", { acceptWithExecpolicyAmendment: argv }, { applyNetworkPolicyAmendment: { host, action } }',
  fileChange: '"accept", "acceptForSession", "decline", "cancel"',
  permissions: '{ grant, scope: "turn" | "session" }, "decline"',
  userInput: '{ answers: { [questionId]: string[] } }, "decline", "cancel"',
  elicitation: '{ accept: content, meta? }, "decline", "cancel"',
  dynamicTool: '{ output, success? }, "decline"',
  tokenRefresh: '{ accessToken, chatgptAccountId, chatgptPlanType? }, "decline"',
};

/** Says that `value` is not a `kind` decision and what `kind` accepts (for `invalid_decision`). */
export function notADecision(kind: ApprovalKind, value: unknown): string {
  let shown: string;
  try {
    shown = JSON.stringify(value) ?? String(value);
  } catch {
    shown = String(value);
  }
  return `${shown} is not a ${kind} decision (${kind} accepts ${DECISIONS_OF[kind]})`;
}

/** Whether `decision` is a valid answer for `kind` (handlers are user code: never trust them). */
export function isDecision<K extends ApprovalKind>(
  kind: K,
  decision: unknown,
): decision is DecisionOf<K> {
  if (decision === "decline") return true;
  switch (kind) {
    case "commandExecution":
      return (
        decision === "accept" ||
        decision === "acceptForSession" ||
        decision === "cancel" ||
        (isObject(decision) &&
          ((Array.isArray(decision.acceptWithExecpolicyAmendment) &&
            decision.acceptWithExecpolicyAmendment.every((part) => typeof part === "string")) ||
            (isObject(decision.applyNetworkPolicyAmendment) &&
              typeof decision.applyNetworkPolicyAmendment.host === "string")))
      );
    case "fileChange":
      return decision === "accept" || decision === "acceptForSession" || decision === "cancel";
    case "permissions":
      return (
        isObject(decision) &&
        isObject(decision.grant) &&
        (decision.scope === "turn" || decision.scope === "session")
      );
    case "userInput":
      return (
        decision === "cancel" ||
        (isObject(decision) &&
          isObject(decision.answers) &&
          Object.values(decision.answers).every(
            (answer) => Array.isArray(answer) && answer.every((part) => typeof part === "string"),
          ))
      );
    case "elicitation":
      return decision === "cancel" || (isObject(decision) && "accept" in decision);
    case "dynamicTool":
      return (
        isObject(decision) &&
        (typeof decision.output === "string" || Array.isArray(decision.output))
      );
    case "tokenRefresh":
      return (
        isObject(decision) &&
        typeof decision.accessToken === "string" &&
        typeof decision.chatgptAccountId === "string"
      );
  }
  return false;
}

/** Whether a decision lets the action go ahead (for reporting). */
export function isApproval(decision: unknown): boolean {
  return decision !== "decline" && decision !== "cancel";
}

/** The wire result for `decision`, shaped for `method` (v2 methods, and the v1 approval twins). */
export function toWireResult(method: string, decision: DecisionOf<ApprovalKind>): unknown {
  switch (method) {
    case "item/commandExecution/requestApproval":
      return {
        decision: commandDecision(decision as ApprovalKinds["commandExecution"]["decision"]),
      };
    case "item/fileChange/requestApproval":
      return { decision };
    case "execCommandApproval":
    case "applyPatchApproval":
      return {
        decision: reviewDecision(decision as ApprovalKinds["commandExecution"]["decision"]),
      };
    case "item/permissions/requestApproval": {
      const d = decision as ApprovalKinds["permissions"]["decision"];
      return d === "decline"
        ? { permissions: {}, scope: "turn" }
        : { permissions: d.grant, scope: d.scope };
    }
    case "item/tool/requestUserInput": {
      const d = decision as ApprovalKinds["userInput"]["decision"];
      if (typeof d === "string") return { answers: {} };
      return {
        answers: Object.fromEntries(
          Object.entries(d.answers).map(([id, answers]) => [id, { answers }]),
        ),
      };
    }
    case "mcpServer/elicitation/request": {
      const d = decision as ApprovalKinds["elicitation"]["decision"];
      if (typeof d === "string") return { action: d, content: null, _meta: null };
      return { action: "accept", content: d.accept, _meta: d.meta ?? null };
    }
    case "item/tool/call": {
      const d = decision as ApprovalKinds["dynamicTool"]["decision"];
      if (d === "decline") {
        return {
          contentItems: [{ type: "inputText", text: "The client declined to run this tool." }],
          success: false,
        };
      }
      const contentItems =
        typeof d.output === "string" ? [{ type: "inputText", text: d.output }] : d.output;
      return { contentItems, success: d.success ?? true };
    }
    case "account/chatgptAuthTokens/refresh": {
      const d = decision as ApprovalKinds["tokenRefresh"]["decision"];
      if (d === "decline") {
        // There is no "no" in the response shape: the request fails, as codex expects without tokens.
        throw new CodexHarnessError(
          "token_refresh_declined",
          "The client has no ChatGPT tokens to give.",
        );
      }
      return {
        accessToken: d.accessToken,
        chatgptAccountId: d.chatgptAccountId,
        chatgptPlanType: d.chatgptPlanType ?? null,
      };
    }
  }
  throw new CodexHarnessError(
    "unsupported_request",
    `No wire mapping for server request ${method}.`,
  );
}

function commandDecision(decision: ApprovalKinds["commandExecution"]["decision"]): Wire | string {
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
function reviewDecision(decision: ApprovalKinds["commandExecution"]["decision"]): Wire | string {
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
