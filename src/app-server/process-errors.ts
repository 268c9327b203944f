// How a codex process ended, as errors: the exit code or signal and the last lines of stderr.
import { RpcLocalError } from "../rpc/errors.js";

/** How a child process ended. */
export interface ProcessExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** A codex process ended: names the exit code or signal and carries the last lines of stderr. */
export class CodexExitedError extends RpcLocalError {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderrTail: string[];

  /**
   * @param context what ended, e.g. "codex app-server exited"
   * @param stderrTail the last stderr lines; an `Error: …` (or `error: …`) line among them leads
   *   the message
   * @param hint what to check when stderr has no `Error: …` line
   */
  constructor(exit: ProcessExit, stderrTail: string[], context: string, hint = "") {
    const how = exit.signal ? `signal ${exit.signal}` : `exit code ${String(exit.exitCode)}`;
    // `Error: …` from codex, `error: …` from its argument parser (an unknown flag, say).
    const errorLine = stderrTail.find((line) => /^(Error|error): /.test(line));
    const tail = stderrTail.length > 0 ? `\nLast stderr lines:\n${stderrTail.join("\n")}` : "";
    const detail = errorLine ? `: ${errorLine}` : `.${hint ? ` ${hint}` : ""}`;
    super("process_exited", `${context} (${how})${detail}${tail}`);
    this.exitCode = exit.exitCode;
    this.signal = exit.signal;
    this.stderrTail = stderrTail;
  }
}

/** The `codex app-server` process ended. */
export class AppServerExitedError extends CodexExitedError {
  constructor(
    exit: ProcessExit,
    stderrTail: string[],
    context = "codex app-server exited",
    hint = "",
  ) {
    super(exit, stderrTail, context, hint);
  }
}
