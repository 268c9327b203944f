// `codex-harness run "<prompt>"`: one turn against the user's own Codex configuration.
import path from "node:path";
import { Codex } from "../codex.js";
import { CodexHarnessError } from "../errors.js";
import { NOT_A_GIT_REPO_MESSAGE } from "../turns/git-check.js";
import type { ApprovalMode, SandboxMode } from "../turns/options.js";
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
}

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
    approvals: terminalApprovals(prompts, options.yes === true),
    ...(options.codexPath ? { codexPathOverride: options.codexPath } : {}),
    ...(options.transport ? { transport: options.transport } : {}),
    ...(options.codexHome ? { codexHome: options.codexHome } : {}),
  });
  try {
    const threadOptions = {
      workingDirectory: turnCwd(options),
      // Like codex exec: a working directory outside a git repository needs the flag.
      skipGitRepoCheck: options.skipGitRepoCheck === true,
      ...(options.model ? { model: options.model } : {}),
      ...(options.sandbox ? { sandboxMode: options.sandbox } : {}),
      ...(options.approvalPolicy ? { approvalPolicy: options.approvalPolicy } : {}),
    };
    const thread = options.resume
      ? codex.resumeThread(options.resume, threadOptions)
      : codex.startThread(threadOptions);
    const { events } = await thread.runStreamed(prompt);
    const renderer = new EventRenderer(terminal);
    let failed = false;
    for await (const event of events) {
      if (options.json) terminal.line(JSON.stringify(event));
      else renderer.render(event);
      if (event.type === "turn.failed") failed = true;
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

/** The working directory of the turn: `--cd`, else the current one. */
function turnCwd(options: RunCommandOptions): string {
  return path.resolve(options.cd ?? process.cwd());
}
