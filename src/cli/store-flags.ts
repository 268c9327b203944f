// The store a command works on directly (`people`, `audit`): the data directory's SQLite, or
// PostgreSQL with `--store`, opened for the command and closed after it.
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Command } from "commander";
import type { InteractionStore } from "../channels/store.js";
import { CodexHarnessError } from "../errors.js";

/** The data directory when `--data-dir` is not given. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CODEX_HARNESS_DATA_DIR ?? path.join(os.homedir(), ".codex-harness", "channels");
}

/** `--data-dir` and `--store`, as `serve` takes them. */
export interface StoreFlags {
  dataDir?: string;
  store?: string;
}

/** Adds `--data-dir` and `--store` to `command`, saying what it finds there. */
export function addStoreFlags(command: Command, what: string): Command {
  return command
    .option(
      "--data-dir <dir>",
      `the runtime's data directory, whose SQLite store holds ${what} (default ~/.codex-harness/channels)`,
    )
    .option("--store <url>", "postgres://… when the runtime runs with --store");
}

/**
 * Opens the store of `flags`, works, closes it. With `existing`, a data directory without a store
 * is `invalid_option` (nothing is made there).
 */
export async function useStore<T>(
  flags: StoreFlags,
  work: (store: InteractionStore) => Promise<T>,
  options: { existing?: boolean } = {},
): Promise<T> {
  const dataDir = path.resolve(flags.dataDir ?? defaultDataDir());
  if (options.existing && flags.store === undefined) {
    const file = path.join(dataDir, "interactions.db");
    if (!existsSync(file)) {
      throw new CodexHarnessError(
        "invalid_option",
        `There is no store in ${dataDir} (no interactions.db): give the runtime's --data-dir, or --store postgres://… when it runs with one.`,
      );
    }
  }
  // Loaded here: only these commands (and `serve`) need the stores and their drivers.
  const { openStore } = await import("../channels/http-server.js");
  const store = await openStore(flags.store, dataDir);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
