// Spawns a codex child process and ends it in order: stdin EOF, then SIGTERM, then SIGKILL.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import type { ProcessExit } from "../rpc/errors.js";
import { RpcLocalError } from "../rpc/errors.js";
import { StderrTail } from "./stderr-tail.js";

export interface SpawnCodexOptions {
  executablePath: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string | undefined;
  /** How many stderr lines to keep for error messages. */
  stderrTailLines?: number | undefined;
  /** Receives every stderr chunk as text. */
  onStderr?: ((text: string) => void) | undefined;
}

/** A running codex process. */
export class CodexProcess {
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<ProcessExit>;
  readonly stderr: StderrTail;
  private exit: ProcessExit | undefined;

  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    stderr: StderrTail,
  ) {
    this.stderr = stderr;
    this.exited = new Promise((resolve) => {
      child.once("exit", (exitCode, signal) => {
        this.exit = { exitCode, signal };
        resolve(this.exit);
      });
    });
  }

  /** Spawns the process; rejects with a `spawn_failed` error naming the binary when it cannot start. */
  static async spawn(options: SpawnCodexOptions): Promise<CodexProcess> {
    const child = spawn(options.executablePath, options.args, {
      env: options.env,
      cwd: options.cwd,
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
    });
    const tail = new StderrTail(options.stderrTailLines);
    child.stderr.on("data", (chunk: Buffer) => {
      tail.push(chunk);
      options.onStderr?.(chunk.toString());
    });
    try {
      await Promise.race([
        once(child, "spawn"),
        once(child, "error").then(([error]) => Promise.reject(error)),
      ]);
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new RpcLocalError(
        "spawn_failed",
        `Cannot start ${options.executablePath}: ${reason}. Check that the path is a codex executable (run \`codex-harness doctor\`).`,
        { cause },
      );
    }
    // Later stream errors (EPIPE after the process died) are reported through the exit, not thrown.
    child.stdin.on("error", () => {});
    child.on("error", () => {});
    return new CodexProcess(child, tail);
  }

  /**
   * Whether the process (and its pipes) keeps Node's event loop alive. An idle codex should not:
   * a program that never closes its client still exits when its work is done (codex then sees
   * stdin close and exits too).
   */
  keepAlive(on: boolean): void {
    const streams = [this.child.stdin, this.child.stdout, this.child.stderr] as unknown as {
      ref?(): void;
      unref?(): void;
    }[];
    if (on) {
      this.child.ref();
      for (const stream of streams) stream.ref?.();
    } else {
      this.child.unref();
      for (const stream of streams) stream.unref?.();
    }
  }

  /** How the process ended, once it has. */
  get exitInfo(): ProcessExit | undefined {
    return this.exit;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * Ends the process and resolves once it has exited: closes stdin, waits `graceMs`, sends
   * SIGTERM, waits `graceMs` again, then SIGKILL. Always returns within about 3 × `graceMs`.
   */
  async terminate(graceMs = 2_000): Promise<ProcessExit | undefined> {
    if (this.exit) return this.exit;
    this.child.stdin.end();
    if (await this.waitExit(graceMs)) return this.exit;
    this.child.kill("SIGTERM");
    if (await this.waitExit(graceMs)) return this.exit;
    this.child.kill("SIGKILL");
    await this.waitExit(graceMs);
    return this.exit;
  }

  private async waitExit(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
      timer.unref();
    });
    const exited = await Promise.race([this.exited.then(() => true), timeout]);
    clearTimeout(timer);
    return exited;
  }
}
