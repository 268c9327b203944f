// Approvals answered by the person at the terminal (or all approved with --yes).
import type { ApprovalContext, Approvals } from "../events/approval-types.js";
import type { Terminal } from "./terminal.js";

/** The reasons of what the terminal approved itself, which it showed as it asked. */
export const APPROVED_HERE: readonly string[] = [
  "approved by you at the prompt",
  "approved by --yes",
];

/** Why a request was declined when nobody answers the terminal (end of input). */
const NOBODY = "nobody to answer at the terminal (end of input)";

/**
 * The terminal way to answer: handlers that ask the person at `terminal` — in the process running
 * the turn — about commands and file changes (y/N) and the agent's questions (an option's number,
 * or free text). `autoApprove` answers yes to commands and file changes without asking (questions
 * still ask). End of input declines. Each answer says who gave it (`context.explain`): "approved
 * by you at the prompt", "declined by you at the prompt", "approved by --yes", or nobody.
 */
export function terminalApprovals(terminal: Terminal, autoApprove = false): Approvals {
  const ask = async (question: string, context: ApprovalContext): Promise<"accept" | "decline"> => {
    if (autoApprove) {
      terminal.line(`${question} ${terminal.style("green", "yes (--yes)")}`);
      context.explain?.("approved by --yes");
      return "accept";
    }
    const answer = await terminal.ask(`${question} ${terminal.style("dim", "[y/N]")}`);
    if (answer === undefined) {
      context.explain?.(NOBODY);
      return "decline";
    }
    const approved = /^\s*y(es)?\s*$/i.test(answer);
    context.explain?.(approved ? "approved by you at the prompt" : "declined by you at the prompt");
    return approved ? "accept" : "decline";
  };
  return {
    commandExecution: async (request, context) => {
      const why = request.reason ? ` — ${request.reason}` : "";
      return ask(
        `${terminal.style("yellow", "?")} Run ${terminal.style("bold", request.command || "this command")} outside the sandbox${why}?`,
        context,
      );
    },
    fileChange: async (request, context) => {
      const why = request.reason ? ` — ${request.reason}` : "";
      return ask(`${terminal.style("yellow", "?")} Apply the file change above${why}?`, context);
    },
    userInput: async (request, context) => {
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
        if (typed === undefined) {
          context.explain?.(NOBODY);
          return "decline";
        }
        const picked = /^\s*(\d+)\s*$/.exec(typed);
        const option = picked ? options[Number(picked[1]) - 1] : undefined;
        answers[question.id] = [option ? option.label : typed.trim()];
      }
      context.explain?.("answered by you at the prompt");
      return { answers };
    },
  };
}
