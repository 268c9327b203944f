// The `codex-harness` command line: thin commands over the library.
import { Command } from "commander";
import { formatDoctorReport, pinnedCodexVersion, runDoctor } from "./doctor.js";

/** Builds the CLI program (exported for tests). */
export function buildProgram(): Command {
  const program = new Command("codex-harness")
    .description("Drive the OpenAI Codex agent from programs.")
    .version(`codex-harness (codex ${pinnedCodexVersion()})`);

  program
    .command("doctor")
    .description(
      "Check the codex binary, its version, and that `codex app-server` answers initialize",
    )
    .option("--codex-path <path>", "codex executable to check (default: the bundled one)")
    .option("--codex-home <dir>", "CODEX_HOME to start app-server with (default: codex's own)")
    .option("--timeout <ms>", "how long app-server may take to answer", "20000")
    .option("--json", "print the checks as JSON")
    .action(
      async (options: {
        codexPath?: string;
        codexHome?: string;
        timeout: string;
        json?: boolean;
      }) => {
        const checks = await runDoctor({
          codexPathOverride: options.codexPath,
          codexHome: options.codexHome,
          timeoutMs: Number(options.timeout),
        });
        console.log(options.json ? JSON.stringify(checks, null, 2) : formatDoctorReport(checks));
        if (checks.some((check) => !check.ok)) process.exitCode = 1;
      },
    );

  return program;
}

/** Runs the CLI with `argv` (default: the process's arguments). */
export async function main(argv: string[] = process.argv): Promise<void> {
  await buildProgram().parseAsync(argv);
}
