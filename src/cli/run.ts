// `codex-harness run "<prompt>"`: one turn against the user's own Codex configuration.
import { Codex } from "../codex.js";
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
}

/** Runs one turn; prints it for a person, or as JSONL with `json`. Resolves with the exit code. */
export async function runPrompt(
  prompt: string,
  terminal: Terminal,
  options: RunCommandOptions,
): Promise<number> {
  const codex = new Codex({
    approvals: terminalApprovals(terminal, options.yes === true),
    ...(options.codexPath ? { codexPathOverride: options.codexPath } : {}),
    ...(options.transport ? { transport: options.transport } : {}),
    ...(options.codexHome ? { codexHome: options.codexHome } : {}),
  });
  try {
    const threadOptions = {
      workingDirectory: options.cd ?? process.cwd(),
      skipGitRepoCheck: true,
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
  } finally {
    terminal.close();
    await codex.close();
  }
}
