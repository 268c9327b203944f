// What the commands that only talk to codex share (login, logout, threads): the flags that say
// which codex (home, executable, or a remote one) and one way to run on it and report failure.
import type { Command } from "commander";
import { Codex } from "../codex.js";
import { codexPath, existingFolder } from "./arguments.js";
import { addRemoteFlags, type RemoteFlags, remoteOf } from "./remote-flags.js";

/** The flags {@link addCodexFlags} adds. */
export interface CodexFlags extends RemoteFlags {
  codexHome?: string;
  codexPath?: string;
}

/** Adds `--codex-home`, `--codex-path` and the remote flags to `command`. */
export function addCodexFlags(command: Command): Command {
  return addRemoteFlags(
    command
      .option(
        "--codex-home <dir>",
        "CODEX_HOME to use (default: codex's own, $CODEX_HOME or ~/.codex)",
        existingFolder,
      )
      .option("--codex-path <path>", "codex executable (default: the bundled one)", codexPath),
  );
}

/**
 * Runs `work` on a Codex for `flags`, closing it after; a failure is one line on stderr
 * (`error: …`) and exit code 1.
 */
export async function withCodex(
  flags: CodexFlags,
  work: (codex: Codex) => Promise<void>,
): Promise<void> {
  const remote = remoteOf(flags, [
    ["--codex-path", flags.codexPath],
    ["--codex-home", flags.codexHome],
  ]);
  const codex = new Codex({
    ...(flags.codexPath ? { codexPathOverride: flags.codexPath } : {}),
    ...(flags.codexHome ? { codexHome: flags.codexHome } : {}),
    ...(remote ? { remote } : {}),
  });
  try {
    await work(codex);
  } catch (error) {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  } finally {
    await codex.close();
  }
}
