// Processes found by their environment (/proc/<pid>/environ): what codex started carries
// codex-harness's owner mark, and every command codex spawns its `CODEX_THREAD_ID`, so a stopped
// turn's commands are found and ended — also one codex spawned with no `item/started` as the turn
// was interrupted. Linux only; elsewhere nothing is found.
//
// The walk reads /proc synchronously, a slice of processes at a time with the event loop let run
// between slices: a read of /proc takes microseconds, and asynchronous reads (several trips through
// libuv's threadpool for each file) made the walk wait for CPU hundreds of times on a loaded
// machine — measured beside a full test run, the asynchronous walk of about 100 processes took
// 30 ms on average and up to 800 ms, the synchronous one 5.6 ms and up to 159 ms.
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep, setImmediate as yieldToEventLoop } from "node:timers/promises";

/** The kernel's clock ticks per second for /proc/<pid>/stat's start time (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** A process is taken as started at or after a moment when it started no earlier than this before. */
const START_SLACK_MS = 20;

/** How many processes the walk reads before it lets the event loop run (a few ms at most). */
const WALK_SLICE = 64;

/**
 * The pids of the live processes (not zombies) whose environment has every entry of `entries` —
 * `NAME=value` exactly, or `NAME` with any value — and that started at or after `sinceMs`
 * (`Date.now()` time; for a thread, its earlier commands, still running by codex's design, are
 * left alone). This process is never among them.
 */
export async function processesCarrying(entries: string[], sinceMs = 0): Promise<number[]> {
  if (process.platform !== "linux") return [];
  const pids = readOr(() => readdirSync("/proc"), [] as string[]).filter(
    (entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid,
  );
  const clock = bootClock();
  const found: number[] = [];
  for (const [index, pid] of pids.entries()) {
    if (index > 0 && index % WALK_SLICE === 0) await yieldToEventLoop();
    if (!pidCarries(pid, entries)) continue;
    const started = startedAt(pid, clock);
    if (started !== undefined && started >= sinceMs - START_SLACK_MS) found.push(Number(pid));
  }
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
export function pidCarries(pid: string, entries: string[]): boolean {
  const environ = readOr(() => readFileSync(`/proc/${pid}/environ`), undefined);
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
export function processStartedAt(pid: number): number | undefined {
  return startedAt(String(pid), bootClock());
}

/** What turns a process's start (ticks since boot) into `Date.now()` time: now, and uptime. */
interface BootClock {
  nowMs: number;
  uptimeMs: number;
}

function bootClock(): BootClock {
  const uptime = readOr(() => readFileSync("/proc/uptime", "utf8"), "0");
  return { nowMs: Date.now(), uptimeMs: Number.parseFloat(uptime) * 1000 };
}

/** When a live process started (`Date.now()` time), or undefined for a zombie or a gone one. */
function startedAt(pid: string, clock: BootClock): number | undefined {
  const stat = readOr(() => readFileSync(`/proc/${pid}/stat`, "utf8"), "");
  // The fields after the command name, which is in parentheses and may hold anything.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  if (fields.length < 20 || fields[0] === "Z") return undefined;
  // Field 22 of the whole line (starttime) is the 20th after the name.
  const ticks = Number(fields[19]);
  return clock.nowMs - (clock.uptimeMs - (ticks * 1000) / TICKS_PER_SECOND);
}

/** A read of /proc, or `fallback` when it failed (the process is gone, or not ours to read). */
function readOr<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}
