// Benchmark 1: one thread, 10 sequential turns, the variants interleaved (medians of several rounds).
import type { Row, Section } from "./report.js";
import { formatFactor, formatMs, median, min, pairedRatio } from "./stats.js";
import {
  FLOOR_NAME,
  harnessAppServer,
  harnessStarted,
  measure,
  officialSdk,
  rawStarted,
  type VariantResult,
  type Workload,
} from "./variants.js";

/** Thresholds every workload is held to. */
export const TARGETS = { appServerVsFloor: 1.05, officialVsAppServer: 3, officialVsStarted: 3.5 };

/** Rows of one workload: each variant's median, best and ratio to the floor, with the targets. */
export function workloadRows(benchmark: string, results: VariantResult[]): Row[] {
  const byName = (name: string) =>
    (results.find((result) => result.name === name) as VariantResult).samples;
  const floor = byName(FLOOR_NAME);
  const appServer = byName(harnessAppServer.name);
  const official = byName(officialSdk.name);
  const started = byName(harnessStarted.name);
  const floorStarted = byName(rawStarted.name);
  const ratio = (a: number[], b: number[]) => formatFactor(pairedRatio(a, b));
  return results.map((result): Row => {
    const row: Row = {
      benchmark,
      variant: result.name,
      median: `${formatMs(median(result.samples))} ms`,
      best: `${formatMs(min(result.samples))} ms`,
      vsFloor: ratio(result.samples, floor),
      target: "",
      pass: undefined,
    };
    if (result.name === harnessStarted.name) {
      // The bare client after its own start: what no client can beat.
      row.target = `@openai/codex-sdk >= ${TARGETS.officialVsStarted}x slower (${ratio(official, started)}; bare client ${ratio(official, floorStarted)})`;
      row.pass = pairedRatio(official, started) >= TARGETS.officialVsStarted;
    } else if (result.name === harnessAppServer.name) {
      row.target = `<= ${TARGETS.appServerVsFloor.toFixed(2)}x floor`;
      row.pass = pairedRatio(result.samples, floor) <= TARGETS.appServerVsFloor;
    } else if (result.name === officialSdk.name) {
      row.target = `app-server >= ${TARGETS.officialVsAppServer}x faster (${ratio(official, appServer)}; bare client ${ratio(official, floor)})`;
      row.pass = pairedRatio(official, appServer) >= TARGETS.officialVsAppServer;
    }
    return row;
  });
}

/** The rows and the raw samples of one workload. */
export function workloadSection(benchmark: string, results: VariantResult[]): Section {
  const notes = results.map(
    (result) =>
      `${benchmark} / ${result.name}: ${result.samples.map((ms) => formatMs(ms)).join(", ")} ms`,
  );
  return { rows: workloadRows(benchmark, results), notes };
}

export async function benchSession(rounds: number): Promise<Section> {
  const workload: Workload = { threads: 1, turns: 10 };
  return workloadSection("10-turn session", await measure(workload, rounds, { warmUp: true }));
}
