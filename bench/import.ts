// Benchmark 6: what `import { Codex } from "codex-harness"` costs against `@openai/codex-sdk` —
// time and peak RSS of a fresh node process that does only that, interleaved, the SDK the floor.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Row, Section } from "./report.js";
import { formatFactor, formatMiB, formatMs, median, min, pairedRatio } from "./stats.js";

/** The repository (build/bench/import.js -> ../..): `codex-harness` resolves to this package there. */
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The root import may take at most this many times the official SDK's. */
/** The root's import may cost at most this much of the official SDK's, in time and in peak RSS. */
export const IMPORT_TIME_TARGET = 1.1;

/** What one child reports, and its wall time. */
export interface ImportRun {
  /** From spawning the process to its exit, as the parent saw it. */
  wallMs: number;
  /** `performance.now()` in the child right after the import: node's start-up plus the import. */
  readyMs: number;
  /**
   * Peak resident set size of the child, in bytes: its own (`VmHWM` in /proc/self/status, where
   * there is one), not `process.resourceUsage().maxRSS`, which Linux carries over from the parent
   * through fork and exec (a big bench process gave every child its own peak).
   */
  peakRss: number;
  /** User plus system CPU time of the child up to its report: steadier than wall time on a busy machine. */
  cpuMs: number;
  /** Modules node loaded for itself (`process.moduleLoadList`, node's own built-ins). */
  builtins: number;
}

interface ImportVariant {
  name: string;
  /** The module to import, or undefined for node alone. */
  specifier: string | undefined;
}

const VARIANTS: ImportVariant[] = [
  { name: "codex-harness", specifier: "codex-harness" },
  { name: "@openai/codex-sdk (floor)", specifier: "@openai/codex-sdk" },
  { name: "node alone, no import", specifier: undefined },
];

/** The child's program: a static import, as an application has it, then its figures on stdout. */
function program(specifier: string | undefined): string {
  const report =
    "const usage = process.resourceUsage();\n" +
    "let status = '';\n" +
    // Not an import of node:fs, whose ES module facade loads node's streams in every variant.
    "try { status = process.getBuiltinModule('node:fs').readFileSync('/proc/self/status', 'utf8'); } catch {}\n" +
    "const hwm = /VmHWM:\\s+(\\d+) kB/.exec(status);\n" +
    "console.log(JSON.stringify({ readyMs, peakRss: (hwm ? Number(hwm[1]) : usage.maxRSS) * 1024, " +
    "cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, " +
    "builtins: process.moduleLoadList.length }));";
  if (specifier === undefined) return `const readyMs = performance.now();\n${report}`;
  return (
    `import { Codex } from ${JSON.stringify(specifier)};\n` +
    "const readyMs = performance.now();\n" +
    'if (typeof Codex !== "function") throw new Error("no Codex export");\n' +
    report
  );
}

/** Runs one fresh `node` that imports `specifier` and exits. */
export function runImport(specifier: string | undefined): Promise<ImportRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ["--input-type=module", "-e", program(specifier)], {
      cwd: REPO,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) {
        reject(new Error(`importing ${specifier ?? "nothing"} failed (exit ${code}): ${stderr}`));
        return;
      }
      const figures = JSON.parse(stdout) as Omit<ImportRun, "wallMs">;
      resolve({ wallMs, ...figures });
    });
  });
}

/** Every variant `rounds` times, interleaved, after one warm-up run each (file cache). */
export async function benchImport(rounds: number): Promise<Section> {
  for (const variant of VARIANTS) await runImport(variant.specifier);
  const runs = new Map<ImportVariant, ImportRun[]>(VARIANTS.map((variant) => [variant, []]));
  for (let round = 0; round < rounds; round++) {
    for (const variant of VARIANTS) runs.get(variant)?.push(await runImport(variant.specifier));
  }
  return importSection(runs);
}

function importSection(runs: Map<ImportVariant, ImportRun[]>): Section {
  const [ours, floor, bare] = VARIANTS.map((variant) => runs.get(variant) ?? []) as [
    ImportRun[],
    ImportRun[],
    ImportRun[],
  ];
  const of = (list: ImportRun[], key: keyof ImportRun) => list.map((run) => run[key]);
  /** `list` against the SDK's runs, round by round. */
  const vsSdk = (list: ImportRun[], key: keyof ImportRun) =>
    pairedRatio(of(list, key), of(floor, key));
  const rows: Row[] = [];
  for (const variant of VARIANTS) {
    const list = runs.get(variant) ?? [];
    const time = median(of(list, "wallMs"));
    const ratio = vsSdk(list, "wallMs");
    rows.push({
      benchmark: "import { Codex }: time",
      variant: variant.name,
      median: `${formatMs(time)} ms`,
      best: `${formatMs(min(of(list, "wallMs")))} ms`,
      vsFloor: formatFactor(ratio),
      target: variant === VARIANTS[0] ? `<= ${IMPORT_TIME_TARGET.toFixed(1)}x SDK` : "",
      pass: variant === VARIANTS[0] ? ratio <= IMPORT_TIME_TARGET : undefined,
    });
  }
  for (const variant of VARIANTS) {
    const list = runs.get(variant) ?? [];
    const cpu = median(of(list, "cpuMs"));
    rows.push({
      benchmark: "import { Codex }: CPU time",
      variant: variant.name,
      median: `${formatMs(cpu)} ms`,
      best: `${formatMs(min(of(list, "cpuMs")))} ms`,
      vsFloor: formatFactor(vsSdk(list, "cpuMs")),
      target: "",
      pass: undefined,
    });
  }
  for (const variant of VARIANTS) {
    const list = runs.get(variant) ?? [];
    const rss = median(of(list, "peakRss"));
    const ratio = vsSdk(list, "peakRss");
    rows.push({
      benchmark: "import { Codex }: peak RSS",
      variant: variant.name,
      median: formatMiB(rss),
      best: formatMiB(min(of(list, "peakRss"))),
      vsFloor: formatFactor(ratio),
      target: variant === VARIANTS[0] ? `<= ${IMPORT_TIME_TARGET.toFixed(1)}x SDK` : "",
      pass: variant === VARIANTS[0] ? ratio <= IMPORT_TIME_TARGET : undefined,
    });
  }
  const nodeReady = median(of(bare, "readyMs"));
  const importCost = (list: ImportRun[]) => median(of(list, "readyMs")) - nodeReady;
  const list = (values: number[]) => values.map((value) => formatMs(value)).join(", ");
  const notes = [
    `import time over node's own start-up (median ready time minus node alone's ${formatMs(nodeReady)} ms): ` +
      `codex-harness ${formatMs(importCost(ours))} ms, @openai/codex-sdk ${formatMs(importCost(floor))} ms`,
    `node built-ins loaded: codex-harness ${median(of(ours, "builtins"))}, @openai/codex-sdk ` +
      `${median(of(floor, "builtins"))}, node alone ${median(of(bare, "builtins"))}`,
    `wall ms, codex-harness: ${list(of(ours, "wallMs"))}`,
    `wall ms, @openai/codex-sdk: ${list(of(floor, "wallMs"))}`,
    `wall ms, node alone: ${list(of(bare, "wallMs"))}`,
  ];
  return { rows, notes };
}
