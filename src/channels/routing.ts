// Who may see and who may answer an interaction, as its `routing` says and the runtime enforces:
// principals (people, programs, groups), a number of distinct accepts, and `notSelf`. Pure
// decisions over an interaction and an identity; the runtime applies them inside the store's
// transaction, so two racing answers are decided one after the other.
import { ChannelsError } from "./errors.js";
import type { Approval, Interaction, Routing } from "./interaction-types.js";
import type { Principals } from "./people-store.js";
import type { Identity, Person } from "./people-types.js";

/** The prefix of a group principal (`group:release`). */
export const GROUP_PREFIX = "group:";

/** Whether `routing` restricts who answers (a list of principals, several accepts, or notSelf). */
export function isRouted(routing: Routing | undefined): routing is Routing {
  return (
    routing !== undefined &&
    (routing.answer !== undefined || (routing.approvals ?? 1) > 1 || routing.notSelf === true)
  );
}

/** Whether `identity` is one of `principals` (its id, or `group:<g>` of one of its groups). */
export function isAmong(identity: Pick<Identity, "id" | "groups">, principals: readonly string[]) {
  return principals.some((principal) =>
    principal.startsWith(GROUP_PREFIX)
      ? identity.groups.includes(principal.slice(GROUP_PREFIX.length))
      : principal === identity.id,
  );
}

/**
 * Why `identity` may not answer `interaction`, in words for a 403 and the audit log; undefined
 * when it may. Without routing anyone with the `answer` scope may (checked before). The data
 * directory's token is nobody in particular: it answers only interactions without routing (it
 * is in no group, counts as no one of several people, and could be anyone's, the starter's too).
 */
export function whyNotAnswerer(interaction: Interaction, identity: Identity): string | undefined {
  const routing = interaction.routing;
  if (!isRouted(routing)) return undefined;
  if (identity.kind === "admin") {
    return `This request's routing says who may answer it (${whoMayAnswer(interaction)}), and the runtime's own token is nobody in particular: answer with a person's token.`;
  }
  if (routing.answer !== undefined && !isAmong(identity, routing.answer)) {
    return `Only ${listed(routing.answer)} may answer this request, and ${identity.id} is not among them.`;
  }
  if (routing.notSelf && routing.startedBy !== undefined && routing.startedBy === identity.id) {
    return `${identity.id} started this turn, and this request must be answered by someone else (notSelf).`;
  }
  return undefined;
}

/** Whether `identity` may see `interaction`: without `routing.see` everyone who may read. */
export function maySee(interaction: Interaction, identity: Identity): boolean {
  const see = interaction.routing?.see;
  if (see === undefined || identity.kind === "admin") return true;
  if (interaction.createdBy !== undefined && interaction.createdBy === identity.id) return true;
  return isAmong(identity, [...see, ...(interaction.routing?.answer ?? [])]);
}

/** How many distinct accepts `interaction` needs (1 unless its routing asks for more). */
export function approvalsNeeded(interaction: Pick<Interaction, "routing">): number {
  return interaction.routing?.approvals ?? 1;
}

/**
 * What an accept by `identity` adds to the accepts `interaction` has so far: the accepts with it,
 * and whether they are enough. Throws `already_approved` (409) when this person accepted already.
 */
export function withApproval(
  interaction: Interaction,
  identity: Identity,
  at: string,
): { approvals: Approval[]; complete: boolean } {
  const before = interaction.approvals ?? [];
  const needed = approvalsNeeded(interaction);
  if (before.some((approval) => approval.by === identity.id)) {
    throw new ChannelsError(
      "already_approved",
      409,
      `${identity.id} has approved this request already; it needs ${needed} approvals from different people (${before.length} of ${needed} so far).`,
    );
  }
  const approvals = [...before, { by: identity.id, name: identity.name, at }];
  return { approvals, complete: approvals.length >= needed };
}

/** "1 of 2 approvals (alice)": where an interaction that needs several accepts stands. */
export function approvalProgress(interaction: Pick<Interaction, "routing" | "approvals">): string {
  const approvals = interaction.approvals ?? [];
  const names = approvals.map((approval) => approval.name ?? approval.by);
  return `${approvals.length} of ${approvalsNeeded(interaction)} approvals${names.length ? ` (${names.join(", ")})` : ""}`;
}

/**
 * Throws `invalid_routing` (422) for a routing that cannot be enforced as written: `notSelf`
 * without `startedBy` (whom it would exclude). The API's schema checks the rest of its shape.
 */
export function checkRoutingShape(routing: Routing): void {
  if (routing.notSelf && routing.startedBy === undefined) {
    throw new ChannelsError(
      "invalid_routing",
      422,
      "routing.notSelf needs routing.startedBy: who started the turn, whom it excludes.",
    );
  }
}

