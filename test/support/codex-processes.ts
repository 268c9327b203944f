// The codex processes of a CODEX_HOME (Linux /proc), to check that none outlives its owner, and
// stopping one for sure.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { endProcessesCarrying, processesCarrying } from "../../src/app-server/process-environ.js";

/** The arguments `pid` was started with, or undefined once it is gone. */
function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
  } catch {
    return undefined;
  }
}

/** The live codex processes (not zombies) whose environment has CODEX_HOME=home (Linux /proc). */
export async function codexProcesses(home: string): Promise<number[]> {
  const carrying = await processesCarrying([`CODEX_HOME=${home}`]);
  return carrying.filter((pid) => path.basename(commandLine(pid)?.[0] ?? "") === "codex");
}

/** Waits (up to `ms`) until no codex process of `home` is left; resolves with those still there. */
export async function codexGone(home: string, ms: number): Promise<number[]> {
  let left = await codexProcesses(home);
  for (let waited = 0; left.length > 0 && waited < ms; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = await codexProcesses(home);
  }
  return left;
}

/**
 * Kills (SIGKILL) every live process whose environment has CODEX_HOME=home, codex's own or any it
 * started (its sandbox helper, a command), and resolves with what each was (`pid command line`):
 * for a test to assert that nothing was left, and to leave nothing behind either way.
 */
export async function endProcessesOfHome(home: string): Promise<string[]> {
  const entries = [`CODEX_HOME=${home}`];
  const left = (await processesCarrying(entries)).map(
    (pid) => `${pid} ${commandLine(pid)?.join(" ").slice(0, 200) ?? "(ended while we looked)"}`,
  );
  await endProcessesCarrying(entries);
  return left;
}

/** Whether every thread of `pid` is stopped (state T or t); false if it cannot be read. */
function allThreadsStopped(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/task`).every((task) =>
      /\) [Tt] /.test(readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8")),
    );
  } catch {
    return false;
  }
}

/**
 * Sends SIGSTOP to `pid` and waits (up to `ms`) until every thread of it is stopped. A stop takes
 * effect thread by thread: on a busy machine a thread already running can still read a request
 * and answer it for some milliseconds after `kill()` returned (a test saw codex do so). Elsewhere
 * than Linux (no /proc) it only sends the signal.
 */
export async function stopProcess(pid: number, ms = 5_000): Promise<void> {
  process.kill(pid, "SIGSTOP");
  if (process.platform !== "linux") return;
  for (let waited = 0; !allThreadsStopped(pid); waited += 10) {
    if (waited >= ms) throw new Error(`process ${pid} did not stop within ${ms} ms of SIGSTOP`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
