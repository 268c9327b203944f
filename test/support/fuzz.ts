// What the fuzz tests share: the seeds to run (FUZZ_SEED replays one) and catching what escapes.

/** The seeds to run: FUZZ_SEED's alone when set, else `defaults`. */
export function fuzzSeeds(defaults: number[]): number[] {
  return process.env.FUZZ_SEED ? [Number(process.env.FUZZ_SEED)] : defaults;
}

/** Runs `body`, collecting every uncaught exception and unhandled rejection meanwhile. */
export async function whatEscapes(body: () => Promise<void>): Promise<unknown[]> {
  const problems: unknown[] = [];
  const record = (error: unknown) => problems.push(error);
  process.on("uncaughtException", record);
  process.on("unhandledRejection", record);
  try {
    await body();
  } finally {
    process.off("uncaughtException", record);
    process.off("unhandledRejection", record);
  }
  return problems;
}
