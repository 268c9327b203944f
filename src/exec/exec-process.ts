// One `codex exec` child process: spawn, prompt on stdin, stdout as decoded JSONL lines, stderr tail, bounded kill.
import { CodexProcess } from "../app-server/codex-process.js";
import type { ProcessExit } from "../app-server/process-errors.js";
import { endMarkedProcesses } from "../app-server/process-sweep.js";
import { type DecodedLine, LineDecoder } from "../protocol/framing.js";

/** What {@link ExecProcess.start} needs. */
export interface ExecProcessOptions {
  executablePath: string;
  args: string[];
  env: Record<string, string>;
  /** Written to stdin, which is then closed. */
  stdin: string;
  cwd?: string | undefined;
  /** Receives every stderr chunk as text. */
  onStderr?: ((text: string) => void) | undefined;
  /** How many stderr lines to keep for error messages (default 40). */
  stderrTailLines?: number | undefined;
  maxLineBytes?: number | undefined;
}

/** Lines held before stdout is paused, and resumed below the low mark. */
const HIGH_WATER_LINES = 256;
const LOW_WATER_LINES = 32;
/** How long stdout may stay open after the process exited (a grandchild holding the pipe). */
const STDOUT_AFTER_EXIT_MS = 1_000;
/** Default wait between SIGTERM and SIGKILL, and after SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 1_000;

/**
 * A running `codex exec`. Reuses {@link CodexProcess} for spawning, the stderr tail and the exit
 * promise; adds stdout line decoding with backpressure and a SIGTERM -> SIGKILL kill (stdin is
 * already closed, so CodexProcess's stdin-EOF first step would only add a wait).
 */
export class ExecProcess {
  private readonly decoder: LineDecoder;
  private readonly queue: DecodedLine[] = [];
  private ended = false;
  private wake: (() => void) | undefined;
  private killing: Promise<ProcessExit | undefined> | undefined;

  private constructor(
    private readonly process: CodexProcess,
    maxLineBytes: number | undefined,
  ) {
    this.decoder = new LineDecoder(maxLineBytes === undefined ? {} : { maxLineBytes });
    const stdout = process.child.stdout;
    stdout.on("data", (chunk: Buffer) => {
      this.queue.push(...this.decoder.push(chunk));
      if (this.queue.length >= HIGH_WATER_LINES) stdout.pause();
      this.notify();
    });
    stdout.once("end", () => this.endLines());
    stdout.once("close", () => this.endLines());
    stdout.on("error", () => this.endLines());
    // Safety net: end the lines if stdout stays open after the exit (while we are not the ones
    // holding it back with pause()).
    void process.exited.then(() => {
      const check = () => {
        if (this.ended) return;
        if (stdout.isPaused()) {
          setTimeout(check, STDOUT_AFTER_EXIT_MS).unref();
          return;
        }
        stdout.destroy();
        this.endLines();
      };
      setTimeout(check, STDOUT_AFTER_EXIT_MS).unref();
    });
  }

  /**
   * Spawns `codex exec`, writes the prompt to stdin and closes it. Rejects with a `spawn_failed`
   * error naming the binary when it cannot start.
   */
  static async start(options: ExecProcessOptions): Promise<ExecProcess> {
    const child = await CodexProcess.spawn({
      executablePath: options.executablePath,
      args: options.args,
      env: options.env,
      cwd: options.cwd,
      stderrTailLines: options.stderrTailLines,
      onStderr: options.onStderr,
    });
    const exec = new ExecProcess(child, options.maxLineBytes);
    child.child.stdin.end(options.stdin);
    return exec;
  }

  /** Resolves when the process has exited (never rejects). */
  get exited(): Promise<ProcessExit> {
    return this.process.exited;
  }

  /** How the process ended, once it has. */
  get exitInfo(): ProcessExit | undefined {
    return this.process.exitInfo;
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  /** The last meaningful stderr lines. */
  stderrTail(): string[] {
    return this.process.stderr.snapshot();
  }

  /**
   * stdout as decoded lines (parsed JSON, or an error for a line that is not JSON), in order. Ends
   * when stdout closes, at the latest shortly after the process exits or is killed. One consumer.
   */
  async *lines(): AsyncGenerator<DecodedLine> {
    const stdout = this.process.child.stdout;
    for (;;) {
      const line = this.queue.shift();
      if (line !== undefined) {
        if (this.queue.length <= LOW_WATER_LINES && stdout.isPaused()) stdout.resume();
        yield line;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  /** Waits up to `ms` for the exit; `undefined` when the process is still running. */
  async waitExit(ms: number): Promise<ProcessExit | undefined> {
    if (this.exitInfo) return this.exitInfo;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
      timer.unref();
    });
    const exit = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    return exit;
  }

  /**
   * Ends the process: SIGTERM, then SIGKILL after `graceMs`, and ends {@link lines}. Resolves with
   * the exit (or `undefined` if even SIGKILL went unanswered) within about 2 × `graceMs`; never
   * rejects. Calling it again returns the same promise.
   */
  kill(graceMs = DEFAULT_KILL_GRACE_MS): Promise<ProcessExit | undefined> {
    this.killing ??= this.killNow(graceMs);
    return this.killing;
  }

  private async killNow(graceMs: number): Promise<ProcessExit | undefined> {
    const child = this.process.child;
    let exit = this.exitInfo;
    if (!exit) {
      signal(child, "SIGTERM");
      exit = await this.waitExit(graceMs);
    }
    if (!exit) {
      signal(child, "SIGKILL");
      exit = await this.waitExit(graceMs);
    }
    child.stdout.destroy();
    this.endLines();
    // The commands it started live in sessions of their own: gone before the turn says it stopped.
    await endMarkedProcesses(this.process.mark);
    return exit;
  }

  private endLines(): void {
    if (this.ended) return;
    this.queue.push(...this.decoder.flush());
    this.ended = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

function signal(child: CodexProcess["child"], name: NodeJS.Signals): void {
  try {
    child.kill(name);
  } catch {
    // Already gone.
  }
}
