// Ends what a dead codex left running. codex starts each command in a session of its own, so a
// codex killed by a signal (or crashed) leaves them orphaned; each inherits codex's environment,
// where codex-harness put a mark of its own, and is found by it (Linux: /proc).
import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";

/** The environment variable that marks a codex process, and all it starts, as one client's. */
export const OWNER_ENV = "CODEX_HARNESS_OWNER";

/** A new mark for one codex process. */
export function newOwnerMark(): string {
  return randomUUID();
}

/**
 * Kills (SIGKILL) every process whose environment carries `OWNER_ENV=mark`: what a codex that is
 * gone left behind. Linux only (reads `/proc/<pid>/environ`); elsewhere it does nothing. A command
 * that cleared its environment (`env -i`), or a codex configured not to pass its environment on
 * (`shell_environment_policy.inherit = "none"`), is not found. Resolves with the pids it killed.
 */
export async function endMarkedProcesses(mark: string): Promise<number[]> {
  if (process.platform !== "linux") return [];
  const needle = Buffer.from(`${OWNER_ENV}=${mark}\0`);
  const entries = await readdir("/proc").catch(() => [] as string[]);
  const killed: number[] = [];
  await Promise.all(
    entries.map(async (entry) => {
      if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return;
      const environ = await readFile(`/proc/${entry}/environ`).catch(() => undefined);
      if (!environ?.includes(needle)) return;
      try {
        process.kill(Number(entry), "SIGKILL");
        killed.push(Number(entry));
      } catch {
        // Gone already, or not ours to kill.
      }
    }),
  );
  return killed;
}

/** Whether a process is stopped (SIGSTOP, state `T`): it will not act on EOF or SIGTERM. */
export async function isStopped(pid: number): Promise<boolean> {
  if (process.platform !== "linux") return false;
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  // The state follows the command name, which is in parentheses and may hold spaces.
  return /\) [Tt] /.test(stat);
}
