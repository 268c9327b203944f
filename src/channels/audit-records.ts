// What the audit log records of each change: who (the authenticated identity, never a client's
// claim), where, the outcome, and a summary of the request — its kind, source, title, command,
// files, MCP server — without the text a person was asked (questions, reasons, messages) or typed,
// unless the runtime was told to keep it (`audit: { prompts: true }`).
import { CodexHarnessError } from "../errors.js";
import type { AuditActor, AuditRecord, AuditSummary } from "./audit-types.js";
import type { Interaction } from "./interaction-types.js";
import type { PersonLink } from "./people-links.js";
import type { Identity, Person, TokenRecord } from "./people-types.js";
import { approvalProgress } from "./routing.js";
import { commandLine } from "./titles.js";

/** What the runtime records of requests (`ChannelsServerOptions.audit`). */
export interface AuditOptions {
  /**
   * Also record the text of requests and answers: the title and reason of every kind, the
   * questions, an MCP form's message, and the values of an answer (default false: the log keeps
   * the kind, source, command, files and MCP server, and the title only of approval requests,
   * which is the command or the files).
   */
  prompts?: boolean;
}

/** Who a record names for an authenticated identity. */
export function actorOf(identity: Identity): AuditActor {
  return {
    kind: identity.kind,
    id: identity.id,
    ...(identity.name !== identity.id ? { name: identity.name } : {}),
    ...(identity.tokenId ? { tokenId: identity.tokenId } : {}),
    ...(identity.platformUser ? { platformUser: identity.platformUser } : {}),
  };
}

/** The runtime itself (a deadline passing). */
export const RUNTIME_ACTOR: Readonly<AuditActor> = Object.freeze({
  kind: "runtime",
  id: "runtime",
});

/** Longest text kept of a title or a command. */
const MAX_TEXT = 300;
/** Most file names kept of a file change. */
const MAX_FILES = 20;

const clip = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);
const textOf = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/** A request in a few fields: what kind, from whom, the command or files or server, no prompt text. */
export function requestSummary(
  interaction: Pick<Interaction, "kind" | "source" | "title" | "payload" | "codex" | "routing">,
  options: AuditOptions = {},
): Record<string, string | readonly string[]> {
  const payload = interaction.payload ?? {};
  const summary: Record<string, string | readonly string[]> = { kind: interaction.kind };
  const source = textOf(interaction.source?.name);
  if (source) summary.source = clip(source);
  const request = textOf(payload.kind);
  if (request) summary.request = clip(request);
  if (options.prompts || interaction.kind === "approval_request") {
    summary.title = clip(interaction.title);
  }
  const { command, changes } = payload;
  if (textOf(command)) summary.command = clip(commandLine(command as string));
  else if (Array.isArray(command) && command.every((part) => typeof part === "string")) {
    summary.command = clip(command.join(" "));
  }
  if (Array.isArray(changes)) {
    const files = changes.flatMap((change) => {
      const file = textOf((change as { path?: unknown } | null)?.path);
      return file ? [clip(file)] : [];
    });
    summary.files = files.slice(0, MAX_FILES);
  }
  const server = textOf(payload.server_name);
  if (server) summary.server = clip(server);
  const thread = interaction.codex?.threadId;
  if (thread) summary.thread = thread;
  const routing = interaction.routing;
  if (routing?.rule) summary.rule = clip(routing.rule);
  if (routing?.answer) summary.answerers = routing.answer;
  if (routing?.approvals && routing.approvals > 1) summary.approvalsNeeded = `${routing.approvals}`;
  if (routing?.notSelf && routing.startedBy) summary.notSelf = clip(routing.startedBy);
  if (options.prompts) {
    const reason = textOf(payload.reason) ?? textOf(payload.message);
    if (reason) summary.text = reason;
    if (Array.isArray(payload.questions)) {
      summary.questions = payload.questions.flatMap((question) => {
        const text = textOf((question as { question?: unknown } | null)?.question);
        return text ? [text] : [];
      });
    }
  }
  return summary;
}

