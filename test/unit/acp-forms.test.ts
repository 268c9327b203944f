// codex's questions asked as one ACP form: the form's fields, and what each answer means to codex.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type AskForm, askQuestions } from "../../src/acp/forms.js";
import type { UserInputRequest } from "../../src/events/server-requests/user-input.js";
import type { FormAsked } from "../support/acp-editor.js";

const request = (
  overrides: Partial<UserInputRequest["questions"][number]> = {},
): UserInputRequest =>
  ({
    kind: "userInput",
    request_id: 7,
    item_id: "call_q",
    is_blocking: true,
    questions: [
      {
        id: "db",
        header: "Database",
        question: "Which one?",
        is_other: true,
        is_secret: false,
        options: [
          { label: "Postgres", description: "a server" },
          { label: "SQLite", description: "a file" },
        ],
        ...overrides,
      },
    ],
  }) as UserInputRequest;

/** A form answerer that records what it was asked and answers `answer`. */
function answering(answer: Awaited<ReturnType<AskForm>>) {
  const asked: Parameters<AskForm>[0][] = [];
  const ask: AskForm = async (form) => {
    asked.push(form);
    return answer;
  };
  return { ask, asked };
}

const signal = new AbortController().signal;

describe("acp: codex's questions as a form", () => {
  it("offers the options and Other with a field to type it in; a choice or the typed text is the answer", async () => {
    const chose = answering({ action: "accept", content: { db: "SQLite" } });
    assert.deepEqual(await askQuestions(request(), "s1", chose.ask, signal), {
      answers: { db: ["SQLite"] },
    });
    const form = chose.asked[0] as unknown as FormAsked;
    assert.equal(form.sessionId, "s1");
    assert.equal(form.toolCallId, "call_q");
    assert.deepEqual(form.requestedSchema.properties?.db, {
      type: "string",
      title: "Database",
      description: "Which one?",
      enum: ["Postgres", "SQLite", "Other"],
    });
    assert.ok(form.requestedSchema.properties?.db__other, "a field for Other");
    const typed = answering({ action: "accept", content: { db: "Other", db__other: "DuckDB" } });
    assert.deepEqual(await askQuestions(request(), "s1", typed.ask, signal), {
      answers: { db: ["DuckDB"] },
    });
  });

  it("fails closed: Other with nothing typed, no choice, decline and cancel; a secret is not asked", async () => {
    for (const content of [{ db: "Other", db__other: " " }, {}, { db: 3 }]) {
      const { ask } = answering({ action: "accept", content });
      assert.equal(
        await askQuestions(request(), "s1", ask, signal),
        "decline",
        JSON.stringify(content),
      );
    }
    assert.equal(
      await askQuestions(request(), "s1", answering({ action: "decline" }).ask, signal),
      "decline",
    );
    assert.equal(
      await askQuestions(request(), "s1", answering({ action: "cancel" }).ask, signal),
      "cancel",
    );
    const secret = answering({ action: "accept", content: { db: "x" } });
    assert.equal(
      await askQuestions(request({ is_secret: true }), "s1", secret.ask, signal),
      undefined,
    );
    assert.equal(secret.asked.length, 0, "never shown in a form");
    // Without "Other" allowed, the choice is among the options only.
    const closed = answering({ action: "accept", content: { db: "Postgres" } });
    await askQuestions(request({ is_other: false }), "s1", closed.ask, signal);
    const form = closed.asked[0] as unknown as FormAsked;
    assert.deepEqual(form.requestedSchema.properties?.db?.enum, ["Postgres", "SQLite"]);
    assert.equal(form.requestedSchema.properties?.db__other, undefined);
  });
});
