// The terminal the CLI draws on: nothing is drawn under a question until it is answered.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { EventRenderer } from "../../src/cli/render.js";
import { Terminal } from "../../src/cli/terminal.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";

/** A TTY-like output (spinners on) and an input the test writes answers into. */
function tty() {
  const out = Object.assign(new PassThrough(), { isTTY: true });
  let text = "";
  out.on("data", (chunk) => (text += chunk));
  const input = new PassThrough();
  return { terminal: new Terminal(out, input, { TERM: "xterm" }), input, output: () => text };
}

const commandStarted = {
  type: "item.started",
  item: {
    id: "c1",
    type: "command_execution",
    command: "touch later.txt",
    aggregated_output: "",
    status: "in_progress",
  },
} as unknown as ExtendedThreadEvent;

describe("Terminal", () => {
  it("holds what comes while a y/N question waits, and shows it after the answer", async () => {
    const { terminal, input, output } = tty();
    const renderer = new EventRenderer(terminal);
    const answer = terminal.confirm("Run touch later.txt outside the sandbox?");
    await new Promise((resolve) => setImmediate(resolve));
    renderer.render(commandStarted);
    terminal.spin("working…");
    await new Promise((resolve) => setTimeout(resolve, 150));
    const whileAsking = output();
    assert.match(whileAsking, /\[y\/N\]\n$/, "the question is the last thing drawn");
    assert.ok(!whileAsking.includes("$ touch"), whileAsking);
    assert.ok(!whileAsking.includes("running…") && !whileAsking.includes("working…"));
    input.write("y\n");
    assert.equal(await answer, true);
    const after = output().slice(whileAsking.length);
    assert.match(after, /\$ touch later\.txt/);
    assert.match(after, /running…/, "the spinner starts again after the answer");
    terminal.close();
  });
});
