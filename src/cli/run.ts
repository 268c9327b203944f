// `codex-harness run "<prompt>"`: one turn against the user's own Codex configuration.

import path from "node:path";
import { requireLogin } from "../app-server/login.js";
import type { RemoteOptions } from "../app-server/remote.js";
import { composeApprovals } from "../approvals/policies.js";
import { Codex } from "../codex.js";
import { CodexHarnessError } from "../errors.js";
import type { Approvals } from "../events/approval-types.js";
import type { ExtendedThreadEvent } from "../events/types.js";
import { NOT_A_GIT_REPO_MESSAGE } from "../turns/git-check.js";
import type { ApprovalMode, SandboxMode } from "../turns/options.js";
import { codexTelemetry } from "./codex-telemetry.js";
import { watchCtrlC } from "./ctrl-c.js";
import { EventRenderer } from "./render.js";
import type { Terminal } from "./terminal.js";
import { terminalApprovals } from "./terminal-approvals.js";

export interface RunCommandOptions {
  json?: boolean;
  yes?: boolean;
  model?: string;
  sandbox?: SandboxMode;
  approvalPolicy?: ApprovalMode;
  cd?: string;
  resume?: string;
  codexPath?: string;
  transport?: "app-server" | "exec";
  /** CODEX_HOME for codex (default: codex's own, e.g. `$CODEX_HOME` or `~/.codex`). */
  codexHome?: string;
  /** Run outside a git repository too (as `codex exec --skip-git-repo-check`). */
  skipGitRepoCheck?: boolean;
  /**
   * Give up (interrupt the turn, exit 1 with the reason) once codex has been retrying its model
   * for this many seconds with nothing coming back (default 120).
   */
  giveUpAfter?: number;
  /** Decides before the person is asked (e.g. a target's spaces' permissions). */
  policy?: Approvals;
  /** Asks the person (default: at this terminal; e.g. a channels runtime with `--channels`). */
  asker?: Approvals;
  /** A codex app-server running elsewhere, instead of starting one. */
  remote?: RemoteOptions;
  /** Where the person logs in, when not codex's own home (a session home links its auth.json). */
  loginHome?: string;
  /** Show codex's harmless warnings in full (default: folded into one line). */
  verbose?: boolean;
  /** Called with the thread's id once codex has started (or resumed) it. */
  onThread?: (threadId: string) => Promise<void> | void;
}

/** How long `run` lets codex retry its model before giving up, by default. */
export const DEFAULT_GIVE_UP_AFTER_S = 120;

/**
 * Runs one turn; prints it for a person, or as JSONL with `json`. Questions to the person go to
 * `prompts` (with `json`, a terminal on stderr, so stdout stays data only). Resolves with the exit code.
 */
export async function runPrompt(
  prompt: string,
  terminal: Terminal,
  options: RunCommandOptions,
  prompts: Terminal = terminal,
): Promise<number> {
  const codex = new Codex({
    // `--json` prints the extended events: deltas, approvals, ids.
    events: "extended",
    approvals: composeApprovals(
      options.policy,
      options.asker ?? terminalApprovals(prompts, options.yes === true),
    ),
    ...(options.codexPath ? { codexPathOverride: options.codexPath } : {}),
    ...(options.transport ? { transport: options.transport } : {}),
    ...(options.codexHome ? { codexHome: options.codexHome } : {}),
    ...(options.remote ? { remote: options.remote } : {}),
    // As `codex exec` reads it: app-server logs in with it for this process only.
    ...(process.env.CODEX_API_KEY ? { apiKey: process.env.CODEX_API_KEY } : {}),
    // OpenTelemetry, when the CLI started it: content opt-in, codex's own export.
    ...codexTelemetry(process.env, { remote: options.remote !== undefined }),
  });
  try {
    // Seconds, not minutes of retries: a provider that needs a login nobody gave fails here.
    if (options.transport !== "exec") {
      await requireLogin(await codex.appServer.client(), undefined, {
        ...(options.loginHome ? { loginHome: options.loginHome } : {}),
      });
    }
    const threadOptions = {
      workingDirectory: turnCwd(options),
      // Like codex exec: a working directory outside a git repository needs the flag.
      skipGitRepoCheck: options.skipGitRepoCheck === true,
      ...(options.model ? { model: options.model } : {}),
      ...(options.sandbox ? { sandboxMode: options.sandbox } : {}),
      ...(options.approvalPolicy ? { approvalPolicy: options.approvalPolicy } : {}),
      // The terminal's approvals (and a target's permissions) decide, whatever codex's config
      // says: its auto review would never ask them. (exec never asks anyone.)
      ...(options.transport === "exec" ? {} : { approvalsReviewer: "user" as const }),
    };
    const thread = options.resume
      ? codex.resumeThread(options.resume, threadOptions)
      : codex.startThread(threadOptions);
    const stalled = new RetryWatch((options.giveUpAfter ?? DEFAULT_GIVE_UP_AFTER_S) * 1000);
    const ctrlC = watchCtrlC();
    const signal = AbortSignal.any([stalled.signal, ctrlC.signal]);
    const renderer = new EventRenderer(terminal, { verbose: options.verbose === true });
    let failed = false;
    try {
      const { events } = await thread.runStreamed(prompt, { signal });
      for await (const event of events) {
        stalled.see(event);
        if (event.type === "thread.started") await options.onThread?.(event.thread_id);
        if (options.json) terminal.line(JSON.stringify(event));
        else renderer.render(event);
        if (event.type === "turn.failed") failed = true;
      }
    } catch (error) {
      if (!signal.aborted) throw error;
      terminal.endLine();
      const reason = (signal.reason as Error).message;
      if (ctrlC.pressed && options.json) {
        // The stream's last event says how it ended, as for any failed turn.
        terminal.line(JSON.stringify({ type: "turn.failed", error: { message: reason } }));
      }
      // The reason goes to stderr: stdout stays data only under --json.
      console.error(ctrlC.pressed ? "interrupted: codex stopped the turn" : `error: ${reason}`);
      return ctrlC.pressed ? 130 : 1;
    } finally {
      stalled.stop();
      ctrlC.dispose();
    }
    return failed ? 1 : 0;
  } catch (error) {
    throw error instanceof CodexHarnessError && error.code === "not_a_git_repo"
      ? new CodexHarnessError(
          error.code,
          `${NOT_A_GIT_REPO_MESSAGE} ${turnCwd(options)} is not inside a git repository: run in one (-C DIR), or pass --skip-git-repo-check.`,
          { cause: error },
        )
      : error;
  } finally {
    terminal.close();
    await codex.close();
  }
}

/**
 * Aborts its signal when codex has reported retries (an `error` with `will_retry`) for `ms` with
 * no progress since: no network, no login, a model that never answers.
 */
class RetryWatch {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private lastRetry = "";

  constructor(private readonly ms: number) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  see(event: ExtendedThreadEvent): void {
    if (event.type === "error" && event.will_retry) {
      this.lastRetry = event.message;
      this.timer ??= setTimeout(() => {
        this.controller.abort(
          new CodexHarnessError(
            "model_unreachable",
            `gave up after ${this.ms / 1000} s of codex retrying its model (${this.lastRetry}). Check the network and the login (\`codex-harness doctor\`), or wait longer with --give-up-after.`,
          ),
        );
      }, this.ms);
    } else if (event.type !== "notification" && event.type !== "error") {
      this.stop();
    }
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** The working directory of the turn: `--cd`, else the current one. */
function turnCwd(options: RunCommandOptions): string {
  return path.resolve(options.cd ?? process.cwd());
}
