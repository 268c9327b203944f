// `codex-harness try-postgres`: a PostgreSQL server of one's own on this machine for trying the
// fleet (Debian's postgresql package): started once, its URL on stdout (data), `--stop` ends it and
// removes its folder. Not for production (trust authentication, fsync off).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";

/** Adds `try-postgres` to the program. */
export function addTryPostgresCommand(program: Command): void {
  program
    .command("try-postgres")
    .description(
      "Start a throwaway PostgreSQL on this machine for trying the fleet (Debian's postgresql) and print its URL; --stop ends it",
    )
    .option(
      "--dir <dir>",
      "the server's folder (default: codex-harness-try-postgres in the temp folder)",
    )
    .option("--stop", "stop the server and remove its folder")
    .action(async (flags: { dir?: string; stop?: boolean }) => {
      const { localPostgresRunning, serverParent, startLocalPostgres, stopLocalPostgres } =
        await import("../fleet/local-postgres.js");
      const dir = path.resolve(
        flags.dir ?? path.join(serverParent(), "codex-harness-try-postgres"),
      );
      const urlFile = path.join(dir, "url");
      if (flags.stop) {
        if (existsSync(dir)) {
          stopLocalPostgres(dir);
          rmSync(dir, { recursive: true, force: true });
          console.error(`stopped the PostgreSQL in ${dir} and removed it.`);
        } else console.error(`no PostgreSQL in ${dir}: nothing to stop.`);
        return;
      }
      if (existsSync(urlFile) && localPostgresRunning(dir)) {
        console.log(readFileSync(urlFile, "utf8").trim());
        console.error(`already running in ${dir}.`);
        return;
      }
      mkdirSync(dir, { recursive: true });
      const server = await startLocalPostgres(dir);
      writeFileSync(urlFile, `${server.url}\n`);
      // stdout: the URL only (STORE=$(…)); the rest is for the person.
      console.log(server.url);
      console.error(
        `a PostgreSQL for trying the fleet runs in ${dir} (no password, fsync off: not for production); stop it with: npx codex-harness try-postgres --stop`,
      );
    });
}
