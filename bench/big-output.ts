// Benchmark 4: a command printing N MB through a real codex turn; the client's peak RSS, each run in a fresh node process.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { findCodexBinary } from "../src/app-server/codex-binary.js";
import { Codex } from "../src/codex.js";
import type { ExtendedCommandExecutionItem } from "../src/events/types.js";
import { execCommand, reply, ScriptedModel } from "../src/testing/index.js";
import { RawClient } from "./raw-client.js";
import { type Row, type Section, textTable } from "./report.js";
import { formatMiB, formatMs, formatRatio } from "./stats.js";

const MiB = 1024 * 1024;
const THIS_FILE = fileURLToPath(import.meta.url);

/** How the client consumes the turn. */
export type BigOutputVariant = "streamed" | "slow" | "run" | "raw";

/** In table order, the floor last. */
const VARIANTS: BigOutputVariant[] = ["streamed", "slow", "run", "raw"];

const VARIANT_NAMES: Record<BigOutputVariant, string> = {
  streamed: "codex-harness runStreamed()",
  slow: "codex-harness runStreamed(), slow reader (1 ms/delta)",
  run: "codex-harness run()",
  raw: "raw JSON-RPC (floor)",
};

/** One turn whose command printed `mb` MiB, consumed in a fresh node process. */
export interface BigOutputRun {
  variant: BigOutputVariant;
  mb: number;
  /** The command turn, from `turn/start` to the end of its stream. */
  ms: number;
  /** RSS and heapUsed after a warm-up turn and a forced GC, and the highest values sampled after. */
  rssBaseline: number;
  rssPeak: number;
  heapBaseline: number;
  heapPeak: number;
  samples: number;
  /** `command_output` deltas received and their UTF-8 bytes (0 for `run()`, which streams none). */
  deltas: number;
  deltaBytes: number;
  /** The length of the command item's `aggregated_output` as codex reported it. */
  aggregatedChars: number;
  /** The byte count in codex's `... N bytes omitted ...` marker, if it truncated the output. */
  omittedBytes: number | null;
  exitCode: number | null;
  /** codex app-server's own peak RSS (VmHWM), where /proc tells it. */
  codexPeakRss: number | null;
}

export interface BigOutputResult {
  small: number;
  big: number;
  runs: BigOutputRun[];
}

/** Lines of 64 bytes, produced as fast as the reader takes them. */
function bigCommand(mb: number): string {
  return `yes 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopq | head -c ${mb * MiB}`;
}

/** Samples RSS and heapUsed every 50 ms (and on demand) over a baseline taken after a GC. */
class MemorySampler {
  readonly rssBaseline: number;
  readonly heapBaseline: number;
  rssPeak: number;
  heapPeak: number;
  samples = 0;
  private readonly timer: NodeJS.Timeout;

  constructor() {
    globalThis.gc?.();
    const usage = process.memoryUsage();
    this.rssBaseline = this.rssPeak = usage.rss;
    this.heapBaseline = this.heapPeak = usage.heapUsed;
    this.timer = setInterval(() => this.sample(), 50);
  }

  sample(): void {
    const usage = process.memoryUsage();
    this.samples++;
    this.rssPeak = Math.max(this.rssPeak, usage.rss);
    this.heapPeak = Math.max(this.heapPeak, usage.heapUsed);
  }

  stop(): void {
    this.sample();
    clearInterval(this.timer);
  }
}

/** What one consumer saw of the command turn. */
interface Seen {
  deltas: number;
  deltaBytes: number;
  item: { aggregatedOutput: string; exitCode: number | null; status: string } | undefined;
}

