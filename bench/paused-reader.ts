// Benchmark: a reader that pauses while a flood of agent-message deltas arrives, then reads on.
// Every character must arrive, in order, and the heap must grow by at most a few times the unread text.
import { createHash } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { Codex } from "../src/codex.js";
import { definedEnv } from "../src/process-env.js";
import type { Row, Section } from "./report.js";
import { formatMiB, formatMs, median } from "./stats.js";
import { FLOOD_SERVER } from "./throughput.js";

/** One paused reader's run. */
export interface PausedRun {
  events: number;
  /** Characters of the answer, as the completed item has them. */
  textChars: number;
  /** Characters the reader received as deltas, and whether they are the answer, in order. */
  deltaChars: number;
  whole: boolean;
  /** `item.delta` events the reader took (fewer than sent when unread ones were joined). */
  deltaEvents: number;
  /** `deltas_dropped` notices. */
  dropNotices: number;
  /** heapUsed + external after a GC before the run, and the highest value sampled during it (garbage included). */
  baseline: number;
  peak: number;
  /** heapUsed + external after a GC at the end of the pause: what the unread stream keeps. */
  retained: number;
  /** From the first delta to the end of the stream, pause included. */
  ms: number;
}

/** What the unread stream keeps (after a GC) may be at most this many times its text. */
export const PAUSED_HEAP_TARGET = 3;

/** The heap and the memory outside it (buffers) that JavaScript objects hold. */
function kept(): number {
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

/** Two full GCs: buffers whose owners the first one freed are released by the second. */
function settle(): void {
  globalThis.gc?.();
  globalThis.gc?.();
}

/** Streams one numbered flood; the reader waits `pauseMs` at the first delta, then reads on. */
async function pausedRun(events: number, pauseMs: number): Promise<PausedRun> {
  const codex = new Codex({
    events: "extended",
    codexPathOverride: FLOOD_SERVER,
    env: { ...definedEnv(), FLOOD_EVENTS: String(events), FLOOD_NUMBERED: "1" },
  });
  settle();
  const baseline = kept();
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, kept());
  }, 20);
  // What arrives is hashed, not kept: the reader's own copy must not count as the queue's.
  const received = createHash("sha256");
  let deltaChars = 0;
  let deltaEvents = 0;
  let dropNotices = 0;
  let text = "";
  let first = 0;
  let retained = 0;
  try {
    const { events: stream } = await codex.startThread().runStreamed("flood");
    for await (const event of stream) {
      if (event.type === "item.delta") {
        if (deltaEvents++ === 0) {
          first = performance.now();
          await delay(pauseMs);
          peak = Math.max(peak, kept());
          settle();
          retained = kept();
        }
        deltaChars += event.delta.length;
        received.update(event.delta);
      } else if (event.type === "notice" && event.code === "deltas_dropped") dropNotices++;
      else if (event.type === "item.completed" && event.item.type === "agent_message") {
        text = event.item.text;
      }
    }
    const ms = performance.now() - first;
    peak = Math.max(peak, kept());
    const whole = received.digest("hex") === createHash("sha256").update(text).digest("hex");
    return {
      events,
      textChars: text.length,
      deltaChars,
      whole,
      deltaEvents,
      dropNotices,
      baseline,
      peak,
      retained,
      ms,
    };
  } finally {
    clearInterval(timer);
    await codex.close();
  }
}

/** `rounds` paused readers of `events` deltas, each pausing `pauseMs`, after a small warm-up. */
export async function benchPausedReader(
  events: number,
  rounds: number,
  pauseMs = 3_000,
): Promise<Section> {
  await pausedRun(Math.min(events, 10_000), 100);
  const runs: PausedRun[] = [];
  for (let round = 0; round < rounds; round++) runs.push(await pausedRun(events, pauseMs));
  const growth = median(runs.map((run) => run.retained - run.baseline));
  const textBytes = median(runs.map((run) => run.textChars));
  const whole = runs.every((run) => run.whole && run.dropNotices === 0);
  const k = `${Math.round(events / 1000)}k`;
  const rows: Row[] = [
    {
      benchmark: `reader paused ${pauseMs / 1000} s, ${k} deltas`,
      variant: "codex-harness runStreamed(): every character, in order",
      median: whole ? "all" : "lost some",
      best: `${formatMiB(textBytes)} text`,
      vsFloor: "",
      target: "all, no drop notice",
      pass: whole,
    },
    {
      benchmark: `reader paused ${pauseMs / 1000} s, ${k} deltas`,
      variant: "codex-harness runStreamed(): heap + buffers kept while paused",
      median: `+${formatMiB(growth)}`,
      best: `${(growth / textBytes).toFixed(2)}x text`,
      vsFloor: "",
      target: `<= ${PAUSED_HEAP_TARGET}x the unread text`,
      pass: growth <= PAUSED_HEAP_TARGET * textBytes,
    },
  ];
  const notes = runs.map(
    (run) =>
      `paused reader, ${run.events} deltas: ${run.deltaEvents} delta events taken, ${run.deltaChars} of ${run.textChars} characters, ${run.whole ? "whole and in order" : "NOT whole"}, ${run.dropNotices} drop notices, heap ${formatMiB(run.baseline)} -> ${formatMiB(run.retained)} kept after a GC at the pause's end (sampled peak ${formatMiB(run.peak)}, garbage included), ${formatMs(run.ms)} ms`,
  );
  if (!globalThis.gc)
    notes.push("(run node with --expose-gc: without it, what is kept is not measured)");
  return { rows, notes };
}
