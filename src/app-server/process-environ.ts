// Processes found by their environment (/proc/<pid>/environ): what codex started carries
// codex-harness's owner mark, and every command codex spawns its `CODEX_THREAD_ID`, so a stopped
// turn's commands are found and ended — also one codex spawned with no `item/started` as the turn
// was interrupted. Linux only; elsewhere nothing is found.
import { readdir, readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";

/** The kernel's clock ticks per second for /proc/<pid>/stat's start time (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** A process is taken as started at or after a moment when it started no earlier than this before. */
const START_SLACK_MS = 20;

/**
 * The pids of the live processes (not zombies) whose environment has every entry of `entries` —
 * `NAME=value` exactly, or `NAME` with any value — and that started at or after `sinceMs`
 * (`Date.now()` time; for a thread, its earlier commands, still running by codex's design, are
 * left alone). This process is never among them.
 */
export async function processesCarrying(entries: string[], sinceMs = 0): Promise<number[]> {
  if (process.platform !== "linux") return [];
  const pids = await readdir("/proc").catch(() => [] as string[]);
  const clock = await bootClock();
  const found: number[] = [];
  await Promise.all(
    pids.map(async (entry) => {
      if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return;
      if (!(await pidCarries(entry, entries))) return;
      const started = await startedAt(entry, clock);
      if (started !== undefined && started >= sinceMs - START_SLACK_MS) found.push(Number(entry));
    }),
  );
  return found;
}

/** How long the processes found are given to be gone after SIGKILL. */
const GONE_WITHIN_MS = 2_000;

/**
 * Kills (SIGKILL) every process of {@link processesCarrying} and waits until none is left. Resolves
 * with the pids killed; rejects when some outlive {@link GONE_WITHIN_MS}.
 */
export async function endProcessesCarrying(entries: string[], sinceMs = 0): Promise<number[]> {
  const killed: number[] = [];
  const deadline = Date.now() + GONE_WITHIN_MS;
  for (;;) {
    const left = await processesCarrying(entries, sinceMs);
    if (left.length === 0) return killed;
    if (Date.now() > deadline) {
      throw new Error(`processes ${left.join(", ")} (${entries.join(", ")}) outlived SIGKILL`);
    }
    for (const pid of left) {
      try {
        process.kill(pid, "SIGKILL");
        if (!killed.includes(pid)) killed.push(pid);
      } catch {
        // Gone already.
      }
    }
    await sleep(5);
  }
}

/** Whether process `pid`'s environment has every entry (as {@link processesCarrying} reads them). */
export async function pidCarries(pid: string, entries: string[]): Promise<boolean> {
  const environ = await readFile(`/proc/${pid}/environ`).catch(() => undefined);
  if (!environ) return false;
  return entries.every((entry) =>
    carries(environ, entry.includes("=") ? `${entry}\0` : `${entry}=`),
  );
}

/** Whether an environment (`K=V\0…`) has an entry that starts with `needle`. */
function carries(environ: Buffer, needle: string): boolean {
  const bytes = Buffer.from(needle);
  for (let at = environ.indexOf(bytes); at >= 0; at = environ.indexOf(bytes, at + 1)) {
    if (at === 0 || environ[at - 1] === 0) return true;
  }
  return false;
}

/** When live process `pid` started (`Date.now()` time), or undefined when it is gone or a zombie. */
export async function processStartedAt(pid: number): Promise<number | undefined> {
  return startedAt(String(pid), await bootClock());
}

/** What turns a process's start (ticks since boot) into `Date.now()` time: now, and uptime. */
interface BootClock {
  nowMs: number;
  uptimeMs: number;
}

async function bootClock(): Promise<BootClock> {
  const uptime = await readFile("/proc/uptime", "utf8").catch(() => "0");
  return { nowMs: Date.now(), uptimeMs: Number.parseFloat(uptime) * 1000 };
}

/** When a live process started (`Date.now()` time), or undefined for a zombie or a gone one. */
async function startedAt(pid: string, clock: BootClock): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  // The fields after the command name, which is in parentheses and may hold anything.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  if (fields.length < 20 || fields[0] === "Z") return undefined;
  // Field 22 of the whole line (starttime) is the 20th after the name.
  const ticks = Number(fields[19]);
  return clock.nowMs - (clock.uptimeMs - (ticks * 1000) / TICKS_PER_SECOND);
}
