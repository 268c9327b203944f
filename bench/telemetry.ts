// Benchmark: what tracing costs a turn — the 10-turn session with a tracer and a meter provider
// registered (in memory: every span and metric recorded, nothing sent) against none, interleaved;
// and the gate a turn passes when telemetry is off (no provider registered: `@opentelemetry/api`
// is not even loaded, so an app without it installed runs the very same code).
import { otelApi } from "../src/telemetry/gate.js";
import { registerInMemoryOtel } from "../test/support/otel.js";
import type { Row, Section } from "./report.js";
import { formatFactor, formatMs, median, min, pairedRatio } from "./stats.js";
import { harnessAppServer, measure, type Variant, type Workload } from "./variants.js";

/** Tracing may cost a 10-turn session this much at most. */
const TARGET_ON = 1.05;
/** Telemetry off may cost this much at most (against no telemetry code at all). */
const TARGET_OFF = 1.01;
const GATE_CALLS = 1_000_000;

/** The harness with a provider registered for the run: each turn traced and measured. */
const traced: Variant = {
  name: "codex-harness app-server, traced (in-memory exporter)",
  async run(env, workload) {
    const otel = registerInMemoryOtel();
    try {
      const ms = await harnessAppServer.run(env, workload);
      const turns = otel.spans().filter((span) => span.name.startsWith("invoke_agent")).length;
      if (turns !== workload.turns * workload.threads) {
        throw new Error(`bench: ${turns} invoke_agent spans for ${workload.turns} turns`);
      }
      return ms;
    } finally {
      await otel.close();
    }
  },
};

/** What one pass of the gate costs with no provider registered (ns), the median of 5 runs. */
function gateNs(): number {
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) {
    const start = performance.now();
    for (let i = 0; i < GATE_CALLS; i++) {
      if (otelApi() !== undefined) throw new Error("bench: a provider is registered");
    }
    runs.push(((performance.now() - start) * 1e6) / GATE_CALLS);
  }
  return median(runs);
}

export async function benchTelemetry(rounds: number): Promise<Section> {
  const workload: Workload = { threads: 1, turns: 10 };
  const [off, on] = await measure(workload, rounds, { warmUp: true }, [harnessAppServer, traced]);
  if (!off || !on) throw new Error("bench: two variants measured");
  const ratio = pairedRatio(on.samples, off.samples);
  const gate = gateNs();
  // The gate runs once a turn; against a turn's time (the untraced session's, per turn).
  const offRatio = 1 + (gate * workload.turns) / (median(off.samples) * 1e6);
  const rows: Row[] = [
    {
      benchmark: "10-turn session, telemetry",
      variant: on.name,
      median: `${formatMs(median(on.samples))} ms`,
      best: `${formatMs(min(on.samples))} ms`,
      vsFloor: formatFactor(ratio),
      target: `<= ${TARGET_ON.toFixed(2)}x off`,
      pass: ratio <= TARGET_ON,
    },
    {
      benchmark: "10-turn session, telemetry",
      variant: "telemetry off (no provider; the api not loaded)",
      median: `${formatMs(median(off.samples))} ms`,
      best: `${formatMs(min(off.samples))} ms`,
      vsFloor: "1.00x",
      target: "",
      pass: undefined,
    },
    {
      benchmark: "10-turn session, telemetry",
      variant: `telemetry off: the gate, once a turn (${gate.toFixed(0)} ns)`,
      median: `${gate.toFixed(0)} ns`,
      best: "",
      vsFloor: `${offRatio.toFixed(6)}x`,
      target: `<= ${TARGET_OFF.toFixed(2)}x no telemetry code`,
      pass: offRatio <= TARGET_OFF,
    },
  ];
  return {
    rows,
    notes: [
      `telemetry: ${on.name}: ${on.samples.map((ms) => formatMs(ms)).join(", ")} ms; off: ${off.samples.map((ms) => formatMs(ms)).join(", ")} ms; the gate: ${GATE_CALLS.toLocaleString("en")} calls, 5 runs`,
    ],
  };
}
