// Who may see and who may answer an interaction, as its `routing` says and the runtime enforces:
// principals (people, programs, groups), a number of distinct accepts, and `notSelf`. Pure
// decisions over an interaction and an identity; the runtime applies them inside the store's
// transaction, so two racing answers are decided one after the other.
import { ChannelsError } from "./errors.js";
import type { Approval, Interaction, Routing } from "./interaction-types.js";
import type { Identity, Person } from "./people-types.js";

/** The prefix of a group principal (`group:release`). */
export const GROUP_PREFIX = "group:";

/** Most accepts a rule may require. */
export const MAX_APPROVALS = 10;

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
 * directory's token is nobody in particular: it belongs to no group and answers only interactions
 * whose routing names nobody.
 */
export function whyNotAnswerer(interaction: Interaction, identity: Identity): string | undefined {
  const routing = interaction.routing;
  if (!isRouted(routing)) return undefined;
  if (routing.answer !== undefined && !isAmong(identity, routing.answer)) {
    const who = identity.kind === "admin" ? "the runtime's own token" : identity.id;
    return `Only ${listed(routing.answer)} may answer this request, and ${who} is not among them.`;
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
 * The principals of `routing` no one in `people` is: a person or program id nobody has, a group
 * nobody is in. Empty when every one is known.
 */
export function unknownPrincipals(routing: Routing, people: readonly Person[]): string[] {
  const ids = new Set(people.map((person) => person.id));
  const groups = new Set(people.flatMap((person) => person.groups));
  const named = [...(routing.answer ?? []), ...(routing.see ?? [])];
  return [...new Set(named)].filter((principal) =>
    principal.startsWith(GROUP_PREFIX)
      ? !groups.has(principal.slice(GROUP_PREFIX.length))
      : !ids.has(principal),
  );
}

/** Throws `unknown_principal` (422) when `routing` names someone the runtime does not know. */
export function checkPrincipals(routing: Routing, people: readonly Person[]): void {
  const unknown = unknownPrincipals(routing, people);
  if (unknown.length === 0) return;
  const groups = [...new Set(people.flatMap((person) => person.groups))].sort();
  throw new ChannelsError(
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