/** Runs in the child process: a warm-up turn, then the command turn, measured. */
async function measureInChild(variant: BigOutputVariant, mb: number): Promise<BigOutputRun> {
  const binary = findCodexBinary();
  const root = await mkdtemp(path.join(tmpdir(), "codex-harness-big-output-"));
  const home = path.join(root, "home");
  const workdir = path.join(root, "work");
  await mkdir(workdir, { recursive: true });
  const model = await ScriptedModel.start({
    responses: [
      reply("Ready."),
      execCommand(bigCommand(mb), { yieldTimeMs: 120_000 }),
      reply("Done."),
    ],
  });
  try {
    await model.writeCodexHome(home, {
      sandbox_mode: "danger-full-access",
      approval_policy: "never",
    });
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env))
      if (value !== undefined) env[key] = value;
    env.PATH = [...binary.pathDirs, env.PATH].filter(Boolean).join(path.delimiter);
    env.CODEX_HOME = home;
    const consume = variant === "raw" ? consumeRaw : consumeHarness;
    const { seen, sampler, ms, codexPeakRss } = await consume(variant, binary.executablePath, {
      env,
      workdir,
    });
    const errors = model.errors.map((error) => error.message);
    if (model.pending > 0) errors.push(`${model.pending} scripted replies were never requested`);
    if (errors.length > 0) throw new Error(`ScriptedModel: ${errors.join("; ")}`);
    const item = seen.item;
    if (!item) throw new Error("codex reported no command item");
    if (item.status !== "completed" || item.exitCode !== 0) {
      throw new Error(`the command ended ${item.status} with exit code ${item.exitCode}`);
    }
    const omitted = /\.\.\. (\d+) bytes omitted \.\.\./.exec(item.aggregatedOutput);
    return {
      variant,
      mb,
      ms,
      rssBaseline: sampler.rssBaseline,
      rssPeak: sampler.rssPeak,
      heapBaseline: sampler.heapBaseline,
      heapPeak: sampler.heapPeak,
      samples: sampler.samples,
      deltas: seen.deltas,
      deltaBytes: seen.deltaBytes,
      aggregatedChars: item.aggregatedOutput.length,
      omittedBytes: omitted ? Number(omitted[1]) : null,
      exitCode: item.exitCode,
      codexPeakRss,
    };
  } finally {
    await model.close();
    await rm(root, { recursive: true, force: true });
  }
}

interface Consumed {
  seen: Seen;
  sampler: MemorySampler;
  ms: number;
  codexPeakRss: number | null;
}

type Consumer = (
  variant: BigOutputVariant,
  codexPath: string,
  options: { env: Record<string, string>; workdir: string },
) => Promise<Consumed>;

/**
 * codex-harness: `runStreamed()` counting `command_output` deltas (`slow`: waiting 1 ms after each,
 * like a reader that renders them), or `run()` keeping the completed items.
 */
const consumeHarness: Consumer = async (variant, codexPath, { env, workdir }) => {
  const codex = new Codex({ events: "extended", codexPathOverride: codexPath, env });
  try {
    const thread = codex.startThread({ workingDirectory: workdir, skipGitRepoCheck: true });
    const warm = await thread.run("Warm up.");
    if (warm.finalResponse !== "Ready.") throw new Error(`warm-up answered ${warm.finalResponse}`);
    const seen: Seen = { deltas: 0, deltaBytes: 0, item: undefined };
    const sampler = new MemorySampler();
    const start = performance.now();
    let command: ExtendedCommandExecutionItem | undefined;
    try {
      if (variant === "streamed" || variant === "slow") {
        const { events } = await thread.runStreamed("Print a lot.");
        for await (const event of events) {
          if (event.type === "item.delta" && event.stream === "command_output") {
            seen.deltas++;
            seen.deltaBytes += Buffer.byteLength(event.delta);
            if (variant === "slow") await delay(1);
          } else if (event.type === "item.completed") {
            sampler.sample();
            if (event.item.type === "command_execution") command = event.item;
          } else if (event.type === "turn.failed") {
            throw new Error(`the turn failed: ${event.error.message}`);
          }
        }
      } else {
        // run() keeps every completed item: the command's aggregated_output stays in the result.
        const result = await thread.run("Print a lot.");
        sampler.sample();
        command = result.items.find(
          (item): item is ExtendedCommandExecutionItem => item.type === "command_execution",
        );
      }
    } finally {
      sampler.stop();
    }
    const ms = performance.now() - start;
    if (command) {
      seen.item = {
        aggregatedOutput: command.aggregated_output,
        exitCode: command.exit_code ?? null,
        status: command.status,
      };
    }
    return { seen, sampler, ms, codexPeakRss: childPeakRss() };
  } finally {
    await codex.close();
  }
};

