// A timed burst of turns: turns per second, and how busy the machine's CPUs were meanwhile.
import { readFileSync } from "node:fs";
import { since } from "./stats.js";

/** One phase: turns per second, and how busy the machine's CPUs were (0–1; undefined where unknown). */
export interface PhaseResult {
  rate: number;
  busy: number | undefined;
}

/** The machine's CPU time so far, busy and in all (Linux /proc/stat; undefined elsewhere). */
function cpuTimes(): { busy: number; total: number } | undefined {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]?.trim().split(/\s+/).slice(1);
    const ticks = (fields ?? []).map(Number);
    const total = ticks.reduce((sum, tick) => sum + tick, 0);
    // idle and iowait
    return { busy: total - (ticks[3] ?? 0) - (ticks[4] ?? 0), total };
  } catch {
    return undefined;
  }
}

/** Runs `turns` turns (`run`), timing them and the machine's CPU meanwhile. */
export async function timePhase(turns: number, run: () => Promise<void>): Promise<PhaseResult> {
  const cpuBefore = cpuTimes();
  const start = performance.now();
  await run();
  const rate = turns / (since(start) / 1000);
  const cpuAfter = cpuTimes();
  const busy =
    cpuBefore && cpuAfter
      ? (cpuAfter.busy - cpuBefore.busy) / (cpuAfter.total - cpuBefore.total)
      : undefined;
  return { rate, busy };
}
