// Requests a routing rule governs, under `codex-harness acp`: they go to the channels runtime only,
// never to the editor — the person at the editor is not authenticated to the runtime, so their
// answer would bypass the rule. The editor is told who is asked instead. Requests no rule governs
// are asked as without rules (the editor and channels, first answer wins: follow-person.ts).
import { type RuleRouting, routingFor } from "../approvals/routing-match.js";
import { ROUTING_KINDS, type RoutingRule } from "../approvals/routing-rules.js";
import { commandLine } from "../channels/titles.js";
import type { ApprovalContext, ApprovalRequest, Approvals } from "../events/approval-types.js";

type Handler = (request: ApprovalRequest, context: ApprovalContext) => unknown;

/** Which rules route requests to channels only, and the person the turns run for. */
export interface GovernedRouting {
  /** The rules, in order: the first that governs a request decides. */
  rules: readonly RoutingRule[];
  /** The person the turns run for (a rule's `notSelf` excludes them). */
  startedBy?: string | undefined;
}

/**
 * Approvals that send each request a rule of `routing` governs ({@link routingFor}) to `channels`
 * alone (after `tell` said so, with a line for the person), and every other request to `others`.
 * `channels` should be the routed approvals that apply the same rules (`routedApprovals`), so the
 * runtime enforces who answers.
 */
export function governedByChannels(
  channels: Approvals,
  others: Approvals,
  routing: GovernedRouting,
  tell?: (notice: string, request: ApprovalRequest) => void,
): Approvals {
  const approvals: Approvals = { ...others };
  const handlers = approvals as Record<string, unknown>;
  for (const kind of ROUTING_KINDS) {
    const ruled = (channels as Record<string, unknown>)[kind];
    if (typeof ruled !== "function") continue;
    const other = (others as Record<string, unknown>)[kind];
    handlers[kind] = (request: ApprovalRequest, context: ApprovalContext) => {
      const governed = routingFor(routing.rules, request, routing.startedBy);
      if (governed) {
        tell?.(waitingNotice(request, governed), request);
        return (ruled as Handler)(request, context);
      }
      // Left to the default (decline) when the others do not handle this kind.
      return typeof other === "function" ? (other as Handler)(request, context) : undefined;
    };
  }
  return approvals;
}

/**
 * What the person at the editor is told about a governed request: "npm publish: waiting for
 * group:release (rule publish) in the channels runtime; it cannot be answered in the editor."
 */
export function waitingNotice(request: ApprovalRequest, routing: RuleRouting): string {
  const who = [routing.answer.join(", ")];
  if ((routing.approvals ?? 1) > 1) who.push(`${routing.approvals} approvals`);
  if (routing.notSelf && routing.startedBy) who.push(`not ${routing.startedBy}`);
  return `${subjectOf(request)}: waiting for ${who.join(", ")} (rule ${routing.rule}) in the channels runtime; it cannot be answered in the editor.\n`;
}

/** The request in a few words: the command, the files, or its kind. */
function subjectOf(request: ApprovalRequest): string {
  switch (request.kind) {
    case "commandExecution":
      return commandLine(request.command) || "A command";
    case "fileChange": {
      const paths = request.changes.map((change) => change.path);
      return paths.length > 0 ? `Edit ${paths.join(", ")}` : "A file change";
    }
    case "permissions":
      return "More sandbox permissions";
    case "userInput":
      return "A question";
    case "elicitation":
      return `${request.server_name} asks`;
    default:
      return "A request";
  }
}
