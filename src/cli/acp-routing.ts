// `codex-harness acp --target`: the target's `[[routing]]` rules, applied to the channels runtime's
// approvals and checked with it before the agent serves anyone — or refused when nothing would
// enforce them (no --channels: the person at the editor is nobody the runtime knows).
import { routingHooksOf } from "../approvals/routed.js";
import type { RoutingRule } from "../approvals/routing-rules.js";
import type { Approvals } from "../events/approval-types.js";
import { RoutingRefusedError, routedTurnApprovals } from "../session/run-routing.js";
import { readHomeRouting } from "../spaces/home-permissions.js";

/**
 * The channels approvals of `acp` in codex home `home`: with the `[[routing]]` rules of the spaces
 * installed there applied (the agent then sends the requests they govern to channels only) once
 * the runtime knows everyone they name; as given when there are none. `startedBy` is the person
 * the turns run for. Throws {@link RoutingRefusedError}: `routing_unenforced` when there are rules
 * and no `channels`, `not_self_without_started_by`, or the runtime's refusal of a rule
 * (`unknown_principal`, or why it could not be asked); `invalid_permissions` for a damaged home.
 */
export async function acpChannels(
  home: string,
  channels: Approvals | undefined,
  startedBy: string | undefined,
  signal?: AbortSignal,
): Promise<Approvals | undefined> {
  const rules = await readHomeRouting(home);
  if (rules.length === 0) return channels;
  if (channels === undefined) {
    throw new RoutingRefusedError(
      "routing_unenforced",
      `The target's [[routing]] rules say who may answer (${named(rules)}), and nothing here would enforce them: the person at the editor is not checked against them. Add --channels URL (the channels runtime enforces them; the requests they govern go there only), or remove the rules.`,
      rules[0],
    );
  }
  // Said in the words of this command's flags (routedTurnApprovals would ask for startedBy).
  const notSelf = rules.find((rule) => rule.notSelf);
  if (notSelf && startedBy === undefined && routingHooksOf(channels)?.startedBy === undefined) {
    throw new RoutingRefusedError(
      "not_self_without_started_by",
      `Routing rule ${JSON.stringify(notSelf.name)}${notSelf.origin ? ` (${notSelf.origin})` : ""} has not_self: the person the turns run for may not answer, and acp names nobody. Pass --started-by <id> (the person at the editor).`,
      notSelf,
    );
  }
  return routedTurnApprovals({
    approvals: channels,
    spaceRules: rules,
    runRules: [],
    startedBy,
    signal,
  });
}

/** The rules' names, for a message. */
function named(rules: readonly RoutingRule[]): string {
  return rules.map((rule) => rule.name).join(", ");
}
