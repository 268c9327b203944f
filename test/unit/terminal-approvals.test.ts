import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { Terminal } from "../../src/cli/terminal.js";
import { terminalApprovals } from "../../src/cli/terminal-approvals.js";
import type { CommandExecutionRequest, UserInputRequest } from "../../src/events/approval-types.js";

const signal = new AbortController().signal;

function terminalWith(input: string): { terminal: Terminal; output: () => string } {
  const out = new PassThrough();
  let text = "";
  out.on("data", (chunk) => (text += chunk));
  const stdin = new PassThrough();
  stdin.end(input);
  return { terminal: new Terminal(out, stdin, {}), output: () => text };
}

const base = {
  method: "m",
  thread_id: "t",
  turn_id: "u",
  item_id: "i",
};

const command: CommandExecutionRequest = {
  ...base,
  kind: "commandExecution",
  request_id: 1,
  approval_kind: "command",
  command: "rm -rf build",
  script: "rm -rf build",
  cwd: "/tmp",
  reason: "clean up",
  command_actions: [],
  proposed_execpolicy_amendment: null,
  proposed_network_policy_amendments: [],
  network_approval_context: null,
};

const questions: UserInputRequest = {
  ...base,
  kind: "userInput",
  request_id: 2,
  is_blocking: true,
  questions: [
    {
      id: "db",
      header: "DB",
      question: "Which database?",
      is_other: false,
      is_secret: false,
      options: [
        { label: "Postgres", description: "server" },
        { label: "SQLite", description: "file" },
      ],
    },
    {
      id: "name",
      header: "Name",
      question: "Its name?",
      is_other: true,
      is_secret: false,
      options: null,
    },
  ],
};

describe("terminalApprovals (the terminal way to answer)", () => {
  it("asks y/N for a command, showing it and the reason", async () => {
    const yes = terminalWith("y\n");
    assert.equal(
      await terminalApprovals(yes.terminal).commandExecution?.(command, { signal }),
      "accept",
    );
    assert.match(yes.output(), /Run rm -rf build outside the sandbox — clean up\? \[y\/N\]/);
    const no = terminalWith("nope\n");
    assert.equal(
      await terminalApprovals(no.terminal).commandExecution?.(command, { signal }),
      "decline",
    );
    const auto = terminalWith("");
    assert.equal(
      await terminalApprovals(auto.terminal, true).commandExecution?.(command, { signal }),
      "accept",
    );
  });

  it("answers questions by option number or free text, and declines at end of input", async () => {
    const answered = terminalWith("2\nmy-db\n");
    assert.deepEqual(
      await terminalApprovals(answered.terminal).userInput?.(questions, { signal }),
      {
        answers: { db: ["SQLite"], name: ["my-db"] },
      },
    );
    assert.match(answered.output(), /1\. Postgres — server\n {2}2\. SQLite — file/);
    const closed = terminalWith("1\n");
    assert.equal(
      await terminalApprovals(closed.terminal).userInput?.(questions, { signal }),
      "decline",
    );
  });
});
