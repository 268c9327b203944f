// Answers codex's command and file-change approvals at the terminal (or approves all with --yes).
import type { AppServerClient } from "../app-server/client.js";
import type { Terminal } from "./terminal.js";

/** Installs approval handlers that ask the person at the terminal; `autoApprove` answers yes. */
export function answerApprovalsAtTerminal(
  client: AppServerClient,
  terminal: Terminal,
  autoApprove: boolean,
): void {
  const ask = async (question: string): Promise<boolean> => {
    if (!autoApprove) return terminal.confirm(question);
    terminal.line(`${question} ${terminal.style("green", "yes (--yes)")}`);
    return true;
  };
  client.setRequestHandler("item/commandExecution/requestApproval", async (params) => {
    const why = params.reason ? ` — ${params.reason}` : "";
    const approved = await ask(
      `${terminal.style("yellow", "?")} Run ${terminal.style("bold", params.command ?? "this command")} outside the sandbox${why}?`,
    );
    return { decision: approved ? "accept" : "decline" };
  });
  client.setRequestHandler("item/fileChange/requestApproval", async (params) => {
    const why = params.reason ? ` — ${params.reason}` : "";
    const approved = await ask(
      `${terminal.style("yellow", "?")} Apply the file change above${why}?`,
    );
    return { decision: approved ? "accept" : "decline" };
  });
}
