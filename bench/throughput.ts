// Benchmark 3: delta events per second and heap use, codex-harness runStreamed() vs a bare line reader, on flood-server.mjs.
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ValidateMode } from "../src/app-server/validation.js";
import { Codex } from "../src/codex.js";
import { definedEnv } from "../src/process-env.js";
import { RawClient } from "./raw-client.js";
import type { Row, Section } from "./report.js";
import {
  formatFactor,
  formatMiB,
  formatMs,
  formatRate,
  formatRatio,
  median,
  pairedRatio,
  since,
} from "./stats.js";

/** The fake app-server (a source file: tsc does not copy it into build/). */
export const FLOOD_SERVER = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../bench/flood-server.mjs",
);

/** One consumption of a flood. */
export interface FloodRun {
  events: number;
  /** From the first delta to the end of the turn. */
  ms: number;
  /** heapUsed after a GC before the run, and the highest value sampled during it. */
  baseline: number;
  peak: number;
  /** How many heap samples were taken. */
  samples: number;
}

export interface ThroughputResult {
  events: number;
  harness: FloodRun[];
  raw: FloodRun[];
  /** codex-harness with each `validate` mode given explicitly (the `harness` runs take the default). */
  validation: Record<ValidateMode, FloodRun[]>;
  /** Runs with fewer events, to see whether the peak grows with the event count. */
  small: { events: number; harness: FloodRun[]; raw: FloodRun[] };
}

type Consume = (events: number, onDelta: () => void) => Promise<void>;

/** codex-harness: the Thread API's event stream, counting `item.delta`, with `validate` if given. */
const harnessWith =
  (validate?: ValidateMode): Consume =>
  async (events, onDelta) => {
    const env = { ...definedEnv(), FLOOD_EVENTS: String(events) };
    const codex = new Codex({
      events: "extended",
      codexPathOverride: FLOOD_SERVER,
      env,
      ...(validate === undefined ? {} : { validate }),
    });
    try {
      const { events: stream } = await codex.startThread().runStreamed("flood");
      for await (const event of stream) if (event.type === "item.delta") onDelta();
    } finally {
      await codex.close();
    }
  };
const harness = harnessWith();
const MODES: ValidateMode[] = ["off", "warn", "strict"];
const validating = Object.fromEntries(MODES.map((mode) => [mode, harnessWith(mode)])) as Record<
  ValidateMode,
  Consume
>;

/** The floor: the same requests by hand, stdout split on "\n" and JSON.parse'd. */
const raw: Consume = async (events, onDelta) => {
  const client = await RawClient.start(FLOOD_SERVER, {
    ...definedEnv(),
    FLOOD_EVENTS: String(events),
  });
  try {
    client.onNotification = (message) => {
      if (message.method === "item/agentMessage/delta") onDelta();
    };
    const threadId = await client.startThread(process.cwd());
    const status = await client.runTurn(threadId, "flood");
    if (status !== "completed") throw new Error(`the flood turn ended ${status}`);
  } finally {
    await client.close();
  }
};

/** Consumes one flood, timing it and sampling heapUsed every 50 ms. */
async function measureRun(consume: Consume, events: number): Promise<FloodRun> {
  globalThis.gc?.();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  let samples = 0;
  const sample = () => {
    samples++;
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  };
  const timer = setInterval(sample, 50);
  let count = 0;
  let first = 0;
  try {
    await consume(events, () => {
      if (count++ === 0) first = performance.now();
    });
    const ms = since(first);
    sample();
    if (count !== events) throw new Error(`counted ${count} deltas, expected ${events}`);
    return { events, ms, baseline, peak, samples };
  } finally {
    clearInterval(timer);
  }
}

/** Interleaves `rounds` runs of each consumer at `events`, after a warm-up, then small runs of each. */
export async function benchThroughput(events: number, rounds: number): Promise<ThroughputResult> {
  await measureRun(harness, 20_000);
  await measureRun(raw, 20_000);
  for (const mode of MODES) await measureRun(validating[mode], 20_000);
  const result: ThroughputResult = {
    events,
    harness: [],
    raw: [],
    validation: { off: [], warn: [], strict: [] },
    small: undefined as never,
  };
  // Each round in another order (rotated), so that no variant always runs first or last.
  const variants: [Consume, FloodRun[]][] = [
    [harness, result.harness],
    [raw, result.raw],
    ...MODES.map((mode): [Consume, FloodRun[]] => [validating[mode], result.validation[mode]]),
  ];
  for (let round = 0; round < rounds; round++) {
    const shift = round % variants.length;
    for (const [consume, runs] of [...variants.slice(shift), ...variants.slice(0, shift)]) {
      runs.push(await measureRun(consume, events));
    }
  }
  // A single small run's peak depends on when its collections fell: the median of a few.
  const small = Math.round(events / 4);
  result.small = { events: small, harness: [], raw: [] };
  for (let round = 0; round < SMALL_ROUNDS; round++) {
    result.small.harness.push(await measureRun(harness, small));
    result.small.raw.push(await measureRun(raw, small));
  }
  return result;
}

