// `codex-harness worker`: run the fleet's turns on this machine until stopped.
import type { Command } from "commander";
import { existingFolder, wholeNumber } from "./arguments.js";
import { foldedWarnings, harmlessWarning } from "./render.js";

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
    .option(
      "--warm-sessions <n>",
      "sessions whose codex stays open between their turns here (0: none)",
      wholeNumber(0),
      4,
    )
    .option("--name <name>", "the worker's name in runs and events (default host:pid)")
    .option(
      "--channels <url>",
      "ask people through this channels runtime (token: $CODEX_HARNESS_TOKEN): approvals reach the inbox from every worker",
    )
    .option(
      "--lease-ms <ms>",
      "how long this worker may go silent before its turns go to other workers",
      wholeNumber(1000),
      30_000,
    )
    .option(
      "--drain-ms <ms>",
      "on SIGTERM or Ctrl-C, how long running turns may finish before they are stopped at codex and go back to the queue",
      wholeNumber(0),
      30_000,
    )
    .action(
      async (flags: {
        store: string;
        project: string;
        concurrency: number;
        warmSessions: number;
        name?: string;
        leaseMs: number;
        drainMs: number;
        channels?: string;
      }) => {
        // Loaded here: only the worker needs pg and graphile-worker.
        const { startFleetWorker } = await import("../fleet/worker.js");
        const { codexTelemetry } = await import("./codex-telemetry.js");
        let approvals: import("../events/approval-types.js").Approvals | undefined;
        if (flags.channels !== undefined) {
          const token = process.env.CODEX_HARNESS_TOKEN;
          if (!token) {
            console.error(
              "error: --channels needs the runtime's token in CODEX_HARNESS_TOKEN (see its <data-dir>/token).",
            );
            process.exitCode = 1;
            return;
          }
          const { channelsApprovals } = await import("../channels/bridge.js");
          approvals = channelsApprovals({
            url: flags.channels,
            token,
            source: "codex-harness worker",
          });
        }
        const worker = await startFleetWorker({
          store: flags.store,
          project: flags.project,
          concurrency: flags.concurrency,
          warmSessions: flags.warmSessions,
          leaseMs: flags.leaseMs,
          drainMs: flags.drainMs,
          ...(flags.name ? { name: flags.name } : {}),
          ...(approvals ? { approvals } : {}),
          // Content recording and codex's own export, when the CLI's telemetry is on.
          codex: codexTelemetry(process.env),
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

interface SubmitFlags {
  store: string;
  outageTimeout: number;
  target: string;
  session: string;
  runId?: string;
  project?: string;
  model?: string;
  cd?: string;
  startedBy?: string;
  json?: boolean;
}

/** Adds `submit` to the program. */
export function addSubmitCommand(program: Command): void {
  program
    .command("submit")
    .description(
      "Queue one turn for the fleet's workers and follow it: streamed like run, exit 0 with the final answer",
    )
    .argument("<prompt>", "what to ask")
    .requiredOption("--store <url>", "the fleet's PostgreSQL URL (postgres://user:pass@host/db)")
    .requiredOption("--target <name>", "the target of the workers' project (asp-targets.toml)")
    .requiredOption("--session <id>", "the session the turn belongs to (its turns run in order)")
    .option("--run-id <id>", "this turn's id: submitting it again follows the first (default: new)")
    .option("--project <dir>", "check --target against this copy of the project", existingFolder)
    .option("-m, --model <model>", "model to use")
    .option("-C, --cd <dir>", "the folder the agent works in, on the worker (default: its project)")
    .option(
      "--started-by <id>",
      "the person the turn runs for (their id in the channels runtime): a not_self routing rule keeps them from answering",
    )
    .option("--json", "print the run's events as JSONL")
    .option(
      "--outage-timeout <s>",
      "how long to wait for an unreachable database before giving up, queueing the run or following it",
      wholeNumber(1),
      300,
    )
    .action(async (prompt: string, flags: SubmitFlags) => {
      if (flags.project) {
        const { readTargets } = await import("../spaces/targets.js");
        const { targets } = readTargets(flags.project);
        if (!(flags.target in targets)) {
          console.error(
            `error: --target ${flags.target} is not in ${flags.project}/asp-targets.toml; use one of ${Object.keys(targets).join(", ")}.`,
          );
          process.exitCode = 1;
          return;
        }
      }
      const { submitTurn } = await import("../fleet/submit.js");
      const { outageReason } = await import("../fleet/outage.js");
      const run = await submitTurn({
        store: flags.store,
        externalSessionId: flags.session,
        externalRunId: flags.runId ?? globalThis.crypto.randomUUID(),
        target: flags.target,
        prompt,
        ...(flags.model ? { model: flags.model } : {}),
        ...(flags.cd ? { cwd: flags.cd } : {}),
        ...(flags.startedBy ? { startedBy: flags.startedBy } : {}),
        outageGiveUpMs: flags.outageTimeout * 1000,
        onOutage: (state, error) =>
          console.error(
            state === "waiting"
              ? `waiting for the database (${outageReason(error)})…`
              : "the database is back.",
          ),
      });
      // Ctrl-C stops following, never the run: say how to cancel it.
      const following = new AbortController();
      const interrupted = () => following.abort(new Error("interrupted"));
      process.once("SIGINT", interrupted);
      try {
        if (!run.created) console.error(`run ${run.runId} was submitted before: following it.`);
        else console.error(`run ${run.runId} queued (session ${flags.session}).`);
        const folded = new Set<string>();
        for await (const recorded of run.events({ signal: following.signal })) {
          // `seq` is the run's own (across retries): resume a follower with it.
          if (flags.json) console.log(JSON.stringify(recorded));
          else renderFleetEvent(recorded.event as unknown as { type: string }, folded);
        }
        if (folded.size > 0) console.error(foldedWarnings(folded, "--json"));
        const result = await run.result();
        if (!flags.json && result.finalOutput) console.log(result.finalOutput);
        if (!result.success) {
          console.error(`error: the run failed: ${result.error?.message ?? "no reason given"}`);
          process.exitCode = 1;
        }
      } catch (error) {
        if (!following.signal.aborted) throw error;
        console.error(
          `stopped following run ${run.runId}; it goes on in the fleet. Cancel it with: codex-harness cancel ${run.runId} --store <url>`,
        );
        process.exitCode = 130;
      } finally {
        process.off("SIGINT", interrupted);
        await run.close();
      }
    });
}

/** Adds `cancel` to the program. */
export function addCancelCommand(program: Command): void {
  program
    .command("cancel")
    .description(
      "Cancel a fleet run: a queued one never starts, a running one is interrupted at its worker",
    )
    .argument("<run-id>", "the run to cancel (submit prints it)")
    // Checked after the run id (a required option would be complained about first).
    .option("--store <url>", "the fleet's PostgreSQL URL (postgres://user:pass@host/db); required")
    .option("--timeout <s>", "how long to wait for the worker to record it", wholeNumber(1), 60)
    .action(async (runId: string, flags: { store?: string; timeout: number }) => {
      if (flags.store === undefined) {
        console.error("error: cancel needs --store <url>: the fleet's PostgreSQL URL.");
        process.exitCode = 1;
        return;
      }
      const { followFleetRun } = await import("../fleet/submit.js");
      const run = await followFleetRun(flags.store, runId);
      try {
        const outcome = await run.cancel();
        if (outcome.alreadyEnded) {
          console.error(`run ${runId} had already ended: ${outcome.status}.`);
          process.exitCode = outcome.status === "cancelled" ? 0 : 1;
          return;
        }
        if (outcome.status === "cancelling") {
          console.error(`run ${runId} is running: its worker was asked to stop it…`);
        }
        const waiting = AbortSignal.timeout(flags.timeout * 1000);
        let result: import("../session/agent-events.js").RunResult;
        try {
          result = await run.result({ signal: waiting });
        } catch (error) {
          if (!waiting.aborted) throw error;
          console.error(
            `run ${runId} is not recorded cancelled yet (waited ${flags.timeout} s): its worker is still asked to stop it, and records it when it does. Run this again to see.`,
          );
          process.exitCode = 1;
          return;
        }
        const cancelled = (result.error?.details as { cancelled?: boolean } | undefined)?.cancelled;
        console.error(
          cancelled
            ? `run ${runId} cancelled.`
            : `run ${runId} ended before it could be stopped (${result.success ? "completed" : "failed"}).`,
        );
        if (!cancelled) process.exitCode = 1;
      } finally {
        await run.close();
      }
    });
}

/**
 * What a person follows on stderr while the answer goes to stdout at the end. codex's harmless
 * warnings go to `folded` (said in one line at the end, as `run` does).
 */
function renderFleetEvent(
  event: { type: string; [key: string]: unknown },
  folded: Set<string>,
): void {
  const worker = typeof event.worker === "string" ? ` [${event.worker}]` : "";
  if (event.type === "state" && event.state === "running") console.error(`running${worker}…`);
  else if (event.type === "tool_call")
    console.error(`${toolCallLine(event as { toolName?: unknown; input?: unknown })}${worker}`);
  else if (event.type === "log" && (event.fields as { code?: unknown })?.code === "approval") {
    // Who or what decided a request: "✓ approved by Alice, Bob in the channels runtime".
    console.error(`  ${event.level === "info" ? "✓" : "✗"} ${String(event.message)}`);
  } else if (event.type === "log") {
    const harmless = harmlessWarning(String(event.message));
    if (harmless !== undefined) folded.add(harmless);
    else console.error(`${String(event.level)}: ${String(event.message)}`);
  }
}

/** A tool call as a person reads it: the command itself, the files changed, the tool's name. */
function toolCallLine(event: { toolName?: unknown; input?: unknown }): string {
  const input = (event.input ?? {}) as {
    command?: unknown;
    changes?: { path?: unknown; kind?: unknown }[];
    query?: unknown;
    path?: unknown;
  };
  switch (event.toolName) {
    case "command_execution":
      return `$ ${String(input.command)}`;
    case "file_change":
      return `✎ ${(input.changes ?? []).map((change) => `${String(change.kind)} ${String(change.path)}`).join(", ")}`;
    case "web_search":
      return `⌕ ${String(input.query)}`;
    case "image_view":
      return `▣ ${String(input.path)}`;
    default:
      return `⚙ ${String(event.toolName)}`;
  }
}
