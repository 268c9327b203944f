// Ends what a dead codex left running. codex starts each command in a session of its own, so a
// codex killed by a signal (or crashed) leaves them orphaned; each inherits codex's environment,
// where codex-harness put a mark of its own, and is found by it (Linux: /proc). A watcher process
// does the same for a codex whose owner died (even by SIGKILL) when codex would not notice.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { RpcLocalError } from "../rpc/errors.js";
import { endProcessesCarrying, pidCarries } from "./process-environ.js";

/** The environment variable that marks a codex process, and all it starts, as one client's. */
export const OWNER_ENV = "CODEX_HARNESS_OWNER";

/** A new mark for one codex process. */
export function newOwnerMark(): string {
  return randomUUID();
}

/** The environment entries of what codex started under `mark` (for one thread, when given). */
export function ownerEntries(mark: string, threadId?: string): string[] {
  return threadId === undefined
    ? [`${OWNER_ENV}=${mark}`]
    : [`${OWNER_ENV}=${mark}`, `CODEX_THREAD_ID=${threadId}`];
}

/**
 * Kills (SIGKILL) every process whose environment carries `OWNER_ENV=mark` and waits until they
 * are gone: what a codex that is gone (or a stopped `codex exec`) left behind. Linux only (reads
 * `/proc/<pid>/environ`); elsewhere it does nothing. A command that cleared its environment
 * (`env -i`), or a codex configured not to pass its environment on
 * (`shell_environment_policy.inherit = "none"`), is not found. Resolves with the pids it killed
 * (never rejects: one that outlives SIGKILL is left).
 */
export async function endMarkedProcesses(mark: string): Promise<number[]> {
  return endProcessesCarrying(ownerEntries(mark)).catch(() => []);
}

/** How long after a first look for a dead codex's leftovers a second one is made (commands it was starting). */
const SECOND_SWEEP_MS = 250;

/** {@link endMarkedProcesses}, then once more {@link SECOND_SWEEP_MS} later: for a codex that was killed. */
export async function endMarkedProcessesTwice(mark: string): Promise<number[]> {
  const first = await endMarkedProcesses(mark);
  await sleep(SECOND_SWEEP_MS);
  return [...first, ...(await endMarkedProcesses(mark))];
}

/** Whether a process is stopped (SIGSTOP, state `T`): it will not act on EOF or SIGTERM. */
export async function isStopped(pid: number): Promise<boolean> {
  if (process.platform !== "linux") return false;
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  // The state follows the command name, which is in parentheses and may hold spaces.
  return /\) [Tt] /.test(stat);
}

/** Whether a process is there and not a zombie (a dead one its new parent has not reaped yet). */
export async function isRunning(pid: number): Promise<boolean> {
  if (process.platform === "linux") {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
    return stat !== "" && !/\) Z /.test(stat);
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** How long the codex of an owner that died is given to end by SIGTERM before it is killed. */
const OWNER_GONE_GRACE_MS = 1_000;

/**
 * A process that outlives codex's owner to end codex when the owner dies, for a codex that does not
 * exit when its stdin closes (`app-server --listen`). It reads its stdin, a pipe from the owner:
 * the kernel closes it when the owner dies, SIGKILL included.
 */
export interface OwnerWatcher {
  /** Tells the watcher codex's pid (elsewhere than Linux, the only way it finds codex). */
  started(pid: number): void;
  /** Codex has exited: its pid is no longer the watcher's to signal. */
  exited(): void;
  /** The owner is done with codex (it exited and was swept): the watcher looks once more and ends. */
  release(): void;
}

/**
 * Starts a watcher (`node`, in a session of its own so a terminal's Ctrl-C or hang-up does not reach
 * it) for the codex that will carry `mark`. When its stdin ends it gives a codex still running
 * SIGTERM and {@link OWNER_GONE_GRACE_MS} (codex 0.169.0 then drains its turns for up to 10 s),
 * then kills every process carrying the mark, codex included, twice (see
 * {@link runOwnerWatcher}). Start it before codex, so no moment exists when codex is unwatched.
 */
export async function watchOwner(mark: string): Promise<OwnerWatcher> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    // Whatever NODE_OPTIONS preloads is the owner's business, not the watcher's.
    if (value !== undefined && key !== "NODE_OPTIONS") env[key] = value;
  }
  const script = `const sweep = await import(process.argv[1]); await sweep.runOwnerWatcher(process.argv[2], Number(process.argv[3])); process.exit(0);`;
  // The package's own entry point, which exports runOwnerWatcher, bundled (build/dist) or not.
  const entry = import.meta.resolve("codex-harness/app-server");
  const watcher = spawn(
    process.execPath,
    ["--input-type=module", "-e", script, entry, mark, String(OWNER_GONE_GRACE_MS)],
    { env, detached: true, stdio: ["pipe", "ignore", "ignore"], windowsHide: true },
  );
  try {
    await Promise.race([
      once(watcher, "spawn"),
      once(watcher, "error").then(([error]) => Promise.reject(error)),
    ]);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new RpcLocalError(
      "spawn_failed",
      `Cannot start the watcher that ends codex with this process (${process.execPath}): ${reason}.`,
      { cause },
    );
  }
  watcher.on("error", () => {});
  watcher.stdin.on("error", () => {});
  // The owner's program may exit while the watcher lives on: that is when the watcher works.
  watcher.unref();
  (watcher.stdin as unknown as { unref?(): void }).unref?.();
  return {
    started: (pid) => watcher.stdin.write(`pid ${pid}\n`),
    exited: () => watcher.stdin.write("exited\n"),
    release: () => watcher.stdin.end(),
  };
}

/**
 * The watcher's side, run in its own process by {@link watchOwner}: waits for its stdin to end,
 * then ends codex (SIGTERM, `graceMs`, then SIGKILL) unless the owner said it exited, and kills
 * every process still carrying `mark` twice.
 */
export async function runOwnerWatcher(mark: string, graceMs: number): Promise<void> {
  let heard = "";
  process.stdin.setEncoding("utf8").on("data", (chunk: string) => {
    heard += chunk;
  });
  await new Promise<void>((resolve) => {
    process.stdin
      .once("end", resolve)
      .once("close", resolve)
      .once("error", () => resolve());
  });
  const pid = Number(/pid (\d+)/.exec(heard)?.[1] ?? 0);
  // On Linux only a process that carries the mark is signalled: never a later one given its pid.
  const ours =
    pid > 0 &&
    !heard.includes("exited") &&
    (process.platform !== "linux" || pidCarries(String(pid), ownerEntries(mark)));
  if (ours) {
    signal(pid, "SIGTERM");
    for (let waited = 0; waited < graceMs && (await isRunning(pid)); waited += 50) await sleep(50);
    if (process.platform !== "linux" && (await isRunning(pid))) signal(pid, "SIGKILL");
  }
  await endMarkedProcessesTwice(mark);
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already.
  }
}