/** Events per second of each run, and their median. */
export function medianRate(runs: FloodRun[]): number {
  return median(runs.map((run) => run.events / (run.ms / 1000)));
}

/** The median growth of heapUsed over the baseline. */
export function medianGrowth(runs: FloodRun[]): number {
  return median(runs.map((run) => run.peak - run.baseline));
}

/** Heap growth may not rise with the event count by more than this factor (plus slack). */
const FLAT_FACTOR = 1.5;
const FLAT_SLACK_BYTES = 2 * 1024 * 1024;
/** How many smaller runs of each consumer the flatness check takes the median of. */
const SMALL_ROUNDS = 3;
export const THROUGHPUT_TARGET = 0.85;
/** `validate: "off"` must cost nothing: at least this share of the default's rate (noise allowed). */
export const VALIDATE_OFF_TARGET = 0.9;

/** The table rows and details of a throughput result. */
export function throughputSection(result: ThroughputResult): Section {
  const k = (n: number) => `${Math.round(n / 1000)}k`;
  const benchmark = `${k(result.events)} deltas`;
  const harnessRate = medianRate(result.harness);
  const rawRate = medianRate(result.raw);
  const rates = (runs: FloodRun[]) => runs.map((run) => run.events / (run.ms / 1000));
  const best = (runs: FloodRun[]) => Math.max(...rates(runs));
  /** `runs` against `base`, round by round (each round runs every variant once). */
  const ratio = (runs: FloodRun[], base: FloodRun[]) => pairedRatio(rates(runs), rates(base));
  const harnessVsRaw = ratio(result.harness, result.raw);
  const growth = (runs: FloodRun[]) => medianGrowth(runs);
  const flat = (big: number, small: number) => big <= small * FLAT_FACTOR + FLAT_SLACK_BYTES;
  const memoryRow = (variant: string, runs: FloodRun[], small: FloodRun[]): Row => ({
    benchmark: "heap while streaming",
    variant,
    median: `+${formatMiB(growth(runs))} (${k(result.events)})`,
    best: `+${formatMiB(growth(small))} (${k(result.small.events)})`,
    vsFloor: formatRatio(growth(runs), growth(result.raw)),
    target: `flat: ${k(result.events)} <= ${FLAT_FACTOR}x ${k(result.small.events)} + 2 MiB`,
    pass: flat(growth(runs), growth(small)),
  });
  const rows: Row[] = [
    {
      benchmark,
      variant: "codex-harness runStreamed()",
      median: formatRate(harnessRate),
      best: formatRate(best(result.harness)),
      vsFloor: formatFactor(harnessVsRaw),
      target: `>= ${THROUGHPUT_TARGET.toFixed(2)}x floor`,
      pass: harnessVsRaw >= THROUGHPUT_TARGET,
    },
    {
      benchmark,
      variant: "raw line reader (floor)",
      median: formatRate(rawRate),
      best: formatRate(best(result.raw)),
      vsFloor: "1.00x",
      target: "",
      pass: undefined,
    },
    // Side by side with the default (the first row): "off" must cost nothing; the others, for
    // information, cost what checking every notification against the schema costs.
    ...MODES.map((mode): Row => {
      const runs = result.validation[mode];
      const rate = medianRate(runs);
      const vsDefault = ratio(runs, result.harness);
      return {
        benchmark,
        variant: `codex-harness, validate: "${mode}"`,
        median: formatRate(rate),
        best: formatRate(best(result.validation[mode])),
        vsFloor: formatFactor(ratio(runs, result.raw)),
        target:
          mode === "off"
            ? `>= ${VALIDATE_OFF_TARGET.toFixed(2)}x default (${formatFactor(vsDefault)})`
            : `(${formatFactor(vsDefault)} default)`,
        pass: mode === "off" ? vsDefault >= VALIDATE_OFF_TARGET : undefined,
      };
    }),
    memoryRow("codex-harness runStreamed()", result.harness, result.small.harness),
    memoryRow("raw line reader (floor)", result.raw, result.small.raw),
  ];
  const describe = (name: string, runs: FloodRun[]) =>
    `${k(runs[0]?.events ?? 0)} deltas / ${name}: ${runs
      .map(
        (run) =>
          `${formatMs(run.ms)} ms (heap ${formatMiB(run.baseline)} -> peak ${formatMiB(run.peak)}, ${run.samples} samples)`,
      )
      .join(", ")}`;
  const notes = [
    describe("codex-harness", result.harness),
    describe("raw", result.raw),
    ...MODES.map((mode) => describe(`validate: "${mode}"`, result.validation[mode])),
    describe("codex-harness", result.small.harness),
    describe("raw", result.small.raw),
  ];
  if (!globalThis.gc) notes.push("(run node with --expose-gc for a settled heap baseline)");
  return { rows, notes };
}
