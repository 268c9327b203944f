// Spawns a codex child process and ends it in order: stdin EOF, then SIGTERM, then SIGKILL; once
// it is gone, what it left running is ended too — and, for a codex that ignores stdin, when this
// process dies.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { RpcLocalError } from "../rpc/errors.js";
import { settlesWithin } from "../rpc/retry.js";
import type { ProcessExit } from "./process-errors.js";
import {
  endMarkedProcesses,
  endMarkedProcessesTwice,
  isStopped,
  newOwnerMark,
  OWNER_ENV,
  type OwnerWatcher,
  watchOwner,
} from "./process-sweep.js";
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
  /**
   * For a codex that does not exit when its stdin closes (`app-server --listen`): a watcher
   * process ends codex, and all it started, when this process dies — SIGKILL included (see
   * {@link watchOwner}). A codex on stdio needs none: the closed pipe ends it.
   */
  endWithThisProcess?: boolean | undefined;
}

/** A running codex process. */
export class CodexProcess {
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<ProcessExit>;
  /**
   * Resolves once codex has exited and the processes it left running (its commands, which live in
   * sessions of their own) were ended: the pids killed. See {@link endMarkedProcesses}.
   */
  readonly swept: Promise<number[]>;
  readonly stderr: StderrTail;
  private exit: ProcessExit | undefined;

  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    stderr: StderrTail,
    /** The owner mark codex and everything it starts carry in their environment. */
    readonly mark: string,
    watcher: OwnerWatcher | undefined,
  ) {
    this.stderr = stderr;
    this.exited = new Promise((resolve) => {
      child.once("exit", (exitCode, signal) => {
        this.exit = { exitCode, signal };
        watcher?.exited();
        resolve(this.exit);
      });
    });
    this.swept = this.exited.then(async ({ exitCode, signal }) => {
      // A codex that exited by itself (stdin EOF) ended its commands, nearly always: a command's
      // sandbox (bubblewrap, in a session of its own) caught starting as its turn was interrupted
      // has been seen orphaned and asleep for good. One look (a few ms of /proc) ends it. One that
      // was killed or crashed could not end anything: looked for twice. Held: ending codex's
      // leftovers is work in flight, the program waits for it.
      if (signal === null && exitCode === 0) return endMarkedProcesses(mark);
      return endMarkedProcessesTwice(mark);
    });
    void this.swept.finally(() => watcher?.release());
  }

  /** Spawns the process; rejects with a `spawn_failed` error naming the binary when it cannot start. */
  static async spawn(options: SpawnCodexOptions): Promise<CodexProcess> {
    const mark = newOwnerMark();
    const watcher = options.endWithThisProcess ? await watchOwner(mark) : undefined;
    const child = spawn(options.executablePath, options.args, {
      env: { ...options.env, [OWNER_ENV]: mark },
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
      watcher?.release();
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
    if (child.pid !== undefined) watcher?.started(child.pid);
    return new CodexProcess(child, tail, mark, watcher);
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
   * Ends the process and resolves once it has exited and what it left running was ended: closes
   * stdin, waits `graceMs`, sends SIGTERM, waits `graceMs` again, then SIGKILL. A stopped process
   * (SIGSTOP), which would heed neither, is killed at once. Returns within about 3 × `graceMs`.
   */
  async terminate(graceMs = 2_000): Promise<ProcessExit | undefined> {
    if (!this.exit) await this.end(graceMs);
    await this.settled(graceMs);
    return this.exit;
  }

  /** Kills the process at once (it stopped answering); its leftovers are ended as it exits. */
  kill(): void {
    if (!this.exit) this.child.kill("SIGKILL");
  }

  private async end(graceMs: number): Promise<void> {
    const pid = this.child.pid;
    if (pid !== undefined && (await isStopped(pid))) {
      this.child.kill("SIGKILL");
      await this.waitExit(graceMs);
      return;
    }
    this.child.stdin.end();
    if (await this.waitExit(graceMs)) return;
    this.child.kill("SIGTERM");
    if (await this.waitExit(graceMs)) return;
    this.child.kill("SIGKILL");
    await this.waitExit(graceMs);
  }

  /** Waits (bounded) for the sweep of what the exited process left running. */
  private async settled(ms: number): Promise<void> {
    if (this.exit) await settlesWithin(this.swept, ms);
  }

  private waitExit(ms: number): Promise<boolean> {
    return settlesWithin(this.exited, ms);
  }
}
