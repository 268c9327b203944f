// The bridge: an `approvals` object that turns codex's requests into interactions of a channels
// runtime and their responses into codex's answers, failing closed.
import { setTimeout as sleep } from "node:timers/promises";
import type { ApprovalContext, Approvals } from "../events/approval-types.js";
import { ChannelsClient, type ChannelsClientOptions } from "./client.js";
import { ChannelsError } from "./errors.js";
import {
  answeredBy,
  DEFAULT_INTERACTION_TIMEOUT_MS,
  type Interaction,
} from "./interaction-types.js";
import {
  BRIDGED_KINDS,
  type BridgedDecision,
  type BridgedKind,
  type BridgedRequest,
  decisionFor,
  interactionFor,
} from "./normalize.js";

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
  /** Routing hints stored with each interaction, for backends. */
  routing?: Record<string, unknown>;
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
 * "approved by alice in the channels runtime". The token needs the scopes `create`, `read` and `operate`; a
 * refused one (401, 403) fails the request at once, and codex gets `decline`.
 */
export function channelsApprovals(options: ChannelsApprovalsOptions): Approvals {
  const client = new ChannelsClient(options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_INTERACTION_TIMEOUT_MS;
  const kinds = options.kinds ?? (Object.keys(BRIDGED_KINDS) as BridgedKind[]);
  const approvals: Approvals = { timeoutMs: timeoutMs + 5_000 };
  const handler = (request: BridgedRequest, context: ApprovalContext) =>
    ask(client, request, context, {
      timeoutMs,
      source: options.source ?? "codex-harness",
      ...(options.project ? { project: options.project } : {}),
      ...(options.routing ? { routing: options.routing } : {}),
    });
  // Each kind's handler gets its own kind of request; `ask` maps the answer to that kind's decision.
  for (const kind of kinds) (approvals as Record<string, unknown>)[kind] = handler;
  return approvals;
}

async function ask(
  client: ChannelsClient,
  request: BridgedRequest,
  { signal, explain }: ApprovalContext,
  options: {
    timeoutMs: number;
    source: string;
    project?: string;
    routing?: Record<string, unknown>;
  },
): Promise<BridgedDecision> {
  const deadline = Date.now() + options.timeoutMs;
  const created = await client.create(
    {
      ...interactionFor(request, options.source, options.project),
      timeoutMs: options.timeoutMs,
      ...(options.routing ? { routing: options.routing } : {}),
    },
    signal,
  );
  const ended = await waitForEnd(client, created.id, deadline, signal);
  if (ended?.status === "resolved" && ended.response) {
    const decision = decisionFor(request, ended.response);
    const by = answeredBy(ended.response);
    if (by) explain?.(`${SAID[ended.response.action]} by ${by}${IN_CHANNELS}`);
    return decision;
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
