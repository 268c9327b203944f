// `npm run bench`: runs every benchmark (or `--only a,b`), prints the tables, and with --write-readme
// puts them in the Figures of docs/operations.md (they were the README's).
import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { benchAcp } from "./acp.js";
import { benchAcpPeer } from "./acp-peer.js";
import { benchBigOutput, bigOutputSection } from "./big-output.js";
import { benchChannels } from "./channels.js";
import { benchChannelsPolicy } from "./channels-policy.js";
import { benchConcurrency } from "./concurrency.js";
import { benchFleet } from "./fleet.js";
import { benchImport } from "./import.js";
import { benchPausedReader } from "./paused-reader.js";
import { benchRemote } from "./remote.js";
import { markdownTable, type Section, textTable } from "./report.js";
import { benchSession } from "./session.js";
import { benchTelemetry } from "./telemetry.js";
import { benchThroughput, throughputSection } from "./throughput.js";

/** Where the tables are kept: the Figures of the operations guide. */
const FIGURES = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../docs/operations.md",
);
/** The main table's markers, and the import table's. */
const MARKERS = {
  main: ["<!-- bench:start -->", "<!-- bench:end -->"],
  import: ["<!-- bench-import:start -->", "<!-- bench-import:end -->"],
} as const;
type Table = keyof typeof MARKERS;

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const rounds = option("--rounds", 3);
/** The import benchmark is cheap and noisy: more rounds (fresh node processes). */
const importRounds = option("--import-rounds", 21);
/**
 * A 200k-delta flood takes under half a second, and two runs of one configuration differ by up to
 * 30% here: the event rows take more rounds than the others.
 */
const throughputRounds = option("--throughput-rounds", 9);
const events = option("--events", 200_000);
/** The big-output benchmark's command prints this many MiB (and a tenth of it, 20 for 200). */
const bigOutputMb = option("--big-output-mb", 200);
const skipBigOutput = process.argv.includes("--skip-big-output");
/** `--only import,session`: run only these benchmarks (keys below). */
const onlyIndex = process.argv.indexOf("--only");
const only = onlyIndex === -1 ? undefined : (process.argv[onlyIndex + 1] ?? "").split(",");
const loadAverage = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(" ");

interface Bench {
  key: string;
  title: string;
  table: Table;
  run: () => Promise<Section>;
}

const BENCHES: Bench[] = [
  { key: "session", title: "10-turn session", table: "main", run: () => benchSession(rounds) },
  {
    key: "telemetry",
    title: "10-turn session, telemetry on and off",
    table: "main",
    run: () => benchTelemetry(rounds),
  },
  {
    key: "concurrency",
    title: "8 threads x 2 turns",
    table: "main",
    run: () => benchConcurrency(rounds),
  },
  {
    key: "throughput",
    title: "event throughput",
    table: "main",
    run: async () => throughputSection(await benchThroughput(events, throughputRounds)),
  },
  {
    key: "paused",
    title: "a paused reader",
    table: "main",
    run: () => benchPausedReader(events, Math.min(rounds, 3)),
  },
  {
    key: "remote",
    title: "codex over WebSocket",
    table: "main",
    run: () => benchRemote(rounds, events),
  },
  { key: "channels", title: "channels runtime", table: "main", run: () => benchChannels(rounds) },
  {
    key: "channels-policy",
    title: "channels: who may answer",
    table: "main",
    run: () => benchChannelsPolicy(rounds),
  },
  {
    key: "acp",
    title: "ACP agent (codex-harness acp)",
    table: "main",
    run: () => benchAcp(rounds, events),
  },
  {
    key: "acp-peer",
    title: "ACP agent against codex-acp",
    table: "main",
    run: () => benchAcpPeer(rounds),
  },
  { key: "fleet", title: "fleet on PostgreSQL", table: "main", run: () => benchFleet(rounds) },
  {
    key: "big-output",
    title: `big command output (${bigOutputMb} MB)`,
    table: "main",
    run: async () => bigOutputSection(await benchBigOutput(bigOutputMb)),
  },
  {
    key: "import",
    title: "root import",
    table: "import",
    run: () => benchImport(importRounds),
  },
];