/** The floor: a bare line reader that counts deltas and keeps nothing but the command item. */
const consumeRaw: Consumer = async (_variant, codexPath, { env, workdir }) => {
  const client = await RawClient.start(codexPath, env);
  try {
    const threadId = await client.startThread(workdir);
    const warm = await client.runTurn(threadId, "Warm up.");
    if (warm !== "completed") throw new Error(`the warm-up turn ended ${warm}`);
    const seen: Seen = { deltas: 0, deltaBytes: 0, item: undefined };
    client.onNotification = (message) => {
      if (message.method === "item/commandExecution/outputDelta") {
        seen.deltas++;
        seen.deltaBytes += Buffer.byteLength(message.params.delta as string);
      } else if (
        message.method === "item/completed" &&
        message.params.item.type === "commandExecution"
      ) {
        const item = message.params.item;
        seen.item = {
          aggregatedOutput: item.aggregatedOutput ?? "",
          exitCode: item.exitCode ?? null,
          status: item.status,
        };
      }
    };
    const sampler = new MemorySampler();
    const start = performance.now();
    let status: string;
    try {
      status = await client.runTurn(threadId, "Print a lot.");
    } finally {
      sampler.stop();
    }
    const ms = performance.now() - start;
    if (status !== "completed") throw new Error(`the command turn ended ${status}`);
    return { seen, sampler, ms, codexPeakRss: childPeakRss() };
  } finally {
    await client.close();
  }
};

