// What `run` prints for a person: an agent's Markdown rendered (styled on a colour terminal,
// plain elsewhere, never its markers), codex's harmless warnings folded into one line.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { TerminalMarkdown } from "../../src/cli/markdown.js";
import { EventRenderer } from "../../src/cli/render.js";
import { Terminal } from "../../src/cli/terminal.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";

/** A pipe (no colours), as when the output is redirected; or a colour terminal. */
function terminalOf(tty: boolean) {
  const out = Object.assign(new PassThrough(), { isTTY: tty });
  let text = "";
  out.on("data", (chunk) => (text += chunk));
  return { terminal: new Terminal(out, new PassThrough(), { TERM: "xterm" }), output: () => text };
}

const plain = new TerminalMarkdown((_, text) => text);
const tagged = new TerminalMarkdown((style, text) => `<${style}>${text}</${style}>`);

const event = (value: object) => value as ExtendedThreadEvent;
const warning = (message: string) =>
  event({ type: "notification", method: "warning", params: { message } });
const completed = event({
  type: "turn.completed",
  status: "completed",
  usage: { input_tokens: 1, cached_input_tokens: 0, output_tokens: 1 },
});

describe("an agent's Markdown in the terminal", () => {
  it("shows no markers as plain text: bold, code, links, lists, headings, fences", () => {
    const text = [
      "## Done",
      "I created **hello.sh** and `README.md` (see [the docs](https://example.com/docs)).",
      "- one *small* step",
      "* another",
      "```sh",
      "./hello.sh",
      "```",
    ].join("\n");
    assert.equal(
      plain.render(text),
      [
        "Done",
        "I created hello.sh and README.md (see the docs (https://example.com/docs)).",
        "• one small step",
        "• another",
        "",
        "  ./hello.sh",
        "",
      ].join("\n"),
    );
  });

  it("styles them on a colour terminal; nothing inside inline code is Markdown", () => {
    assert.equal(
      tagged.render("**bold** and `a **b** c` and *it*"),
      "<bold>bold</bold> and <cyan>a **b** c</cyan> and <italic>it</italic>",
    );
    assert.equal(tagged.render("2 * 3 * 4 = 24"), "2 * 3 * 4 = 24", "arithmetic is not italics");
  });

  it("renders streamed deltas line by line, a marker split across deltas included", () => {
    const md = new TerminalMarkdown((_, text) => text);
    assert.equal(md.feed("I made **he"), "");
    assert.equal(md.feed("llo.sh**.\n- a"), "I made hello.sh.\n");
    assert.equal(md.flush(), "• a");
  });

  it("streams through the renderer: run's output has no ** on a pipe", () => {
    const { terminal, output } = terminalOf(false);
    const renderer = new EventRenderer(terminal);
    for (const delta of ["Done. I created **hel", "lo.sh** and", " `README.md`."]) {
      renderer.render(event({ type: "item.delta", item_id: "m1", stream: "agent_message", delta }));
    }
    renderer.render(
      event({
        type: "item.completed",
        item: {
          id: "m1",
          type: "agent_message",
          text: "Done. I created **hello.sh** and `README.md`.",
        },
      }),
    );
    assert.equal(output(), "\nDone. I created hello.sh and README.md.\n");
  });
});

describe("codex's warnings in the terminal", () => {
  it("folds the harmless ones into one line at the end of the turn; --verbose shows them", () => {
    const metadata =
      "Model metadata for `scripted-model` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.";
    const { terminal, output } = terminalOf(false);
    const renderer = new EventRenderer(terminal);
    renderer.render(warning(metadata));
    renderer.render(warning("Codex could not find system bubblewrap on PATH."));
    renderer.render(warning("disk almost full"));
    renderer.render(completed);
    const text = output();
    assert.doesNotMatch(text, /Model metadata/);
    assert.match(text, /^warning: disk almost full$/m, "other warnings are shown as they come");
    assert.match(
      text,
      /^· 2 harmless codex warnings \(model metadata, bubblewrap\): --verbose shows them$/m,
    );
    const verbose = terminalOf(false);
    const shown = new EventRenderer(verbose.terminal, { verbose: true });
    shown.render(warning(metadata));
    shown.render(completed);
    assert.match(verbose.output(), /^warning: Model metadata for `scripted-model` not found/m);
    assert.doesNotMatch(verbose.output(), /harmless/);
  });
});

describe("a declined command in the terminal", () => {
  it("says who or which rule declined it", () => {
    const { terminal, output } = terminalOf(false);
    const renderer = new EventRenderer(terminal);
    const item = {
      id: "push",
      type: "command_execution",
      command: "git push origin main",
      aggregated_output: "",
      status: "declined",
    };
    renderer.render(event({ type: "item.started", item: { ...item, status: "in_progress" } }));
    renderer.render(
      event({
        type: "approval.resolved",
        request_id: 0,
        kind: "commandExecution",
        item_id: "push",
        decision: "decline",
        decided_by: "handler",
        reason: 'denied by [deny] exec "git push" in spaces/reviewer/permissions.toml',
      }),
    );
    renderer.render(event({ type: "item.completed", item }));
    assert.match(
      output(),
      /^ {2}✗ declined — denied by \[deny\] exec "git push" in spaces\/reviewer\/permissions\.toml$/m,
    );
  });
});

describe("an approved command in the terminal", () => {
  const run = (reason: string) => {
    const { terminal, output } = terminalOf(false);
    const renderer = new EventRenderer(terminal);
    const item = {
      id: "publish",
      type: "command_execution",
      command: "npm publish",
      aggregated_output: "+ app@1.2.0",
      exit_code: 0,
      status: "completed",
    };
    renderer.render(event({ type: "item.started", item: { ...item, status: "in_progress" } }));
    renderer.render(
      event({
        type: "approval.resolved",
        request_id: 0,
        kind: "commandExecution",
        item_id: "publish",
        decision: "accept",
        decided_by: "handler",
        reason,
      }),
    );
    renderer.render(event({ type: "item.completed", item }));
    return output();
  };

  it("says who approved it elsewhere: two people of a two-person rule", () => {
    assert.match(
      run("approved by Alice, Bob in the channels runtime"),
      /^ {2}✓ approved by Alice, Bob in the channels runtime\n[\s\S]*✓ exit 0/m,
    );
  });

  it("says nothing more of what the terminal approved itself, or of a rule's allow", () => {
    assert.doesNotMatch(run("approved by you at the prompt"), /approved by/);
    assert.doesNotMatch(run("approved by --yes"), /approved by/);
    assert.doesNotMatch(run('allowed by [exec] commands "npm" in p.toml'), /allowed by/);
  });
});
