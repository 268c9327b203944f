// Renders a turn's events for a person reading a terminal.
import { everyCaseHandled } from "../events/exhaustive.js";
import type { ExtendedThreadEvent, ExtendedThreadItem, Usage } from "../events/types.js";
import { TerminalMarkdown } from "./markdown.js";
import type { Terminal } from "./terminal.js";
import { APPROVED_HERE } from "./terminal-approvals.js";

/** The text of a codex warning notification, or undefined for other notifications. */
function warningOf(method: string, params: unknown): string | undefined {
  const fields = (params ?? {}) as { message?: unknown; summary?: unknown; details?: unknown };
  if (method === "warning" && typeof fields.message === "string") return fields.message;
  if (
    (method === "configWarning" || method === "deprecationNotice") &&
    typeof fields.summary === "string"
  ) {
    return typeof fields.details === "string" && fields.details !== ""
      ? `${fields.summary} (${fields.details})`
      : fields.summary;
  }
  return undefined;
}

/**
 * codex warnings known to be harmless where codex-harness runs it: no metadata for a model codex
 * does not list (a custom or scripted provider's), no system bubblewrap (codex uses its own),
 * a deprecation of something codex itself sends. Folded into one line unless `verbose`.
 */
const HARMLESS_WARNINGS: { pattern: RegExp; label: string }[] = [
  { pattern: /^Model metadata for `[^`]*` not found/, label: "model metadata" },
  { pattern: /bubblewrap|bwrap/i, label: "bubblewrap" },
  { pattern: /Full-history hydration is deprecated/, label: "history hydration" },
];

/** The label of a harmless codex warning (see {@link HARMLESS_WARNINGS}), or undefined. */
export function harmlessWarning(message: string): string | undefined {
  return HARMLESS_WARNINGS.find(({ pattern }) => pattern.test(message))?.label;
}

/** Warnings folded away, in one line: how many, which, and that `--verbose` shows them. */
export function foldedWarnings(labels: ReadonlySet<string>, verbose = "--verbose"): string {
  const n = labels.size;
  return `· ${n} harmless codex warning${n === 1 ? "" : "s"} (${[...labels].join(", ")}): ${verbose} shows ${n === 1 ? "it" : "them"}`;
}

/** Options of {@link EventRenderer}. */
export interface RenderOptions {
  /** Show codex's harmless warnings in full (default: folded into one line per turn). */
  verbose?: boolean;
}

/** Turns events into readable terminal output: streamed text, commands, diffs, a summary. */
export class EventRenderer {
  private streamingItem: string | undefined;
  private readonly markdown: TerminalMarkdown;
  private readonly folded = new Set<string>();
  /** Why each item's approval went as it did (by item id), until the item completes. */
  private readonly reasons = new Map<string, string>();

  constructor(
    private readonly terminal: Terminal,
    private readonly options: RenderOptions = {},
  ) {
    this.markdown = new TerminalMarkdown((style, text) => terminal.style(style, text));
  }

  render(event: ExtendedThreadEvent): void {
    const t = this.terminal;
    switch (event.type) {
      case "thread.started":
        t.line(t.style("dim", `thread ${event.thread_id}`));
        break;
      case "turn.started":
        t.spin("working…");
        break;
      case "item.delta":
        if (event.stream === "agent_message") {
          if (this.streamingItem !== event.item_id) {
            this.streamingItem = event.item_id;
            t.line();
          }
          // Line by line: a line's Markdown is rendered once the line is whole.
          const lines = this.markdown.feed(event.delta);
          if (lines !== "") t.write(lines);
        }
        break;
      case "item.started":
        this.started(event.item);
        break;
      case "item.completed":
        this.completed(event.item);
        t.spin("working…");
        break;
      case "turn.completed":
        t.endLine();
        this.foldedLine();
        t.line(
          t.style(
            event.status === "interrupted" ? "yellow" : "green",
            `${event.status === "interrupted" ? "■ turn interrupted" : "✓ turn completed"} · ${formatUsage(event.usage)}`,
          ),
        );
        break;
      case "turn.failed":
        this.foldedLine();
        t.line(t.style("red", `✗ turn failed: ${event.error.message}`));
        break;
      case "error":
        if (event.will_retry) t.line(t.style("yellow", `↻ ${event.message}`));
        else t.line(t.style("red", `error: ${event.message}`));
        break;
      case "notification": {
        // codex's warnings (config, deprecations, model metadata), shown as they come.
        const warning = warningOf(event.method, event.params);
        if (warning === undefined) break;
        const harmless = harmlessWarning(warning);
        if (harmless !== undefined && !this.options.verbose) this.folded.add(harmless);
        else t.line(t.style("yellow", `warning: ${warning}`));
        break;
      }
      case "notice":
        t.line(t.style("yellow", `notice: ${event.message}`));
        break;
      // Shown by what they update (items), or asked by the terminal's own handlers (approvals).
      case "item.updated":
      case "turn.diff.updated":
      case "turn.plan.updated":
      case "usage.updated":
      case "approval.requested":
        break;
      case "approval.resolved":
        // Said with the item it decided: who or which rule declined it, or who approved it.
        if (event.item_id !== null && event.reason !== undefined) {
          this.reasons.set(event.item_id, event.reason);
        }
        break;
      default:
        everyCaseHandled(event);
    }
  }

  /**
   * "✓ approved by Alice, Bob in the channels runtime": who approved an item elsewhere (not at
   * this terminal, which showed its own answer as it asked), on a line of its own.
   */
  private approvedLine(itemId: string): void {
    const reason = this.reasons.get(itemId);
    this.reasons.delete(itemId);
    if (reason === undefined || !reason.startsWith("approved by ")) return;
    if (APPROVED_HERE.includes(reason)) return;
    this.terminal.line(this.terminal.style("green", `  ✓ ${reason}`));
  }

  /** "declined", and by whom or which rule when the approval said so. */
  private declined(itemId: string): string {
    const reason = this.reasons.get(itemId);
    this.reasons.delete(itemId);
    if (reason === undefined) return "declined";
    // "declined by you at the prompt" says it whole; a rule reads "declined — denied by …".
    return reason.startsWith("declined") ? reason : `declined — ${reason}`;
  }

  /** The turn's folded warnings, in one line (once). */
  private foldedLine(): void {
    if (this.folded.size === 0) return;
    const t = this.terminal;
    t.line(t.style("dim", foldedWarnings(this.folded)));
    this.folded.clear();
  }

  private started(item: ExtendedThreadItem): void {
    const t = this.terminal;
    if (item.type === "command_execution") {
      t.line(`${t.style("bold", "$")} ${item.command}`);
      t.spin("running…");
    } else if (item.type === "file_change") {
      for (const change of item.changes) {
        t.line(`${t.style("bold", "✎")} ${change.kind} ${change.path}`);
        for (const line of diffLines(change.diff ?? "", change.kind))
          t.line(t.style(line.style, `  ${line.text}`));
      }
    }
  }

  private completed(item: ExtendedThreadItem): void {
    const t = this.terminal;
    switch (item.type) {
      case "agent_message":
        // Streamed already when deltas came (but its last line); otherwise printed whole.
        if (this.streamingItem !== item.id) {
          this.markdown.flush();
          t.line(`\n${this.markdown.render(item.text)}`);
        } else {
          t.write(this.markdown.flush());
          t.endLine();
        }
        this.streamingItem = undefined;
        break;
      case "reasoning":
        if (item.text) t.line(t.style("dim", `• ${item.text}`));
        break;
      case "command_execution": {
        if (item.status !== "declined") this.approvedLine(item.id);
        const output = item.aggregated_output.trimEnd();
        if (output) t.line(t.style("dim", indent(output)));
        const ok = item.status === "completed" && (item.exit_code ?? 0) === 0;
        const status =
          item.status === "declined"
            ? this.declined(item.id)
            : `exit ${item.exit_code ?? "?"} · ${item.status}`;
        t.line(t.style(ok ? "green" : "red", `  ${ok ? "✓" : "✗"} ${status}`));
        break;
      }
      case "file_change": {
        if (item.status !== "declined") this.approvedLine(item.id);
        const ok = item.status === "completed";
        const files = item.changes.map((change) => change.path).join(", ");
        const status = item.status === "declined" ? this.declined(item.id) : item.status;
        t.line(t.style(ok ? "green" : "red", `  ${ok ? "✓" : "✗"} ${status}: ${files}`));
        break;
      }
      case "todo_list":
        for (const todo of item.items) t.line(`${todo.completed ? "☑" : "☐"} ${todo.text}`);
        break;
      case "error":
        t.line(t.style("yellow", `! ${item.message}`));
        break;
    }
  }
}

/** The lines of a change's diff, coloured; an added file's content reads as added lines. */
function diffLines(diff: string, kind: string): { text: string; style: "green" | "red" | "dim" }[] {
  return diff
    .trimEnd()
    .split("\n")
    .map((line) => {
      if (kind === "add") return { text: `+${line}`, style: "green" };
      if (line.startsWith("+")) return { text: line, style: "green" };
      if (line.startsWith("-")) return { text: line, style: "red" };
      return { text: line, style: "dim" };
    });
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  │ ${line}`)
    .join("\n");
}

/** A short token summary. */
export function formatUsage(usage: Usage): string {
  return `${usage.input_tokens} in (${usage.cached_input_tokens} cached) / ${usage.output_tokens} out tokens`;
}
