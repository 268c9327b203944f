// The turn's answer by codex's message phases (`finalAnswer`, as the official Python SDK's
// `final_response`), beside `finalResponse`, which stays the last message whatever its phase.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import { RunResultBuilder } from "../../src/turns/run-result.js";

function message(id: string, text: string, phase?: string | null): ExtendedThreadEvent {
  return {
    type: "item.completed",
    item: { id, type: "agent_message", text, ...(phase === undefined ? {} : { phase }) },
  } as ExtendedThreadEvent;
}

function answers(...events: ExtendedThreadEvent[]) {
  const builder = new RunResultBuilder("extended");
  for (const event of events) builder.add(event);
  const { finalResponse, finalAnswer } = builder.partial();
  return { finalResponse, finalAnswer };
}

describe("a turn's final answer by phase", () => {
  it("a final answer followed by commentary: the answer, not the commentary", () => {
    assert.deepEqual(
      answers(
        message("a", "The answer.", "final_answer"),
        message("b", "By the way…", "commentary"),
      ),
      { finalResponse: "By the way…", finalAnswer: "The answer." },
    );
  });

  it("commentary alone is no answer", () => {
    assert.deepEqual(answers(message("a", "Looking around…", "commentary")), {
      finalResponse: "Looking around…",
      finalAnswer: "",
    });
  });

  it("without phases (exec, older codex): the last message, as finalResponse", () => {
    assert.deepEqual(answers(message("a", "one"), message("b", "two", null)), {
      finalResponse: "two",
      finalAnswer: "two",
    });
  });

  it("the last final answer wins over a later message of no phase; a partial answer never is", () => {
    assert.deepEqual(
      answers(
        message("a", "first", "final_answer"),
        message("b", "second", "final_answer"),
        message("c", "unphased"),
        message("d", "part", "partial_answer"),
      ),
      { finalResponse: "part", finalAnswer: "second" },
    );
  });
});