/** An interaction created. */
export function createdRecord(
  interaction: Interaction,
  by: Identity,
  surface: string,
  options: AuditOptions,
): AuditRecord {
  return {
    at: interaction.createdAt,
    action: "interaction.created",
    actor: actorOf(by),
    surface,
    subject: interaction.id,
    decision: "created",
    summary: requestSummary(interaction, options),
  };
}

/**
 * An interaction answered: `answered` is it with the response stored; or, when it needs several
 * accepts and is still open, one more accept (`interaction.approved`, with where it stands).
 */
export function answeredRecord(
  answered: Interaction,
  by: Identity,
  surface: string,
  options: AuditOptions,
): AuditRecord {
  const response = answered.response;
  const summary: Record<string, AuditSummary[string]> = requestSummary(answered, options);
  const scope = response?.values?.scope;
  if (typeof scope === "string") summary.scope = clip(scope);
  const claimed = response?.metadata?.claimedBy;
  if (typeof claimed === "string") summary.claimedBy = clip(claimed);
  if (options.prompts && response?.values) summary.values = JSON.stringify(response.values);
  const open = answered.status === "pending" || answered.status === "delivered";
  if (answered.approvals) summary.approvals = approvalProgress(answered);
  return {
    at: open ? answered.updatedAt : (response?.respondedAt ?? answered.updatedAt),
    action: open ? "interaction.approved" : "interaction.answered",
    actor: actorOf(by),
    surface,
    subject: answered.id,
    decision: open ? "accept" : (response?.action ?? "answered"),
    summary,
  };
}

/**
 * An answer refused, with why (`error`'s code and message): `interaction` as it is, when there is
 * one by that id.
 */
export function refusedRecord(
  id: string,
  interaction: Interaction | undefined,
  actor: AuditActor,
  surface: string,
  error: unknown,
  at: string,
  options: AuditOptions,
): AuditRecord {
  const code = error instanceof CodexHarnessError ? error.code : "internal_error";
  const message = error instanceof Error ? error.message : String(error);
  return {
    at,
    action: "answer.refused",
    actor,
    surface,
    subject: clip(id),
    decision: "refused",
    reason: code,
    message: clip(message),
    ...(interaction ? { summary: requestSummary(interaction, options) } : {}),
  };
}

/** An interaction cancelled (by someone) or ended at its deadline (by the runtime). */
export function endedRecord(
  ended: Interaction,
  actor: AuditActor,
  surface: string,
  options: AuditOptions,
): AuditRecord {
  const expired = ended.status === "errored";
  const end = ended.end;
  return {
    at: end?.at ?? ended.updatedAt,
    action: expired ? "interaction.expired" : "interaction.cancelled",
    actor,
    surface,
    subject: ended.id,
    decision: expired ? "expired" : "cancelled",
    ...(end?.reason ? { reason: clip(end.reason) } : {}),
    ...(end?.message ? { message: clip(end.message) } : {}),
    summary: requestSummary(ended, options),
  };
}

/** A person or program added or removed. */
export function personRecord(
  action: "person.added" | "person.removed",
  person: Person,
  actor: AuditActor,
  surface: string,
  at: string,
): AuditRecord {
  return {
    at,
    action,
    actor,
    surface,
    subject: person.id,
    decision: action === "person.added" ? "added" : "removed",
    summary: { kind: person.kind, name: clip(person.name), groups: person.groups },
  };
}

/** A token issued or revoked (its id and scopes; never the secret or its hash). */
export function tokenRecord(
  action: "token.issued" | "token.revoked",
  token: TokenRecord,
  actor: AuditActor,
  surface: string,
  at: string,
): AuditRecord {
  return {
    at,
    action,
    actor,
    surface,
    subject: token.id,
    decision: action === "token.issued" ? "issued" : "revoked",
    summary: { person: token.personId, scopes: token.scopes },
  };
}

/** A chat platform's user linked to a person, or unlinked (the subject is the platform user). */
export function linkRecord(
  action: "person.linked" | "person.unlinked",
  link: PersonLink,
  actor: AuditActor,
  surface: string,
  at: string,
): AuditRecord {
  return {
    at,
    action,
    actor,
    surface,
    subject: link.platformUser,
    decision: action === "person.linked" ? "linked" : "unlinked",
    summary: { person: link.personId },
  };
}
