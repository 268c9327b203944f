// Terminal output for the CLI: colours only on a TTY (and not under NO_COLOR), a spinner, and y/N prompts.
import type { Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { styleText } from "node:util";
import { nodeUtil } from "../builtins.js";

type Style = Parameters<typeof styleText>[0];

/** Where the CLI writes and reads, with the few things it needs from a terminal. */
export class Terminal {
  readonly color: boolean;
  private spinnerTimer: NodeJS.Timeout | undefined;
  private spinnerFrame = 0;
  private spinnerLabel = "";
  private lineOpen = false;
  private lines: AsyncIterator<string> | undefined;
  private reader: Interface | undefined;
  /** Questions waiting for an answer; meanwhile output is held so it never runs under one. */
  private asking = 0;
  private held: (() => void)[] = [];

  constructor(
    private readonly out: Writable & { isTTY?: boolean },
    private readonly input: Readable,
    env: Record<string, string | undefined> = process.env,
  ) {
    this.color = out.isTTY === true && !env.NO_COLOR && env.TERM !== "dumb";
  }

  /** Applies a style when colours are on. */
  style(style: Style, text: string): string {
    return this.color ? nodeUtil().styleText(style, text) : text;
  }

  /** Writes text that continues the current line (streamed deltas). */
  write(text: string): void {
    if (this.hold(() => this.write(text))) return;
    this.clearSpinner();
    this.out.write(text);
    this.lineOpen = !text.endsWith("\n");
  }

  /** Writes a whole line, ending any line in progress first. */
  line(text = ""): void {
    if (this.hold(() => this.line(text))) return;
    this.endLine();
    this.out.write(`${text}\n`);
  }

  /** Ends the line in progress, if any. */
  endLine(): void {
    this.clearSpinner();
    if (this.lineOpen) this.out.write("\n");
    this.lineOpen = false;
  }

  /** Shows a spinner with a label until the next output (TTY only). */
  spin(label: string): void {
    if (this.hold(() => this.spin(label))) return;
    this.spinnerLabel = label;
    if (!this.out.isTTY || this.spinnerTimer || this.lineOpen) return;
    this.spinnerTimer = setInterval(() => this.drawSpinner(), 100);
    this.spinnerTimer.unref();
    this.drawSpinner();
  }

  /** Asks a yes/no question; anything but y/yes (or end of input) is no. */
  async confirm(question: string): Promise<boolean> {
    const answer = await this.ask(`${question} ${this.style("dim", "[y/N]")}`);
    return answer !== undefined && /^\s*y(es)?\s*$/i.test(answer);
  }

  /** Asks for a line of text; undefined at the end of input. */
  async ask(question: string): Promise<string | undefined> {
    this.line(question);
    // Until it is answered, what else comes is held: nothing is drawn under the question.
    this.asking++;
    try {
      // Loaded on the first question, not at import (the package root exports Terminal).
      const { createInterface } = await import("node:readline");
      this.reader ??= createInterface({ input: this.input, terminal: false });
      this.lines ??= this.reader[Symbol.asyncIterator]();
      const next = await this.lines.next();
      return next.done ? undefined : next.value;
    } finally {
      this.asking--;
      if (this.asking === 0) for (const show of this.held.splice(0)) show();
    }
  }

  /** Stops the spinner and releases the input. */
  close(): void {
    this.clearSpinner();
    this.reader?.close();
  }

  /** While a question waits, keeps `show` for after the answer; true when it was kept. */
  private hold(show: () => void): boolean {
    if (this.asking === 0) return false;
    this.held.push(show);
    return true;
  }

  private drawSpinner(): void {
    const frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
    const frame = frames[this.spinnerFrame++ % frames.length];
    this.out.write(
      `\r${this.style("cyan", frame ?? "")} ${this.style("dim", this.spinnerLabel)}\u001b[K`,
    );
  }

  private clearSpinner(): void {
    if (!this.spinnerTimer) return;
    clearInterval(this.spinnerTimer);
    this.spinnerTimer = undefined;
    this.out.write("\r\u001b[K");
  }
}
