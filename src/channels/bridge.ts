// The bridge: an `approvals` object that turns codex's requests into interactions of a channels
// runtime and their responses into codex's answers, failing closed.
import { setTimeout as sleep } from "node:timers/promises";
import { type RoutingExtra, withRoutingHooks } from "../approvals/routed.js";
import { routingFor } from "../approvals/routing-match.js";
import { normaliseRoutingRules, type RoutingRule } from "../approvals/routing-rules.js";
import type { ApprovalContext, Approvals } from "../events/approval-types.js";
import { ChannelsClient, type ChannelsClientOptions } from "./client.js";
import { ChannelsError } from "./errors.js";
import {
  answeredBy,
  DEFAULT_INTERACTION_TIMEOUT_MS,
  type Interaction,
  type Routing,
} from "./interaction-types.js";
import {
  BRIDGED_KINDS,
  type BridgedDecision,
  type BridgedKind,
  type BridgedRequest,
  decisionFor,
  interactionFor,
} from "./normalize.js";
import { whoMayAnswer } from "./routing.js";

/** Options of {@link channelsApprovals}. */
export interface ChannelsApprovalsOptions extends ChannelsClientOptions {
  /** Which request kinds go to the runtime (default: all five people answer). */
  kinds?: BridgedKind[];
  /** How long an interaction waits for an answer before it is declined (default 10 minutes). */
  timeoutMs?: number;
  /** `source.name` of the interactions (default `codex-harness`). */
  source?: string;
  /**
   * `source.project`: the project the agent works on (e.g. its folder), which the inbox shows to
   * group requests, also those that carry no folder of their own (questions, file changes).
   */
  project?: string;
  /**
   * The routing of every interaction (who may see and answer it, as the runtime enforces; hints
   * for backends), under what a matching rule of `rules` says. Without it and without a matching
   * rule: anyone whose token has the `answer` scope answers, as before.
   */
  routing?: Routing;
  /**
   * Routing rules (e.g. a space's `[[routing]]`): each request gets the routing of the first rule
   * that governs it, with `startedBy`; a request no rule governs gets `routing` alone.
   */
  rules?: readonly RoutingRule[];
  /** The person the turns run for (the routing's `startedBy`; a rule's `notSelf` excludes them). */
  startedBy?: string;
}

/** The decision's reason in words, by the response's action ("approved by alice in …"). */
const SAID: Readonly<Record<Interaction["actions"][number], string>> = {
  accept: "approved",
  decline: "declined",
  cancel: "declined (turn interrupted)",
  text: "answered",
};

/** How the reason of an answer given through the runtime ends ("approved by alice in …"). */
export const IN_CHANNELS = " in the channels runtime";

/** The end reason of an interaction nobody its routing allows could answer. */
const NO_ONE_ALLOWED = "no_one_allowed";

/** How long past an interaction's timeout the bridge waits to read its end (< the 5 s margin). */
const END_GRACE_MS = 3_000;

/** How long one long poll waits (the runtime caps it at 60 s). */
const POLL_MS = 25_000;

/**
 * An `approvals` object for `new Codex({ approvals })` (or a thread's) that sends each command,
 * file change, permissions, question and MCP form request to a channels runtime as an interaction
 * and answers codex with the first response. Waiting does not block codex's other messages.
 * When codex withdraws the request (`serverRequest/resolved`, the turn ended) the interaction is
 * cancelled; when it expires, is cancelled, or the runtime cannot be reached until the deadline,
 * codex gets `decline`. A runtime restart in between is survived: the wait resumes. Who answered
 * (as the runtime authenticated them) is the decision's reason: `approval.resolved` says
 * "approved by alice in the channels runtime" ("approved by Alice, Bob …" when a rule needs two).
 * The token needs the scopes `create`, `read` and `operate`; a refused one (401, 403) fails the
 * request at once, and codex gets `decline`.
 *
 * Who may answer: with `rules`, each request gets the routing of the first rule that governs it
 * (with `startedBy`), over `routing`; with neither, anyone whose token has the `answer` scope
 * answers, as before. A request the runtime refuses to ask (a routing naming someone it does not
 * know) and one nobody allowed could answer by its deadline are declined, and the reason says so
 * ("declined: no one allowed to answer (group:release, 2 approvals)"). The approvals carry
 * their rules: `routedApprovals(approvals, { rules, startedBy })` derives a copy with more rules
 * (tried after these) for one run, and runTurn checks every rule's principals with the runtime
 * before the turn starts. Throws `invalid_option` for a malformed rule.
 */
export function channelsApprovals(options: ChannelsApprovalsOptions): Approvals {
  const client = new ChannelsClient(options);
  const rules = normaliseRoutingRules(
    options.rules ?? [],
    "channelsApprovals: rules",
    "invalid_option",
  );
  const timeoutMs = options.timeoutMs ?? DEFAULT_INTERACTION_TIMEOUT_MS;
  const kinds = options.kinds ?? (Object.keys(BRIDGED_KINDS) as BridgedKind[]);
  const approvals: Approvals = { timeoutMs: timeoutMs + 5_000 };
  const handler = (request: BridgedRequest, context: ApprovalContext) =>
    ask(client, request, context, {
      timeoutMs,
      source: options.source ?? "codex-harness",
      ...(options.project ? { project: options.project } : {}),
      ...routingOf(request, options.routing, rules, options.startedBy),
    });
  // Each kind's handler gets its own kind of request; `ask` maps the answer to that kind's decision.
  for (const kind of kinds) (approvals as Record<string, unknown>)[kind] = handler;
  return withRoutingHooks(approvals, {
    rules,
    startedBy: options.startedBy,
    withRouting: (extra: RoutingExtra) => {
      const startedBy = extra.startedBy ?? options.startedBy;
      return channelsApprovals({
        ...options,
        rules: [...rules, ...(extra.rules ?? [])],
        ...(startedBy === undefined ? {} : { startedBy }),
      });
    },
    check: (checked = rules, signal) => checkRules(client, checked, signal),
  });
}

