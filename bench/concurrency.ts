// Benchmark 2: 8 threads at once, 2 turns each (exec and the official SDK spawn one codex per turn).
import type { Section } from "./report.js";
import { workloadSection } from "./session.js";
import { measure, type Workload } from "./variants.js";

export async function benchConcurrency(rounds: number): Promise<Section> {
  const workload: Workload = { threads: 8, turns: 2 };
  return workloadSection("8 threads x 2 turns", await measure(workload, rounds, { warmUp: false }));
}
