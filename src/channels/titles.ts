// Titles of interactions, in one place: the title derived from a payload (the runtime, when a
// client sends none, and the bridge), and the inbox's short title. The inbox's two functions
// (`commandLine`, `shortTitle`) are also browser code: `inbox-view.ts` embeds their source, so they
// use nothing but each other.

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

/**
 * A command as one line, without the shell codex wraps it in: "/bin/bash -lc 'npm publish
 * --dry-run'" -> "npm publish --dry-run". Runs of white space (newlines too) become one space.
 */
export function commandLine(command: string): string {
  let text = command.trim();
  const shell = /^(?:\S*\/)?(?:ba|z|da)?sh\s+-l?c\s+(['"]?)([\s\S]*)\1$/.exec(text);
  if (shell?.[2] !== undefined) text = shell[2].trim();
  return text.replace(/\s+/g, " ");
}

/**
 * The inbox's title of a card: "Run <command>" for a command, its arguments kept (they are what
 * makes "npm publish --dry-run" differ from "npm test"), else the title's first line; either cut
 * at 80 characters, "…" included ("Change <n> files" when that cuts a file list). The full command
 * is shown below the title.
 */
export function shortTitle(interaction: { title?: unknown; payload?: unknown }): string {
  const p = (interaction.payload || {}) as Record<string, unknown>;
  const max = 80;
  const cut = (text: string) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
  if (typeof p.command === "string") {
    const line = commandLine(p.command);
    return line ? cut(`Run ${line}`) : "Run a command";
  }
  const first = String(interaction.title).split("\n")[0] ?? "";
  if (Array.isArray(p.changes) && p.changes.length > 1 && first.length > max) {
    return `Change ${p.changes.length} files`;
  }
  return cut(first);
}
