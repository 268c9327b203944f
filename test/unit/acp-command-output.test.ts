// The ACP agent's command output: in a terminal for an editor with terminals (output and exit in
// `_meta`, a terminal that missed output replaced by a whole one), as text for any other.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { commandEnded, terminalModeOf } from "../../src/acp/command-output.js";
import type { ExtendedCommandExecutionItem } from "../../src/events/types.js";

const item: ExtendedCommandExecutionItem = {
  id: "c1",
  type: "command_execution",
  command: "make",
  aggregated_output: "one\ntwo\n",
  exit_code: 2,
  status: "failed",
  cwd: "/w",
};

describe("command output", () => {
  it("terminal mode from the editor's capabilities", () => {
    assert.equal(terminalModeOf(undefined), undefined);
    assert.equal(terminalModeOf({ terminal: false }), undefined);
    assert.equal(terminalModeOf({ terminal: true }), "terminal_output_delta");
    assert.equal(
      terminalModeOf({ terminal: true, _meta: { terminal_output: true } }),
      "terminal_output",
    );
  });

  it("no terminals: the output as text when it ends", () => {
    assert.deepEqual(commandEnded(item, undefined, ""), {
      sessionUpdate: "tool_call_update",
      toolCallId: "c1",
      status: "failed",
      rawOutput: { exit_code: 2, status: "failed" },
      content: [{ type: "content", content: { type: "text", text: "```\none\ntwo\n```" } }],
    });
  });

  it("a terminal that has the start of the output gets the rest, and the exit", () => {
    const ended = commandEnded(item, "terminal_output", "one\n");
    assert.equal("content" in ended ? ended.content : undefined, undefined);
    assert.deepEqual(ended._meta, {
      terminal_output: { terminal_id: "c1", data: "two\n" },
      terminal_exit: { terminal_id: "c1", exit_code: 2, signal: null },
    });
    const whole = commandEnded(item, "terminal_output", "one\ntwo\n");
    assert.deepEqual(whole._meta, {
      terminal_exit: { terminal_id: "c1", exit_code: 2, signal: null },
    });
  });

  it("a terminal that missed output is replaced by one with all of it", () => {
    const ended = commandEnded(item, "terminal_output_delta", "two\n");
    assert.deepEqual("content" in ended ? ended.content : undefined, [
      { type: "terminal", terminalId: "c1-output" },
    ]);
    assert.deepEqual(ended._meta, {
      terminal_info: { terminal_id: "c1-output", cwd: "/w" },
      terminal_output_delta: { terminal_id: "c1-output", data: "one\ntwo\n" },
      terminal_exit: { terminal_id: "c1-output", exit_code: 2, signal: null },
    });
  });
});
