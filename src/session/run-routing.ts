// Who may answer a turn's requests: the spaces' `[[routing]]` rules and a run's own, applied to
// routed approvals (the channels bridge's) with the person the turn runs for, and checked with the
// channels runtime before the turn starts — a policy that cannot hold fails the run, not a request.
import { routingHooksOf } from "../approvals/routed.js";
import { governsKind } from "../approvals/routing-match.js";
import {
  normaliseRoutingRules,
  ROUTING_KINDS,
  type RoutingRule,
} from "../approvals/routing-rules.js";
import { CodexHarnessError } from "../errors.js";
import type { Approvals } from "../events/approval-types.js";
import { readHomeRouting } from "../spaces/home-permissions.js";
import type { PermissionHandler } from "./unified-types.js";

/** What a turn's routing is made of. */
export interface RoutingInputs {
  /** The approvals given to the turn (routed ones apply the rules). */
  approvals?: Approvals | undefined;
  /** The handler deciding commands and file changes before `approvals`. */
  permissionHandler?: PermissionHandler | undefined;
  /** The spaces' `[[routing]]` rules, in load order. */
  spaceRules: readonly RoutingRule[];
  /** The run's own rules (tried after the spaces'). */
  runRules: readonly RoutingRule[];
  /** The person the turn runs for. */
  startedBy?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** A routing policy that cannot be enforced as given: `code` says why, `rule` which rule. */
export class RoutingRefusedError extends CodexHarnessError {
  constructor(
    code: string,
    message: string,
    readonly rule?: RoutingRule,
    options: { cause?: unknown } = {},
  ) {
    super(code, message, options);
  }

  /** For a run's result: `codeOfCodex` (this code), and the rule's name and where it is written. */
  get details(): Record<string, unknown> {
    const { rule } = this;
    return {
      codeOfCodex: this.code,
      ...(rule ? { rule: rule.name, ...(rule.origin ? { origin: rule.origin } : {}) } : {}),
    };
  }
}

/** Who may answer a turn's requests: the fields of runTurn's request (and the fleet's) saying so. */
export interface TurnRouting {
  /**
   * The person the turn runs for (their id in the channels runtime): the routing's `startedBy`,
   * whom a `not_self` rule keeps from answering.
   */
  startedBy?: string;
  /**
   * Routing rules of this run (e.g. a fleet submission's), tried after the approvals' own and the
   * spaces' `[[routing]]` rules: the first that governs a request decides who answers it. Needs
   * routed approvals (`channelsApprovals`), which also apply the spaces' rules.
   */
  routing?: { rules: RoutingRule[] };
}

/** What of a turn's request its routing comes from (runTurn's request has all of it). */
export interface TurnRoutingRequest extends TurnRouting {
  approvals?: Approvals;
  permissionHandler?: PermissionHandler;
  signal?: AbortSignal;
}

/** What is wrong with a request's `startedBy` and `routing`, in words; undefined when nothing. */
export function routingProblem(request: TurnRoutingRequest): string | undefined {
  const { startedBy } = request;
  if (
    startedBy !== undefined &&
    (typeof startedBy !== "string" || startedBy.trim() === "" || startedBy.length > 200)
  ) {
    return "`startedBy` is the id of the person the turn runs for: a non-empty string (up to 200 characters).";
  }
  if (request.routing === undefined) return undefined;
  try {
    normaliseRoutingRules(request.routing?.rules, "runTurn: routing.rules");
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * The approvals of a turn in codex home `home`: {@link routedTurnApprovals} with the `[[routing]]`
 * rules of the spaces installed there and the request's own. Throws {@link RoutingRefusedError},
 * or `invalid_permissions` for a damaged home.
 */
export async function approvalsForTurn(
  request: TurnRoutingRequest,
  home: string,
): Promise<Approvals | undefined> {
  return routedTurnApprovals({
    approvals: request.approvals,
    permissionHandler: request.permissionHandler,
    spaceRules: await readHomeRouting(home),
    runRules: request.routing?.rules ?? [],
    startedBy: request.startedBy,
    signal: request.signal,
  });
}

/**
 * The approvals the turn runs with: routed approvals with the spaces' and the run's rules after
 * their own and `startedBy`, once every rule's principals are known to the runtime; other
 * approvals as given, when no rule governs what they (or the permission handler) answer. Throws
 * {@link RoutingRefusedError}: `routing_unenforced` when rules govern requests that something
 * other than the channels runtime would answer, `not_self_without_started_by` when a `not_self`
 * rule has nobody to exclude, or the runtime's refusal of a rule (`unknown_principal`, or why it
 * could not be asked).
 */
export async function routedTurnApprovals(turn: RoutingInputs): Promise<Approvals | undefined> {
  const extra = [...turn.spaceRules, ...turn.runRules];
  const hooks = routingHooksOf(turn.approvals);
  const rules = [...(hooks?.rules ?? []), ...extra];
  if (rules.length === 0) {
    return hooks && turn.startedBy !== undefined
      ? hooks.withRouting({ startedBy: turn.startedBy })
      : turn.approvals;
  }
  const bypassed = bypassingKinds(turn, rules, hooks === undefined);
  if (bypassed.length > 0) {
    const who =
      hooks === undefined
        ? "these approvals are not the channels runtime's (channelsApprovals)"
        : "the permission handler decides them before the channels runtime is asked";
    throw new RoutingRefusedError(
      "routing_unenforced",
      `The routing rules say who may answer ${bypassed.join(", ")} requests, but ${who}: nobody would enforce them. Answer through channelsApprovals({ url, token }) (without a permission handler), or remove the rules.`,
    );
  }
  if (hooks === undefined) return turn.approvals;
  const startedBy = turn.startedBy ?? hooks.startedBy;
  const notSelf = rules.find((rule) => rule.notSelf);
  if (notSelf && startedBy === undefined) {
    throw new RoutingRefusedError(
      "not_self_without_started_by",
      `Routing rule ${named(notSelf)} has not_self: the person the turn runs for may not answer, and this run names nobody. Pass startedBy (the person's id).`,
      notSelf,
    );
  }
  try {
    await hooks.check(rules, turn.signal);
  } catch (error) {
    const code = error instanceof CodexHarnessError ? error.code : "routing_check_failed";
    const rule = rules.find((candidate) => (error as Error).message.includes(named(candidate)));
    throw new RoutingRefusedError(
      code,
      `The routing rules could not be checked with the channels runtime, so the turn did not start: ${(error as Error).message}`,
      rule,
      { cause: error },
    );
  }
  return hooks.withRouting({
    rules: extra,
    ...(turn.startedBy === undefined ? {} : { startedBy: turn.startedBy }),
  });
}

/**
 * The request kinds `rules` govern that something other than the channels runtime would answer:
 * the permission handler's (commands, file changes), and, when the approvals are not routed,
 * every kind they handle.
 */
function bypassingKinds(
  turn: RoutingInputs,
  rules: readonly RoutingRule[],
  unrouted: boolean,
): string[] {
  const kinds = new Set<string>();
  if (turn.permissionHandler) {
    for (const kind of ["commandExecution", "fileChange"]) {
      if (governsKind(rules, kind)) kinds.add(kind);
    }
  }
  if (unrouted && turn.approvals) {
    for (const kind of ROUTING_KINDS) {
      if (turn.approvals[kind] !== undefined && governsKind(rules, kind)) kinds.add(kind);
    }
  }
  return [...kinds];
}

/** A rule as messages name it: `"publish"`, and where it is written. */
function named(rule: RoutingRule): string {
  return `${JSON.stringify(rule.name)}${rule.origin ? ` (${rule.origin})` : ""}`;
}