/** The benchmarks to run: `--only`'s, else all (but big output with `--skip-big-output`). */
function selected(): Bench[] {
  if (only === undefined) {
    return BENCHES.filter((bench) => !(skipBigOutput && bench.key === "big-output"));
  }
  const unknown = only.filter((key) => !BENCHES.some((bench) => bench.key === key));
  if (unknown.length > 0 || only.length === 0) {
    throw new Error(
      `--only takes a comma-separated list of ${BENCHES.map((bench) => bench.key).join(", ")}; got ${JSON.stringify(only.join(","))}`,
    );
  }
  return BENCHES.filter((bench) => only.includes(bench.key));
}

/** Whether `table` is complete in this run (its block is only rewritten then). */
function complete(table: Table, ran: Bench[]): boolean {
  return BENCHES.filter((bench) => bench.table === table).every(
    (bench) => ran.includes(bench) || (bench.key === "big-output" && skipBigOutput),
  );
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = loadAverage();
  const benches = selected();
  console.log(
    `codex-harness benchmarks: ${rounds} interleaved rounds (deltas: ${throughputRounds}, import: ${importRounds}), node ` +
      `${process.version}, ${os.cpus().length} CPUs, load average ${loadBefore}`,
  );
  const sections = new Map<Table, Section[]>();
  for (const bench of benches) {
    const t = performance.now();
    process.stdout.write(`${bench.title} ... `);
    const section = await bench.run();
    sections.set(bench.table, [...(sections.get(bench.table) ?? []), section]);
    console.log(`${((performance.now() - t) / 1000).toFixed(0)} s`);
  }
  const rowsOf = (table: Table) => (sections.get(table) ?? []).flatMap((section) => section.rows);
  for (const table of sections.keys()) {
    console.log(`\n${textTable(rowsOf(table), RATIO_HEADERS[table])}\n`);
    for (const note of (sections.get(table) ?? []).flatMap((section) => section.notes)) {
      console.log(`  ${note}`);
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  console.log(`\ndone in ${seconds} s, load average ${loadAverage()}`);
  if (!process.argv.includes("--write-readme")) return;
  const date = new Date().toISOString().slice(0, 10);
  const machine = `${date}, node ${process.version}, ${os.cpus().length} CPUs, load average ${loadBefore} at the start`;
  if (complete("main", benches)) {
    const context =
      `\`npm run bench\` (${machine}): medians of ${rounds} ` +
      `interleaved runs (200k deltas: ${throughputRounds}); times include starting and ending codex; ` +
      "a ratio is the median of each " +
      "round's ratio against the floor (every round runs each variant once)." +
      (skipBigOutput
        ? ""
        : " Big-output rows are one run each in a fresh node process; their ratio is peak RSS against the floor's.");
    await writeReadme("main", `${context}\n\n${markdownTable(rowsOf("main"), RATIO_HEADERS.main)}`);
    console.log("docs/operations.md: benchmark table updated");
  }
  if (complete("import", benches)) {
    const context =
      `\`npm run bench -- --only import\` (${machine}): medians of ${importRounds} interleaved ` +
      "runs, each a fresh `node` that imports `Codex` and exits; time is from spawning it to its " +
      "exit, CPU time its user + system time, peak RSS its own high-water mark (`VmHWM`); a ratio is " +
      "the median of each round's ratio against `@openai/codex-sdk`.";
    await writeReadme(
      "import",
      `${context}\n\n${markdownTable(rowsOf("import"), RATIO_HEADERS.import)}`,
    );
    console.log("docs/operations.md: import table updated");
  }
}

const RATIO_HEADERS: Record<Table, string> = { main: "vs floor", import: "vs SDK" };

/** Replaces what is between `table`'s markers in docs/operations.md. */
async function writeReadme(table: Table, content: string): Promise<void> {
  const [START, END] = MARKERS[table];
  const readme = await readFile(FIGURES, "utf8");
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start === -1 || end < start) {
    throw new Error(
      `docs/operations.md has no ${START} ... ${END} markers in its "## Figures" section.`,
    );
  }
  const updated = `${readme.slice(0, start + START.length)}\n${content}\n${readme.slice(end)}`;
  await writeFile(FIGURES, updated);
}

main().catch((error: unknown) => {
  console.error(
    `\nbenchmark crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exitCode = 1;
});
