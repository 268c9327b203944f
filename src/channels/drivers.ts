// The optional packages of the channels stores (pg; better-sqlite3 where Node has no node:sqlite),
// the fleet (graphile-worker) and the chat backends (grammy, the Slack SDKs, discord.js): loaded on
// first use, with one clear error naming the package to install when it is missing.
import { CodexHarnessError } from "../errors.js";
import type { ModuleImporter } from "./store.js";

export type { ModuleImporter };

/** The drivers the stores load, by package name, as `import()` gives them. */
export interface Drivers {
  /** A CommonJS package: its `module.exports` (the `Database` class) is the default export. */
  "better-sqlite3": { default: typeof import("better-sqlite3") };
  pg: typeof import("pg");
  "graphile-worker": typeof import("graphile-worker");
  grammy: typeof import("grammy");
  "@slack/web-api": typeof import("@slack/web-api");
  "@slack/socket-mode": typeof import("@slack/socket-mode");
  "discord.js": typeof import("discord.js");
}

/** An optional driver's package name. */
export type DriverName = keyof Drivers;

const NEEDED_BY: Record<DriverName, string> = {
  "better-sqlite3": "The SQLite interaction store",
  pg: "The PostgreSQL interaction store",
  "graphile-worker": "The fleet (codex-harness worker)",
  grammy: "The Telegram backend",
  "@slack/web-api": "The Slack backend",
  "@slack/socket-mode": "The Slack backend's socket mode",
  "discord.js": "The Discord backend",
};

const importModule: ModuleImporter = (specifier) => import(specifier);

/**
 * Loads the optional driver `name`. When the package is not installed it rejects with a
 * {@link CodexHarnessError} of code `missing_dependency` that says what to install (e.g. "The
 * SQLite interaction store needs the optional package better-sqlite3: npm install
 * better-sqlite3"); when it is installed but fails to load, with code `driver_failed`.
 */
export async function loadDriver<N extends DriverName>(
  name: N,
  importer: ModuleImporter = importModule,
  neededBy: string = NEEDED_BY[name],
): Promise<Drivers[N]> {
  try {
    return (await importer(name)) as Drivers[N];
  } catch (error) {
    if (isMissing(error, name)) {
      throw new CodexHarnessError(
        "missing_dependency",
        `${neededBy} needs the optional package ${name}: npm install ${name}`,
        { cause: error },
      );
    }
    throw new CodexHarnessError(
      "driver_failed",
      `${neededBy} cannot load the package ${name}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** Whether `error` says that the package `name` itself (not something inside it) was not found. */
function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    typeof message === "string" &&
    message.includes(`'${name}'`)
  );
}

/** `url` without its password, for messages. */
export function redactUrl(url: string): string {
  let shown = url;
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    shown = parsed.toString();
  } catch {
    // Not a URL: shown as given.
  }
  // And whatever could still be a password (`user:secret@host`, which parses as a URL too).
  return shown.replace(/:[^:@/]*@/, ":***@");
}