/** The principals `routing` names, each once, in the order it names them. */
function principalsOf(routing: Routing): string[] {
  return [...new Set([...(routing.answer ?? []), ...(routing.see ?? [])])];
}

/** The people and programs (by id) and the groups `routing` names, each once. */
export function namedPrincipals(routing: Routing): Principals {
  const named = principalsOf(routing);
  return {
    ids: named.filter((principal) => !principal.startsWith(GROUP_PREFIX)),
    groups: named
      .filter((principal) => principal.startsWith(GROUP_PREFIX))
      .map((principal) => principal.slice(GROUP_PREFIX.length)),
  };
}

/** The principals of `routing` that `known` does not hold, in the order it names them. */
export function unknownPrincipals(routing: Routing, known: Principals): string[] {
  return principalsOf(routing).filter((principal) =>
    principal.startsWith(GROUP_PREFIX)
      ? !known.groups.includes(principal.slice(GROUP_PREFIX.length))
      : !known.ids.includes(principal),
  );
}

/**
 * `unknown_principal` (422): the routing names `unknown`, whom the runtime does not know; says
 * how to add them and the groups there are (of `people`).
 */
export function unknownPrincipalError(unknown: string[], people: readonly Person[]): ChannelsError {
  const groups = [...new Set(people.flatMap((person) => person.groups))].sort();
  return new ChannelsError(
    "unknown_principal",
    422,
    `The routing names ${unknown.map((p) => JSON.stringify(p)).join(", ")}, whom this runtime does not know: add them (codex-harness people add <id> --group <group>) or fix the policy. Known groups: ${groups.length ? groups.join(", ") : "none"}.`,
  );
}

/**
 * Whether enough people could still answer `interaction` to settle it: the people of `people`
 * its routing allows (not its starter under notSelf), counting those who accepted already.
 * Always true for an interaction whose routing names nobody.
 */
export function someoneMayAnswer(interaction: Interaction, people: readonly Person[]): boolean {
  const routing = interaction.routing;
  if (!isRouted(routing)) return true;
  const allowed = people.filter((person) => {
    const identity: Identity = { ...person, scopes: [] };
    return whyNotAnswerer(interaction, identity) === undefined;
  });
  const done = new Set((interaction.approvals ?? []).map((approval) => approval.by));
  const more = allowed.filter((person) => !done.has(person.id)).length;
  return done.size + more >= approvalsNeeded(interaction);
}

/** Who `interaction`'s routing lets answer, in words ("group:release, 2 approvals, not alice"). */
export function whoMayAnswer(interaction: Interaction): string {
  const routing = interaction.routing ?? {};
  const parts = [routing.answer ? listed(routing.answer) : "anyone who may answer"];
  const needed = approvalsNeeded(interaction);
  if (needed > 1) parts.push(`${needed} approvals`);
  if (routing.notSelf && routing.startedBy) parts.push(`not ${routing.startedBy}`);
  return parts.join(", ");
}

function listed(principals: readonly string[]): string {
  if (principals.length === 0) return "no one";
  return principals.join(", ");
}

/** What the one asking may do with an interaction, as the API tells them (`Interaction.viewer`). */
export interface ViewerRights {
  /** Whether an answer from them would be taken now. */
  mayAnswer: boolean;
  /** Why not, in words to show them. */
  reason?: string;
}

/**
 * What `identity` may do with `interaction` now: answer it only with the `answer` scope, when its
 * routing lets them, and when they have not accepted it already. Screens offer Accept only when
 * `mayAnswer` is true.
 */
export function viewerRights(interaction: Interaction, identity: Identity): ViewerRights {
  if (!identity.scopes.includes("answer")) {
    return { mayAnswer: false, reason: "Your sign-in may read requests, not answer them." };
  }
  const refusal = whyNotAnswerer(interaction, identity);
  if (refusal) return { mayAnswer: false, reason: refusal };
  if (interaction.approvals?.some((approval) => approval.by === identity.id)) {
    return {
      mayAnswer: false,
      reason: `You approved it; it waits for someone else (${approvalProgress(interaction)}).`,
    };
  }
  return { mayAnswer: true };
}

/**
 * `interaction` as served to `identity`: with {@link viewerRights} as `viewer`; undefined when
 * its routing hides it from them ({@link maySee}).
 */
export function viewFor(interaction: Interaction, identity: Identity): Interaction | undefined {
  if (!maySee(interaction, identity)) return undefined;
  return { ...interaction, viewer: viewerRights(interaction, identity) };
}
