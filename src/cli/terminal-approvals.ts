// Approvals answered by the person at the terminal (or all approved with --yes).
import type { Approvals } from "../events/approval-types.js";
import type { Terminal } from "./terminal.js";

/** Handlers that ask at the terminal for commands and file changes; `autoApprove` answers yes. */
export function terminalApprovals(terminal: Terminal, autoApprove: boolean): Approvals {
  const ask = async (question: string): Promise<boolean> => {
    if (!autoApprove) return terminal.confirm(question);
    terminal.line(`${question} ${terminal.style("green", "yes (--yes)")}`);
    return true;
  };
  return {
    commandExecution: async (request) => {
      const why = request.reason ? ` — ${request.reason}` : "";
      const approved = await ask(
        `${terminal.style("yellow", "?")} Run ${terminal.style("bold", request.command || "this command")} outside the sandbox${why}?`,
      );
      return approved ? "accept" : "decline";
    },
    fileChange: async (request) => {
      const why = request.reason ? ` — ${request.reason}` : "";
      const approved = await ask(
        `${terminal.style("yellow", "?")} Apply the file change above${why}?`,
      );
      return approved ? "accept" : "decline";
    },
  };
}
