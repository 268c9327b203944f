// How `codex-harness audit` prints an entry (one line: number, time, what, outcome, who, where,
// about what, why, and the request's summary) and the verdict of `--verify`.
import type { AuditActor, AuditEntry } from "../channels/audit-types.js";
import type { AuditVerdict } from "../channels/audit-verify.js";

/**
 * One entry as a line, e.g. `12  2025-06-01T10:00:00.000Z  interaction.answered  accept  by alice
 * (Alice Liddell) via inbox  int_…  kind=approval_request command="npm publish"`.
 */
export function formatEntry(entry: AuditEntry): string {
  const parts = [
    String(entry.seq),
    entry.at,
    entry.action,
    entry.decision,
    `by ${actorText(entry.actor)} via ${entry.surface}`,
    entry.subject,
  ];
  if (entry.reason) parts.push(`${entry.reason}${entry.message ? `: ${entry.message}` : ""}`);
  const fields = Object.entries(entry.summary ?? {})
    .filter(([, value]) => !(Array.isArray(value) && value.length === 0))
    .sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : 1));
  const summary = fields.map(([key, value]) => `${key}=${valueText(value)}`);
  if (summary.length > 0) parts.push(summary.join(" "));
  return parts.join("  ");
}

/** The summary's fields in this order (the request, then the answer), any others after them. */
const ORDER = ["kind", "source", "request", "title", "command", "files", "server", "thread"];

function rank(key: string): number {
  const index = ORDER.indexOf(key);
  return index === -1 ? ORDER.length : index;
}

function actorText(actor: AuditActor | undefined): string {
  if (!actor) return "?";
  const kind = actor.kind === "person" || actor.kind === "admin" ? "" : `${actor.kind} `;
  const who = actor.kind === "unknown" ? "unknown" : `${kind}${actor.id}`;
  const notes = [
    actor.name,
    actor.tokenId && `token ${actor.tokenId}`,
    actor.platformUser && `as ${actor.platformUser}`,
  ].filter(Boolean);
  return notes.length > 0 ? `${who} (${notes.join(", ")})` : who;
}

function valueText(value: unknown): string {
  if (Array.isArray(value)) return value.map((item) => valueText(item)).join(",");
  const text = String(value);
  return /^[^\s"=,]+$/.test(text) ? text : JSON.stringify(text);
}

/** `--verify`'s line: intact (how many entries, the head to keep), or the first problem. */
export function formatVerdict(verdict: AuditVerdict): string {
  if (!verdict.ok) return `audit log NOT intact: ${verdict.problem.message}`;
  if (verdict.entries === 0) return "audit log intact: no entries yet";
  return `audit log intact: ${verdict.entries} entries, the last ${verdict.head.seq} (${verdict.at}), head ${verdict.head.seq}:${verdict.head.hash}`;
}