/**
 * The routing of `request`'s interaction: `routing` under the routing of the first rule of
 * `rules` that governs it (with `startedBy`), else `routing` alone; none when neither says any.
 */
function routingOf(
  request: BridgedRequest,
  routing: Routing | undefined,
  rules: readonly RoutingRule[],
  startedBy: string | undefined,
): { routing?: Routing } {
  const ruled = routingFor(rules, request, startedBy);
  if (ruled) return { routing: { ...routing, ...ruled } };
  return routing ? { routing } : {};
}

/**
 * Checks every rule's principals with the runtime (`POST /v1/routing/check`), one rule at a time;
 * the first refusal is thrown with the rule's name and where it is written first.
 */
async function checkRules(
  client: ChannelsClient,
  rules: readonly RoutingRule[],
  signal?: AbortSignal,
): Promise<void> {
  for (const rule of rules) {
    try {
      await client.checkRouting(
        { answer: rule.answer, ...(rule.see ? { see: rule.see } : {}) },
        signal,
      );
    } catch (error) {
      if (!(error instanceof ChannelsError)) throw error;
      const where = rule.origin ? ` (${rule.origin})` : "";
      throw new ChannelsError(
        error.code,
        error.status,
        `Routing rule ${JSON.stringify(rule.name)}${where}: ${error.message}`,
        { cause: error },
      );
    }
  }
}

async function ask(
  client: ChannelsClient,
  request: BridgedRequest,
  { signal, explain, trace }: ApprovalContext,
  options: {
    timeoutMs: number;
    source: string;
    project?: string;
    routing?: Routing;
  },
): Promise<BridgedDecision> {
  // The runtime ends an expired interaction at its next sweep (≤ 1 s later): waiting a little past
  // the timeout reads how it ended (e.g. nobody allowed could answer), within the handler's time.
  const deadline = Date.now() + options.timeoutMs + END_GRACE_MS;
  let created: Interaction;
  try {
    created = await client.create(
      {
        ...interactionFor(request, options.source, options.project),
        timeoutMs: options.timeoutMs,
        ...(options.routing ? { routing: options.routing } : {}),
      },
      signal,
      trace,
    );
  } catch (error) {
    // The runtime will not ask anyone (a routing naming someone it does not know, a malformed
    // one): nobody can answer, so codex is told no, and why.
    if (error instanceof ChannelsError && (error.status === 400 || error.status === 422)) {
      explain?.(`declined: the channels runtime refused to ask (${error.code}: ${error.message})`);
      return "decline";
    }
    throw error;
  }
  const ended = await waitForEnd(client, created.id, deadline, signal);
  if (ended?.status === "resolved" && ended.response) {
    const decision = decisionFor(request, ended.response);
    const by = answeredBy(ended.response);
    if (by) explain?.(`${SAID[ended.response.action]} by ${by}${IN_CHANNELS}`);
    return decision;
  }
  if (ended?.status === "errored" && ended.end?.reason === NO_ONE_ALLOWED) {
    explain?.(`declined: no one allowed to answer (${whoMayAnswer(ended)})`);
    return "decline";
  }
  if (signal.aborted) {
    // codex no longer waits for this answer: tell the people it no longer matters.
    await client
      .cancel(
        created.id,
        "cleared",
        "codex withdrew the request (answered elsewhere, or the turn ended).",
      )
      .catch(() => undefined);
  }
  return "decline";
}

/** Long-polls until the interaction ends, the deadline passes, or `signal` aborts (undefined then). */
async function waitForEnd(
  client: ChannelsClient,
  id: string,
  deadline: number,
  signal: AbortSignal,
): Promise<Interaction | undefined> {
  let backoff = 250;
  while (!signal.aborted && Date.now() < deadline) {
    try {
      const waitMs = Math.max(1, Math.min(POLL_MS, deadline - Date.now()));
      const interaction = await client.get(id, { waitMs, signal });
      backoff = 250;
      if (interaction.status !== "pending" && interaction.status !== "delivered")
        return interaction;
    } catch (error) {
      if (signal.aborted) return undefined;
      // Refused (a revoked token, a missing scope): waiting longer changes nothing.
      if (error instanceof ChannelsError && (error.status === 401 || error.status === 403)) {
        throw error;
      }
      // The runtime is down or restarting: try again, a little later each time.
      await sleep(Math.min(backoff, Math.max(0, deadline - Date.now())), undefined, {
        signal,
      }).catch(() => undefined);
      backoff = Math.min(backoff * 2, 5_000);
    }
  }
  return undefined;
}