/** The peak RSS (VmHWM) of this process's `codex app-server` child, read from /proc (Linux). */
function childPeakRss(): number | null {
  try {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      } catch {
        continue;
      }
      // The fields after the command name (which may hold spaces): state, ppid, ...
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== process.pid) continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (!cmdline.includes("app-server")) continue;
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${entry}/status`, "utf8"));
      if (hwm) return Number(hwm[1]) * 1024;
    }
  } catch {
    // No /proc: not Linux.
  }
  return null;
}

/** Runs one measurement in a fresh `node --expose-gc` process, so earlier work cannot hide growth. */
function runChild(variant: BigOutputVariant, mb: number): Promise<BigOutputRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--expose-gc", THIS_FILE, "--child", variant, String(mb)],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 180_000 + mb * 1_000);
    child.once("error", reject);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      const last = stdout.trim().split("\n").at(-1) ?? "";
      if (code === 0 && last.startsWith("{")) {
        resolve(JSON.parse(last) as BigOutputRun);
      } else {
        const why = signal ? `was killed (${signal})` : `exited with code ${code}`;
        reject(new Error(`big-output ${variant} ${mb} MB ${why}: ${stderr.trim() || stdout}`));
      }
    });
  });
}

/** The sizes compared: `big` MB (default 200) and a tenth-ish of it, 20 MB for 200. */
export function bigOutputSizes(big: number): { small: number; big: number } {
  return { small: Math.max(1, Math.min(20, Math.round(big / 10))), big };
}

/** Every variant at the small size, then at the big one, each in its own process. */
export async function benchBigOutput(bigMb: number): Promise<BigOutputResult> {
  const { small, big } = bigOutputSizes(bigMb);
  const runs: BigOutputRun[] = [];
  for (const mb of [small, big]) {
    for (const variant of VARIANTS) {
      runs.push(await runChild(variant, mb));
    }
  }
  return { small, big, runs };
}

/** Peak RSS growth at the big size may be at most this factor of the small size's, plus slack. */
const FLAT_FACTOR = 2;
const FLAT_SLACK_BYTES = 32 * MiB;
/** What a slow reader's peak RSS growth should stay under (issue 28's target). */
const SLOW_BOUND_BYTES = 16 * MiB;

const growth = (run: BigOutputRun) => run.rssPeak - run.rssBaseline;

/** Whether the big run's growth stays within the flat bound of the small run's. */
export function isFlat(big: BigOutputRun, small: BigOutputRun): boolean {
  return growth(big) <= FLAT_FACTOR * Math.max(0, growth(small)) + FLAT_SLACK_BYTES;
}

/**
 * The big rows' targets. A reader that keeps up must stay flat; the slow reader, whose unread
 * output codex-harness queues up to `maxQueuedDeltaBytes`, must stay under a fixed bound.
 */
function target(
  variant: BigOutputVariant,
  isBig: boolean,
  run: BigOutputRun,
  small: BigOutputRun,
): Pick<Row, "target" | "pass"> {
  if (!isBig) return { target: "", pass: undefined };
  if (variant === "slow") {
    return {
      target: `bounded: growth <= ${SLOW_BOUND_BYTES / MiB} MiB`,
      pass: growth(run) <= SLOW_BOUND_BYTES,
    };
  }
  return {
    target: `flat: growth(${run.mb} MB) <= ${FLAT_FACTOR}x growth(${small.mb} MB) + 32 MiB`,
    pass: isFlat(run, small),
  };
}

const count = (n: number) => n.toLocaleString("en-US");
const signedMiB = (bytes: number) => `${bytes < 0 ? "-" : "+"}${formatMiB(Math.abs(bytes))}`;

/** What the client received: the deltas for streaming consumers, the kept output for run(). */
function received(run: BigOutputRun): string {
  if (run.variant === "run") return `aggregated_output ${formatMiB(run.aggregatedChars)}`;
  return `${count(run.deltas)} deltas, ${formatMiB(run.deltaBytes)}`;
}

/** The table rows (one per variant and size) and the details of every run. */
export function bigOutputSection(result: BigOutputResult): Section {
  const find = (variant: BigOutputVariant, mb: number) =>
    result.runs.find((run) => run.variant === variant && run.mb === mb) as BigOutputRun;
  const rows: Row[] = [];
  for (const mb of [result.small, result.big]) {
    const floor = find("raw", mb);
    for (const variant of VARIANTS) {
      const run = find(variant, mb);
      const isBig = mb === result.big;
      rows.push({
        benchmark: `${mb} MB command output`,
        variant: `${VARIANT_NAMES[variant]}: ${received(run)}`,
        median: `RSS ${(run.rssBaseline / MiB).toFixed(1)} → ${formatMiB(run.rssPeak)} (${signedMiB(growth(run))})`,
        best: `heap ${signedMiB(run.heapPeak - run.heapBaseline)}`,
        vsFloor: formatRatio(run.rssPeak, floor.rssPeak),
        ...target(variant, isBig, run, find(variant, result.small)),
      });
    }
  }
  const notes = result.runs.map(
    (run) =>
      `${run.mb} MB / ${VARIANT_NAMES[run.variant]}: ${formatMs(run.ms)} ms, ` +
      `RSS ${formatMiB(run.rssBaseline)} → ${formatMiB(run.rssPeak)}, ` +
      `heap ${formatMiB(run.heapBaseline)} → ${formatMiB(run.heapPeak)} (${run.samples} samples), ` +
      (run.variant === "run"
        ? ""
        : `${count(run.deltas)} deltas = ${count(run.deltaBytes)} bytes of ${count(run.mb * MiB)}, `) +
      `aggregated_output ${count(run.aggregatedChars)} chars` +
      (run.omittedBytes === null ? "" : ` (codex: "${count(run.omittedBytes)} bytes omitted")`) +
      (run.codexPeakRss === null
        ? ""
        : `, codex app-server peak RSS ${formatMiB(run.codexPeakRss)}`),
  );
  return { rows, notes };
}

async function main(): Promise<void> {
  if (process.argv[2] === "--child") {
    const variant = process.argv[3] as BigOutputVariant;
    const mb = Number(process.argv[4]);
    if (!(variant in VARIANT_NAMES) || !(mb > 0)) {
      throw new Error(`usage: big-output.js --child ${VARIANTS.join("|")} MB`);
    }
    console.log(JSON.stringify(await measureInChild(variant, mb)));
    return;
  }
  // `node --expose-gc build/bench/big-output.js [MB]`: this benchmark alone.
  const section = bigOutputSection(await benchBigOutput(Number(process.argv[2] ?? 200)));
  console.log(textTable(section.rows));
  for (const note of section.notes) console.log(`  ${note}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  });
}
