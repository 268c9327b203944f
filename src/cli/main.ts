// The `codex-harness` command line: thin commands over the library.
import { Command, Option } from "commander";
import { installTarget, installTargets } from "../spaces/install.js";
import { addAcpCommand } from "./acp.js";
import {
  codexPath,
  existingFolder,
  folderProblem,
  httpUrl,
  portNumber,
  remoteFolder,
  wholeNumber,
} from "./arguments.js";
import { addAuditCommand } from "./audit.js";
import { addChannelsCommands } from "./channels.js";
import { channelsAsker } from "./channels-asker.js";
import { addCancelCommand, addFleetCommands, addSubmitCommand } from "./fleet.js";
import { addHostCommand } from "./host.js";
import { stopWithLauncher } from "./launcher-watch.js";
import { addLoginCommands } from "./login.js";
import { packageVersion, pinnedCodexVersion } from "./package-version.js";
import { addPeopleCommands } from "./people.js";
import { addRemoteFlags, type RemoteFlags, remoteOf } from "./remote-flags.js";
import type { ReplayCommandOptions } from "./replay.js";
import { DEFAULT_GIVE_UP_AFTER_S, runPrompt } from "./run.js";
import {
  detectHarnesses,
  formatHarnesses,
  type RunTargetOptions,
  runTarget,
} from "./run-target.js";
import { addScriptedModelCommand } from "./scripted-model.js";
import { CliTelemetry } from "./telemetry.js";
import { Terminal } from "./terminal.js";
import { addThreadsCommand } from "./threads.js";
import { addTryPostgresCommand } from "./try-postgres.js";

/**
 * Builds the CLI program (exported for tests). With `telemetry`, a command that runs turns or
 * serves starts it first (when the OTEL_* variables ask for it).
 */
