// The four ways of running T threads x N turns that the session and concurrency benchmarks compare.
import { Codex as OfficialCodex } from "@openai/codex-sdk";
import { Codex } from "../src/codex.js";
import { RawClient } from "./raw-client.js";
import { type ScriptedEnv, scriptedEnv } from "./scripted-env.js";
import { since } from "./stats.js";

/** A workload: `threads` threads at once, each running `turns` turns one after the other. */
export interface Workload {
  threads: number;
  turns: number;
}

export interface Variant {
  name: string;
  /** Runs the workload (process start and end included); resolves with the elapsed ms. */
  run(env: ScriptedEnv, workload: Workload): Promise<number>;
}

/** Runs `turn(thread, n)` for n = 0..turns-1 on each thread, threads concurrently. */
async function eachThread(
  workload: Workload,
  turn: (thread: number, n: number) => Promise<void>,
): Promise<void> {
  const threads = Array.from({ length: workload.threads }, async (_, t) => {
    for (let n = 0; n < workload.turns; n++) await turn(t, n);
  });
  await Promise.all(threads);
}

function expectAnswer(got: string, n: number): void {
  if (!/^Answer \d+\.$/.test(got)) throw new Error(`turn ${n + 1} answered ${JSON.stringify(got)}`);
}

/** codex-harness (`transport` app-server or exec) or @openai/codex-sdk: same calls, same options. */
function sdkVariant(
  name: string,
  make: (env: ScriptedEnv) => Codex | OfficialCodex,
  options: { startFirst?: boolean } = {},
): Variant {
  return {
    name,
    async run(env, workload) {
      const codex = make(env);
      // Started first: codex.start() is paid before the clock starts, as a program can do.
      if (options.startFirst && codex instanceof Codex) await codex.start();
      const start = performance.now();
      try {
        const options = { workingDirectory: env.workdir, skipGitRepoCheck: true };
        const threads = Array.from({ length: workload.threads }, () => codex.startThread(options));
        await eachThread(workload, async (t, n) => {
          const result = await (threads[t] as (typeof threads)[number]).run(`Question ${n + 1}`);
          expectAnswer(result.finalResponse, n);
        });
      } finally {
        if (codex instanceof Codex) await codex.close();
      }
      return since(start);
    },
  };
}

export const harnessAppServer = sdkVariant(
  "codex-harness app-server",
  (env) => new Codex({ codexPathOverride: env.codexPath, env: env.env }),
);

export const harnessStarted = sdkVariant(
  "codex-harness app-server, after codex.start()",
  (env) => new Codex({ codexPathOverride: env.codexPath, env: env.env }),
  { startFirst: true },
);

export const harnessExec = sdkVariant(
  "codex-harness exec",
  (env) => new Codex({ transport: "exec", codexPathOverride: env.codexPath, env: env.env }),
);

export const officialSdk = sdkVariant(
  "@openai/codex-sdk",
  (env) => new OfficialCodex({ codexPathOverride: env.codexPath, env: env.env }),
);

/** The floor's name (the session rows' ratios are to it). */
export const FLOOR_NAME = "raw JSON-RPC (floor)";

/**
 * The floor: one app-server driven by {@link RawClient}, threads multiplexed on it; with
 * `startFirst`, codex started (and initialized) before the clock starts.
 */
function rawVariant(name: string, options: { startFirst?: boolean } = {}): Variant {
  return {
    name,
    async run(env, workload) {
      let start = performance.now();
      const client = await RawClient.start(env.codexPath, env.env);
      if (options.startFirst) start = performance.now();
      try {
        const ids: string[] = [];
        await eachThread(workload, async (t, n) => {
          if (n === 0) ids[t] = await client.startThread(env.workdir);
          const status = await client.runTurn(ids[t] as string, `Question ${n + 1}`);
          if (status !== "completed") throw new Error(`turn ${n + 1} ended ${status}`);
        });
      } finally {
        await client.close();
      }
      return since(start);
    },
  };
}

export const rawClient = rawVariant(FLOOR_NAME);

/** What `codex.start()` can save at most: the bare client's turns after its own start. */
export const rawStarted = rawVariant("raw JSON-RPC, after its start", { startFirst: true });

/** All six, the floor last. */
export const VARIANTS: Variant[] = [
  harnessAppServer,
  harnessStarted,
  harnessExec,
  officialSdk,
  rawStarted,
  rawClient,
];

/** Samples of one variant. */
export interface VariantResult {
  name: string;
  samples: number[];
}

/**
 * Runs every variant (of `variants`, by default the six) `rounds` times, interleaved (the order rotates each round so that no variant
 * always runs first), each run on a fresh ScriptedModel and CODEX_HOME, after an optional warm-up.
 */
export async function measure(
  workload: Workload,
  rounds: number,
  options: { warmUp: boolean },
  variants: readonly Variant[] = VARIANTS,
): Promise<VariantResult[]> {
  const results = variants.map((variant) => ({ name: variant.name, samples: [] as number[] }));
  if (options.warmUp) await runOnce(rawClient, workload);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < variants.length; i++) {
      const index = (i + round) % variants.length;
      const ms = await runOnce(variants[index] as Variant, workload);
      (results[index] as VariantResult).samples.push(ms);
    }
  }
  return results;
}

async function runOnce(variant: Variant, workload: Workload): Promise<number> {
  const env = await scriptedEnv(workload.threads * workload.turns);
  try {
    const ms = await variant.run(env, workload);
    env.check();
    return ms;
  } catch (error) {
    throw new Error(`${variant.name} failed: ${(error as Error).message}`, { cause: error });
  } finally {
    await env.close();
  }
}
