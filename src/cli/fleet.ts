// `codex-harness worker`: run the fleet's turns on this machine until stopped.
import type { Command } from "commander";
import { existingFolder, wholeNumber } from "./arguments.js";

/** Adds `worker` to the program. */
export function addFleetCommands(program: Command): void {
  program
    .command("worker")
    .description(
      "Run turns from the fleet's PostgreSQL queue (submitTurn / codex-harness submit) on this machine",
    )
    .requiredOption("--store <url>", "the fleet's PostgreSQL URL (postgres://user:pass@host/db)")
    .option(
      "--project <dir>",
      "this machine's copy of the project (asp-targets.toml)",
      existingFolder,
      ".",
    )
    .option("--concurrency <n>", "turns run at once", wholeNumber(1), 1)
    .option("--name <name>", "the worker's name in runs and events (default host:pid)")
    .option(
      "--lease-ms <ms>",
      "how long this worker may go silent before its turns go to other workers",
      wholeNumber(1000),
      30_000,
    )
    .action(
      async (flags: {
        store: string;
        project: string;
        concurrency: number;
        name?: string;
        leaseMs: number;
      }) => {
        // Loaded here: only the worker needs pg and graphile-worker.
        const { startFleetWorker } = await import("../fleet/worker.js");
        const worker = await startFleetWorker({
          store: flags.store,
          project: flags.project,
          concurrency: flags.concurrency,
          leaseMs: flags.leaseMs,
          ...(flags.name ? { name: flags.name } : {}),
          onLog: (line) => console.error(line),
        });
        console.error(`worker ${worker.name} is taking turns (concurrency ${flags.concurrency}).`);
        const stop = () => void worker.stop();
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
        try {
          await worker.done;
        } catch (error) {
          console.error(`worker ${worker.name} stopped: ${(error as Error).message}`);
          process.exitCode = 1;
        } finally {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
        }
      },
    );
}