export function buildProgram(telemetry?: CliTelemetry): Command {
  const program = new Command("codex-harness")
    .description("Drive the OpenAI Codex agent from programs.")
    .version(`codex-harness ${packageVersion()} (codex ${pinnedCodexVersion()})`);
  if (telemetry) {
    program.hook("preAction", async (_program, action) => {
      // The top-level command (`serve`, not a subcommand of it).
      let command = action;
      while (command.parent && command.parent !== program) command = command.parent;
      await telemetry.start(command.name());
    });
  }

  program
    .command("demo")
    .description(
      "Run a short scripted session on the real codex app-server, offline: streamed reply, an approval, a file change",
    )
    .option("-y, --yes", "approve every request without asking")
    .option("--keep", "keep the temp project folder")
    .option("--inbox", "answer codex's requests in a web inbox (its URL is printed), not here")
    .option("--port <port>", "with --inbox: the inbox's port (default: a free one)", portNumber)
    .option("--codex-path <path>", "codex executable (default: the bundled one)", codexPath)
    .action(
      async (options: {
        yes?: boolean;
        keep?: boolean;
        inbox?: boolean;
        port?: number;
        codexPath?: string;
      }) => {
        // Each command loads its own code when it runs: the program starts without it.
        const { runDemo } = await import("./demo.js");
        process.exitCode = await runDemo(new Terminal(process.stdout, process.stdin), {
          yes: options.yes === true,
          keep: options.keep === true,
          inbox: options.inbox === true,
          ...(options.port !== undefined ? { port: options.port } : {}),
          codexPathOverride: options.codexPath,
        });
      },
    );

  addRemoteFlags(
    program
      .command("run")
      .description(
        "Run one turn with your own Codex configuration and show it; with --target, in a target's session home (no prompt: the interactive codex CLI)",
      )
      .argument("[prompt]", "what to ask (required without --target)")
      .option("--json", "print the events as JSONL")
      .option("--verbose", "show codex's harmless warnings in full (default: folded into one line)")
      .option("-y, --yes", "approve every request without asking")
      .option("-m, --model <model>", "model to use")
      .addOption(
        new Option("--sandbox <mode>", "what codex's commands may touch").choices([
          "read-only",
          "workspace-write",
          "danger-full-access",
        ]),
      )
      .addOption(
        new Option(
          "--approval-policy <policy>",
          "when codex asks (the pinned codex refuses untrusted and on-failure)",
        ).choices(["on-request", "never"]),
      )
      .option(
        "-C, --cd <dir>",
        "working directory (default: the current one, or the --project; with --remote, an absolute path on that machine)",
      )
      .option("--resume <threadId>", "continue a saved thread")
      .option(
        "--skip-git-repo-check",
        "run even when the working directory is not in a git repository",
      )
      .addOption(
        new Option("--transport <kind>", "how codex is driven (default app-server)").choices([
          "app-server",
          "exec",
        ]),
      )
      .option(
        "--give-up-after <seconds>",
        "stop when codex has retried its model this long with nothing back",
        wholeNumber(1),
        DEFAULT_GIVE_UP_AFTER_S,
      )
      .option("--codex-path <path>", "codex executable (default: the bundled one)", codexPath)
      .option("--target <name>", "an asp-targets.toml target: run in its session home")
      .option("--project <dir>", "with --target: project folder holding asp-targets.toml", ".")
      .option(
        "--session <id>",
        "with --target: the session to continue (its codex thread is remembered)",
        "default",
      )
      .option("--new-session", "with --target: start the session over with a new thread")
      .option("--asp-home <dir>", "with --target: agent-spaces home (default: <project>/.asp)")
      .option("--dry-run", "with --target: print what would run, run nothing")
      .option("--print-command", "with --target: print the command line, run nothing")
      .option(
        "--yolo",
        "with --target: no approvals and no sandbox (--dangerously-bypass-approvals-and-sandbox)",
      )
      .option(
        "--channels <url>",
        "ask a person through this channels runtime (inbox, chat) instead of here; token: --channels-token-file or $CODEX_HARNESS_TOKEN",
        httpUrl,
      )
      .option("--channels-token-file <file>", "with --channels: the runtime's <data-dir>/token")
      .option(
        "--started-by <id>",
        "with --channels: the person the turn runs for (a routing rule's not_self excludes them)",
      ),
  ).action(async (prompt: string | undefined, options: Partial<RunTargetOptions> & RunFlags) => {
    const remote = remoteOf(options, [
      ["--codex-path", options.codexPath],
      ["--transport exec", options.transport === "exec" || undefined],
      ["--target (spaces install into a codex home here)", options.target],
    ]);
    // A path on the remote machine is for its codex to check (with its own error), not this disk.
    if (options.cd !== undefined) {
      const refused = remote ? remoteFolder(options.cd) : folderProblem(options.cd);
      if (refused) {
        console.error(
          `error: option '-C, --cd <dir>' argument '${options.cd}' is invalid. ${refused}`,
        );
        process.exitCode = 1;
        return;
      }
    }
    if (options.startedBy !== undefined && options.channels === undefined) {
      console.error("error: --started-by needs --channels (the runtime that enforces the rules).");
      process.exitCode = 1;
      return;
    }
    const asker =
      options.channels === undefined
        ? undefined
        : await channelsAsker(
            options.channels,
            options.channelsTokenFile,
            "codex-harness run",
            options.startedBy,
          );
    const terminal = new Terminal(process.stdout, process.stdin);
    // With --json, stdout is data only: questions to the person go to stderr.
    const prompts = options.json ? new Terminal(process.stderr, process.stdin) : terminal;
    if (options.target !== undefined) {
      process.exitCode = await runTarget(
        prompt,
        terminal,
        { ...options, target: options.target, ...(asker ? { asker } : {}) },
        prompts,
      );
      return;
    }
    if (prompt === undefined) {
      terminal.close();
      console.error(
        "error: run needs a prompt (or --target, whose session may continue without one).",
      );
      process.exitCode = 1;
      return;
    }
    process.exitCode = await runPrompt(
      prompt,
      terminal,
      { ...options, ...(remote ? { remote } : {}), ...(asker ? { asker } : {}) },
      prompts,
    );
  });

  program
    .command("harnesses")
    .description("Show the detected harness: codex, its version, and whether app-server answers")
    .option("--codex-path <path>", "codex executable (default: the bundled one)", codexPath)
    .option("--timeout <ms>", "how long app-server may take to answer", wholeNumber(1), 20_000)
    .option("--json", "print the report as JSON")
    .action(async (options: { codexPath?: string; timeout: number; json?: boolean }) => {
      const reports = await detectHarnesses({
        codexPath: options.codexPath,
        timeoutMs: options.timeout,
      });
      console.log(options.json ? JSON.stringify(reports, null, 2) : formatHarnesses(reports));
      if (reports.some((report) => !report.ok)) process.exitCode = 1;
    });

  addChannelsCommands(program);
  addPeopleCommands(program);
  addAuditCommand(program);
  addHostCommand(program);
  addScriptedModelCommand(program);
  addAcpCommand(program);
  addLoginCommands(program);
  addThreadsCommand(program);
  addFleetCommands(program);
  addSubmitCommand(program);
  addCancelCommand(program);
  addTryPostgresCommand(program);

  program
    .command("replay")
    .description("Show a protocol capture (the capture option's JSONL) the way `run` shows a turn")
    .argument("<file>", "capture file")
    .option("--json", "print the extended events as JSONL")
    .action(async (file: string, options: ReplayCommandOptions) => {
      const { replayCaptureFile } = await import("./replay.js");
      process.exitCode = await replayCaptureFile(
        file,
        new Terminal(process.stdout, process.stdin),
        options,
      );
    });

  addRemoteFlags(
    program
      .command("doctor")
      .description(
        "Check the codex binary, its version, and that `codex app-server` answers initialize",
      )
      .option(
        "--codex-path <path>",
        "codex executable to check (default: the bundled one)",
        codexPath,
      )
      .option(
        "--codex-home <dir>",
        "CODEX_HOME to start app-server with (default: codex's own)",
        existingFolder,
      )
      .option(
        "--target <name>",
        "check an asp-targets.toml target's codex home instead (e.g. offline: the scripted model)",
      )
      .option("--project <dir>", "with --target: project folder holding asp-targets.toml", ".")
      .option("--timeout <ms>", "how long app-server may take to answer", wholeNumber(1), 20_000)
      .option("--json", "print the checks as JSON"),
  ).action(
    async (
      options: {
        codexPath?: string;
        codexHome?: string;
        target?: string;
        project: string;
        timeout: number;
        json?: boolean;
      } & RemoteFlags,
    ) => {
      const remote = remoteOf(options, [
        ["--codex-path", options.codexPath],
        ["--codex-home", options.codexHome],
        ["--target", options.target],
      ]);
      if (options.target !== undefined && options.codexHome !== undefined) {
        console.error(
          "error: --target and --codex-home both say which codex home to check: give one.",
        );
        process.exitCode = 1;
        return;
      }
      const { formatDoctorReport, runDoctor } = await import("./doctor.js");
      const codexHome =
        options.target === undefined
          ? options.codexHome
          : (
              await installTarget(options.project, options.target, {
                onWarning: (message) => console.error(`warning: ${message}`),
              })
            ).homeDir;
      const checks = await runDoctor({
        codexPathOverride: options.codexPath,
        codexHome,
        timeoutMs: options.timeout,
        remote,
      });
      console.log(options.json ? JSON.stringify(checks, null, 2) : formatDoctorReport(checks));
      if (checks.some((check) => !check.ok)) process.exitCode = 1;
    },
  );

  program
    .command("install")
    .description(
      "Write each target's codex home (asp_modules/<target>/codex/codex.home) from asp-targets.toml",
    )
    .option("--targets <names>", "comma-separated targets to install (default: all)")
    .option("--project <dir>", "project folder holding asp-targets.toml", ".")
    .action(async (options: { targets?: string; project: string }) => {
      const names = options.targets
        ?.split(",")
        .map((name) => name.trim())
        .filter((name) => name !== "");
      try {
        const results = await installTargets(options.project, names, {
          onWarning: (message) => console.error(`warning: ${message}`),
        });
        for (const result of results) {
          console.log(
            `installed ${result.target}: ${result.spaces.length} spaces, ${result.skills.length} skills, ` +
              `${result.prompts.length} prompts, ${result.mcpServers.length} MCP servers -> ${result.homeDir}`,
          );
        }
      } catch (error) {
        console.error(`error: install failed: ${(error as Error).message}`);
        process.exitCode = 1;
      }
    });

  return program;
}

/** Runs the CLI with `argv` (default: the process's arguments). */
export async function main(argv: string[] = process.argv): Promise<void> {
  // A reader that went away (`| head`) ends the command quietly, not with a stack trace.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
  // Run through npx: stopped with it (see launcher-watch.ts).
  const unwatch = stopWithLauncher(process.env);
  // OpenTelemetry from OTEL_* (stderr for what it says: stdout stays the command's data).
  const telemetry = new CliTelemetry(process.env, {
    version: packageVersion(),
    warn: (line) => console.error(line),
  });
  try {
    await buildProgram(telemetry).parseAsync(argv);
  } finally {
    unwatch();
    await telemetry.shutdown();
  }
}

/** What `run` adds to the target options: where a person is asked. */
interface RunFlags extends RemoteFlags {
  channels?: string;
  channelsTokenFile?: string;
  startedBy?: string;
}
