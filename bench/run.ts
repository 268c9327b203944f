// `npm run bench`: runs every benchmark, prints the table, and with --write-readme puts it in README.md.
import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { benchBigOutput, bigOutputSection } from "./big-output.js";
import { benchChannels } from "./channels.js";
import { benchConcurrency } from "./concurrency.js";
import { markdownTable, type Section, textTable } from "./report.js";
import { benchSession } from "./session.js";
import { benchThroughput, throughputSection } from "./throughput.js";

const README = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../README.md");
const START = "<!-- bench:start -->";
const END = "<!-- bench:end -->";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const rounds = option("--rounds", 3);
const events = option("--events", 200_000);
/** The big-output benchmark's command prints this many MiB (and a tenth of it, 20 for 200). */
const bigOutputMb = option("--big-output-mb", 200);
const skipBigOutput = process.argv.includes("--skip-big-output");
const loadAverage = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(" ");

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = loadAverage();
  console.log(
    `codex-harness benchmarks: ${rounds} interleaved rounds, node ${process.version}, ` +
      `${os.cpus().length} CPUs, load average ${loadBefore}`,
  );
  const sections: Section[] = [];
  const benches: [string, () => Promise<Section>][] = [
    ["10-turn session", () => benchSession(rounds)],
    ["8 threads x 2 turns", () => benchConcurrency(rounds)],
    ["event throughput", async () => throughputSection(await benchThroughput(events, rounds))],
    ["channels runtime", () => benchChannels(rounds)],
  ];
  if (!skipBigOutput) {
    benches.push([
      `big command output (${bigOutputMb} MB)`,
      async () => bigOutputSection(await benchBigOutput(bigOutputMb)),
    ]);
  }
  for (const [title, bench] of benches) {
    const t = performance.now();
    process.stdout.write(`${title} ... `);
    sections.push(await bench());
    console.log(`${((performance.now() - t) / 1000).toFixed(0)} s`);
  }
  const rows = sections.flatMap((section) => section.rows);
  console.log(`\n${textTable(rows)}\n`);
  for (const note of sections.flatMap((section) => section.notes)) console.log(`  ${note}`);
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  console.log(`\ndone in ${seconds} s, load average ${loadAverage()}`);
  if (process.argv.includes("--write-readme")) {
    const context =
      `\`npm run bench\` (${new Date().toISOString().slice(0, 10)}, node ${process.version}, ` +
      `${os.cpus().length} CPUs, load average ${loadBefore} at the start): medians of ${rounds} ` +
      "interleaved runs; times include starting and ending codex; ratios are against the floor " +
      "measured in the same run." +
      (skipBigOutput
        ? ""
        : " Big-output rows are one run each in a fresh node process; their ratio is peak RSS against the floor's.");
    await writeReadme(`${context}\n\n${markdownTable(rows)}`);
    console.log("README.md: benchmark table updated");
  }
}

/** Replaces what is between the markers in README.md. */
async function writeReadme(content: string): Promise<void> {
  const readme = await readFile(README, "utf8");
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start === -1 || end < start) {
    throw new Error(`README.md has no ${START} ... ${END} markers in its "## Figures" section.`);
  }
  const updated = `${readme.slice(0, start + START.length)}\n${content}\n${readme.slice(end)}`;
  await writeFile(README, updated);
}

main().catch((error: unknown) => {
  console.error(
    `\nbenchmark crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exitCode = 1;
});
