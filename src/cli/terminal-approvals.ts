// Approvals answered by the person at the terminal (or all approved with --yes).
import type { Approvals } from "../events/approval-types.js";
import type { Terminal } from "./terminal.js";

/**
 * The terminal way to answer: handlers that ask the person at `terminal` — in the process running
 * the turn — about commands and file changes (y/N) and the agent's questions (an option's number,
 * or free text). `autoApprove` answers yes to commands and file changes without asking (questions
 * still ask). End of input declines.
 */
export function terminalApprovals(terminal: Terminal, autoApprove = false): Approvals {
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
    userInput: async (request) => {
      const answers: Record<string, string[]> = {};
      for (const question of request.questions) {
        const options = question.options ?? [];
        options.forEach((option, index) => {
          terminal.line(
            `  ${index + 1}. ${option.label}${option.description ? ` — ${option.description}` : ""}`,
          );
        });
        const typed = await terminal.ask(
          `${terminal.style("yellow", "?")} ${question.question}${options.length ? ` ${terminal.style("dim", "[number or text]")}` : ""}`,
        );
        if (typed === undefined) return "decline";
        const picked = /^\s*(\d+)\s*$/.exec(typed);
        const option = picked ? options[Number(picked[1]) - 1] : undefined;
        answers[question.id] = [option ? option.label : typed.trim()];
      }
      return { answers };
    },
  };
}
