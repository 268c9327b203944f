// An agent's Markdown for a terminal, line by line as it streams: bold, italics, inline code,
// headings, lists, links and fenced code, styled on a colour terminal and plain text elsewhere
// (the markers never shown). `--json` prints the raw text instead.

/** Applies a terminal style (or none, without colours). */
export type Styler = (
  style: "bold" | "italic" | "cyan" | "dim" | "underline",
  text: string,
) => string;

/**
 * Renders a stream of Markdown text: {@link TerminalMarkdown.feed} takes deltas and returns the
 * completed lines, rendered; {@link TerminalMarkdown.flush} the rest at the end.
 */
export class TerminalMarkdown {
  private pending = "";
  private inFence = false;

  constructor(private readonly style: Styler) {}

  /** Adds streamed text; returns the lines it completed, rendered, each ending in "\n". */
  feed(text: string): string {
    this.pending += text;
    const end = this.pending.lastIndexOf("\n");
    if (end < 0) return "";
    const complete = this.pending.slice(0, end);
    this.pending = this.pending.slice(end + 1);
    return complete
      .split("\n")
      .map((line) => `${this.line(line)}\n`)
      .join("");
  }

  /** The unfinished last line, rendered (without a newline); resets for the next message. */
  flush(): string {
    const rest = this.pending === "" ? "" : this.line(this.pending);
    this.pending = "";
    this.inFence = false;
    return rest;
  }

  /** A whole message at once. */
  render(text: string): string {
    return (this.feed(`${text}\n`) + this.flush()).replace(/\n$/, "");
  }

  private line(line: string): string {
    if (/^\s*(```|~~~)/.test(line)) {
      // The fence itself is not shown: a blank line sets the code off.
      this.inFence = !this.inFence;
      return "";
    }
    if (this.inFence) return this.style("dim", `  ${line}`);
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) return this.style("bold", this.inline(heading[1] as string));
    const item = /^(\s*)[-*+]\s+(.*)$/.exec(line);
    if (item) return `${item[1]}• ${this.inline(item[2] as string)}`;
    return this.inline(line);
  }

  /** Inline spans: code first (nothing inside it is Markdown), then links, bold, italics. */
  private inline(text: string): string {
    return text
      .split(/(`[^`]+`)/)
      .map((part, index) => {
        if (index % 2 === 1) return this.style("cyan", part.slice(1, -1));
        return part
          .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, label: string, url: string) =>
            label === url
              ? this.style("underline", url)
              : `${label} (${this.style("underline", url)})`,
          )
          .replace(/\*\*([^*]+)\*\*|__([^_]+)__/g, (_, a?: string, b?: string) =>
            this.style("bold", (a ?? b) as string),
          )
          .replace(
            /(^|[\s(])\*([^*\s][^*]*?)\*(?=[\s).,;:!?]|$)/g,
            (_, lead: string, body: string) => `${lead}${this.style("italic", body)}`,
          );
      })
      .join("");
  }
}
