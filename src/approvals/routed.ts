// Approvals that route their requests by rules (the channels bridge's): how code that only holds
// an `Approvals` object (runTurn, the fleet's workers) recognises them, checks their rules and
// derives a copy with more rules and the person a turn runs for.
import { CodexHarnessError } from "../errors.js";
import type { RoutingRule } from "./routing-rules.js";
import type { Approvals } from "./types.js";

/** What a copy of routed approvals adds: rules after their own, who the turn runs for. */
export interface RoutingExtra {
  /** Rules tried after the approvals' own, in order (first match wins). */
  rules?: readonly RoutingRule[];
  /** The person the turn runs for (replaces the approvals' own, when given). */
  startedBy?: string;
}

/** What routed approvals carry (not enumerable: a copy with `{...approvals}` drops it). */
export interface RoutingHooks {
  /** Their rules, in order. */
  readonly rules: readonly RoutingRule[];
  /** The person the turns run for, when known. */
  readonly startedBy: string | undefined;
  /** A copy of the approvals with `extra`'s rules after their own and its `startedBy`. */
  withRouting(extra: RoutingExtra): Approvals;
  /**
   * Checks that whoever answers knows every principal of `rules` (default: their own), before the
   * first request. Throws an error whose `code` says why (`unknown_principal`), naming the rule.
   */
  check(rules?: readonly RoutingRule[], signal?: AbortSignal): Promise<void>;
}

const HOOKS = Symbol.for("codex-harness.routing-hooks");

/** `approvals` with `hooks` attached (not enumerable), for {@link routingHooksOf} to find. */
export function withRoutingHooks<A extends Approvals>(approvals: A, hooks: RoutingHooks): A {
  Object.defineProperty(approvals, HOOKS, { value: hooks, enumerable: false });
  return approvals;
}

/** The routing hooks of `approvals` (channels approvals have them), or undefined. */
export function routingHooksOf(approvals: Approvals | undefined): RoutingHooks | undefined {
  if (approvals === undefined) return undefined;
  return (approvals as { [HOOKS]?: RoutingHooks })[HOOKS];
}

/**
 * A copy of routed approvals (`channelsApprovals(…)`, or a composition holding one) that applies
 * `extra.rules` after their own rules, with `extra.startedBy` as the person the turn runs for.
 * Throws `routing_unsupported` for approvals that route nothing (only the channels runtime
 * enforces who answers).
 */
export function routedApprovals(approvals: Approvals, extra: RoutingExtra): Approvals {
  const hooks = routingHooksOf(approvals);
  if (hooks === undefined) {
    throw new CodexHarnessError(
      "routing_unsupported",
      "These approvals do not route requests by rules: only channelsApprovals(…) (the channels runtime) enforces who may answer.",
    );
  }
  return hooks.withRouting(extra);
}

/**
 * Checks, before the first request, that whoever answers for routed approvals (the channels
 * runtime) knows every person, program and group their rules name. Throws what the runtime says
 * (`unknown_principal`, naming the rule and where it is written), or `routing_unsupported` for
 * approvals that route nothing. runTurn does this itself.
 */
export async function checkRoutingRules(approvals: Approvals, signal?: AbortSignal): Promise<void> {
  const hooks = routingHooksOf(approvals);
  if (hooks === undefined) {
    throw new CodexHarnessError(
      "routing_unsupported",
      "These approvals do not route requests by rules: there is nothing to check.",
    );
  }
  await hooks.check(undefined, signal);
}
