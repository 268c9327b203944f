// A command's output where the editor wants it. An editor that says it has terminals
// (`clientCapabilities.terminal`) gets the command as a `terminal` tool-call content whose output
// streams in `_meta` (`terminal_info`, then `terminal_output` or `terminal_output_delta` chunks,
// then `terminal_exit`: the extension Zed reads and codex-acp sends, since ACP v1's own terminals
// are ones the editor runs, and codex runs its commands itself). Any other editor gets the output
// as a fenced text block when the command ends. Either way `rawOutput` carries the whole output.
// codex does not always stream a command's first output (it came before the command's start was
// told): a terminal that missed some is replaced at the end by one with the whole output.
import type * as acp from "@agentclientprotocol/sdk";
import type { ExtendedCommandExecutionItem } from "../events/types.js";

/**
 * How output chunks are keyed in `_meta`: `terminal_output` for an editor that asks for it
 * (`clientCapabilities._meta.terminal_output: true`, as Zed does), `terminal_output_delta` else.
 */
export type TerminalMode = "terminal_output" | "terminal_output_delta";

/** The terminal mode an editor's capabilities ask for, or undefined for plain text output. */
export function terminalModeOf(
  capabilities: acp.ClientCapabilities | null | undefined,
): TerminalMode | undefined {
  if (capabilities?.terminal !== true) return undefined;
  return capabilities._meta?.terminal_output === true ? "terminal_output" : "terminal_output_delta";
}

/** What a command's tool call carries in terminal mode: the terminal, and where it runs. */
export function terminalStart(id: string, cwd: string | undefined): Partial<acp.ToolCall> {
  return {
    content: [{ type: "terminal", terminalId: id }],
    _meta: { terminal_info: { terminal_id: id, ...(cwd ? { cwd } : {}) } },
  };
}

/** A piece of a command's output for its terminal. */
export function terminalOutput(mode: TerminalMode, id: string, data: string): acp.SessionUpdate {
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: id,
    _meta: { [mode]: { terminal_id: id, data } },
  };
}

/**
 * The end of a command: its status and output (in terminal mode, after the `streamed` output,
 * what the terminal lacks, and the exit).
 */
export function commandEnded(
  item: ExtendedCommandExecutionItem,
  mode: TerminalMode | undefined,
  streamed: string,
): acp.SessionUpdate {
  const output = item.aggregated_output.trimEnd();
  const exitCode = item.exit_code ?? null;
  const ended = {
    sessionUpdate: "tool_call_update" as const,
    toolCallId: item.id,
    status:
      item.status === "completed" && (exitCode ?? 0) === 0
        ? ("completed" as const)
        : ("failed" as const),
    rawOutput: {
      exit_code: exitCode,
      status: item.status,
      ...(mode ? { formatted_output: item.aggregated_output } : {}),
    },
  };
  if (!mode) {
    return output === ""
      ? ended
      : {
          ...ended,
          content: [
            { type: "content", content: { type: "text", text: `\`\`\`\n${output}\n\`\`\`` } },
          ],
        };
  }
  const whole = item.aggregated_output;
  const exit = (id: string) => ({ terminal_id: id, exit_code: exitCode, signal: null });
  if (whole.startsWith(streamed)) {
    const rest = whole.slice(streamed.length);
    return {
      ...ended,
      _meta: {
        ...(rest !== "" ? { [mode]: { terminal_id: item.id, data: rest } } : {}),
        terminal_exit: exit(item.id),
      },
    };
  }
  // The terminal missed output: one with all of it takes its place.
  const id = `${item.id}-output`;
  const start = terminalStart(id, item.cwd);
  return {
    ...ended,
    content: start.content ?? null,
    _meta: { ...start._meta, [mode]: { terminal_id: id, data: whole }, terminal_exit: exit(id) },
  };
}
