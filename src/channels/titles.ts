// Titles of interactions, in one place: the title derived from a payload (the runtime, when a
// client sends none, and the bridge), and the inbox's short title. The inbox's two functions are
// also browser code: `inbox-view.ts` embeds their source, so they use nothing but each other.

/** Longest title the API takes, so a derived one is never longer. */
export const MAX_TITLE_LENGTH = 2_000;

/** How many file names a file change's title lists before it counts them instead. */
const NAMED_FILES = 3;

/**
 * The title of an interaction that was created without one, from its payload: `Run <command>`,
 * `Change <files>` (or `Change <n> files`), `Grant permissions: <reason>`, the questions, an MCP
 * form's `<server>: <message>`, a `message`; else the kind in words ("Approval request").
 * Any JSON object is taken; fields of unexpected types are skipped.
 */
export function titleOf(kind: string, payload: Record<string, unknown>): string {
  const title =
    fromPayload(payload) || kind.charAt(0).toUpperCase() + kind.slice(1).replace(/_/g, " ");
  return title.length > MAX_TITLE_LENGTH ? `${title.slice(0, MAX_TITLE_LENGTH - 1)}…` : title;
}

function fromPayload(payload: Record<string, unknown>): string | undefined {
  const { command, changes, permissions, questions, message } = payload;
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  if (Array.isArray(questions)) {
    const asked = questions.map((question) => text(fieldOf(question, "question")));
    return asked.filter(Boolean).join(" / ") || "Answer";
  }
  if (text(command)) return `Run ${command}`;
  if (Array.isArray(command) && command.length > 0 && command.every((part) => text(part))) {
    return `Run ${command.join(" ")}`;
  }
  if (Array.isArray(changes)) {
    const files = changes.map((change) => text(fieldOf(change, "path"))?.split("/").at(-1));
    if (files.length > NAMED_FILES) return `Change ${files.length} files`;
    const named = files.filter(Boolean);
    return named.length > 0 ? `Change ${named.join(", ")}` : "Change files";
  }
  if (typeof permissions === "object" && permissions !== null) {
    const reason = text(payload.reason);
    return `Grant permissions${reason ? `: ${reason}` : ""}`;
  }
  const server = text(payload.server_name);
  if (server) return `${server}: ${text(message) ?? "asks for input"}`;
  return text(message);
}

function fieldOf(value: unknown, field: string): unknown {
  return typeof value === "object" && value !== null
    ? (value as Record<string, unknown>)[field]
    : undefined;
}

/** The program a command runs, for its short title: "bash -lc 'npm test'" -> "npm". */
export function programOf(command: string): string {
  let text = command.trim();
  const shell = /^(?:\S*\/)?(?:ba|z|da)?sh\s+-l?c\s+(['"]?)([\s\S]*)\1$/.exec(text);
  if (shell?.[2] !== undefined) text = shell[2].trim();
  return (text.split(/\s+/)[0] || "").split("/").pop()?.slice(0, 40) ?? "";
}

/**
 * The inbox's title of a card: "Run <program>" for a command (its full text is shown below), else
 * the title's first line cut at 80 characters ("Change <n> files" when that cuts a file list).
 */
export function shortTitle(interaction: { title?: unknown; payload?: unknown }): string {
  const p = (interaction.payload || {}) as Record<string, unknown>;
  if (typeof p.command === "string") {
    const program = programOf(p.command);
    return program ? `Run ${program}` : "Run a command";
  }
  const first = String(interaction.title).split("\n")[0] ?? "";
  if (Array.isArray(p.changes) && p.changes.length > 1 && first.length > 80) {
    return `Change ${p.changes.length} files`;
  }
  return first.length > 80 ? `${first.slice(0, 79)}…` : first;
}
