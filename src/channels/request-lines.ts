// A request in plain lines, every field it carries at every depth: what its kind lays out (the
// command, its network host, the files and their diffs, the questions and their options, …), then
// the fields shown as JSON with their paths ("Also sent", showable.ts). The chat messages and the
// CLI's `interactions show` print it, so both show what the web inbox shows.
import type { Interaction } from "./interaction-types.js";
import { PAYLOAD_FIELDS, unknownFields } from "./showable.js";

type Payload = Record<string, unknown>;

const INDENT = "  ";

/** A value as indented JSON lines. */
function jsonLines(value: unknown, indent = INDENT): string[] {
  return (JSON.stringify(value, null, 2) ?? String(value)).split("\n").map((l) => indent + l);
}

/** Its text when `value` is a string with something in it. */
function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * The lines of a request that can be shown in full (`unshownReason` says it can): in order, a
 * stdin write said as such, `$ command`, `network access to HOST (PROTOCOL)`, `in CWD`, `from the
 * MCP server NAME`, `why: REASON`, the message, `open URL`, each file (`update PATH to MOVE_PATH`)
 * with its diff indented, `and write access under ROOT …`, the permissions and the form's schema as
 * JSON, each question (`? HEADER: QUESTION`) with its options (`- LABEL — DESCRIPTION`), and last
 * `Also sent:` with each field shown as JSON (`changes[0].mode: "0755"`). Only the fields its kind
 * knows are laid out: a progress update's are all shown as JSON, under `Sent:`.
 */
export function requestLines(interaction: Pick<Interaction, "kind" | "payload">): string[] {
  const kinds: Record<string, Readonly<Record<string, string>>> = PAYLOAD_FIELDS.kinds;
  const own = kinds[interaction.kind] ?? {};
  const p = interaction.payload;
  const field = (name: string): unknown => (Object.hasOwn(own, name) ? p[name] : undefined);
  const lines: string[] = [];
  const add = (value: unknown, line: (text: string) => string) => {
    const given = text(value);
    if (given !== undefined) lines.push(line(given));
  };
  if (field("approval_kind") === "writeStdin") lines.push("Send input to a running command:");
  add(field("command"), (command) => `$ ${command}`);
  const network = field("network_approval_context") as Payload | null | undefined;
  if (network) {
    const protocol = text(network.protocol);
    lines.push(`network access to ${network.host}${protocol ? ` (${protocol})` : ""}`);
  }
  add(field("cwd"), (cwd) => `in ${cwd}`);
  add(field("server_name"), (name) => `from the MCP server ${name}`);
  add(field("reason"), (reason) => `why: ${reason}`);
  add(field("message"), (message) => message);
  add(field("url"), (url) => `open ${url}`);
  for (const change of (field("changes") ?? []) as Payload[]) {
    const moved = text(change.move_path);
    lines.push(`${text(change.kind) ?? "change"} ${change.path}${moved ? ` to ${moved}` : ""}`);
    const diff = text(change.diff);
    if (diff)
      lines.push(
        ...diff
          .replace(/\n$/, "")
          .split("\n")
          .map((line) => INDENT + line),
      );
  }
  add(field("grant_root"), (root) => `and write access under ${root} for the rest of the session`);
  const permissions = field("permissions");
  if (permissions) lines.push("permissions:", ...jsonLines(permissions));
  const schema = field("requested_schema");
  if (schema) lines.push("form:", ...jsonLines(schema));
  for (const question of (field("questions") ?? []) as Payload[]) {
    const header = text(question.header);
    lines.push(`? ${header ? `${header}: ` : ""}${question.question}`);
    for (const option of (question.options ?? []) as Payload[]) {
      const description = text(option.description);
      lines.push(`${INDENT}- ${option.label}${description ? ` — ${description}` : ""}`);
    }
  }
  const extras = Object.entries(unknownFields(interaction));
  if (extras.length > 0) lines.push(lines.length > 0 ? "Also sent:" : "Sent:");
  for (const [path, value] of extras) {
    const [first = "", ...rest] = jsonLines(value, "");
    lines.push(`${INDENT}${path}: ${first}`, ...rest.map((line) => INDENT + line));
  }
  return lines;
}
