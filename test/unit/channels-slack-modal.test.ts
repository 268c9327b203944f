// Typed answers from Slack: the "Type an answer" button opens a modal, its submission answers.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChannelsError } from "../../src/channels/errors.js";
import type { Interaction } from "../../src/channels/interaction-types.js";
import {
  ANSWER_MODAL_CALLBACK,
  answerModal,
  TYPE_ANSWER_ACTION,
} from "../../src/channels/slack/answer-modal.js";
import { slackMessage } from "../../src/channels/slack/blocks.js";
import { type ClickDeps, handleClick } from "../../src/channels/slack/clicks.js";

const question = {
  id: "int_7e0c6f0e-4c1d-4a55-9a43-6f1f3c9b2a10",
  kind: "user_input_request",
  source: { name: "test" },
  status: "delivered",
  title: "Which branch?",
  payload: { questions: [{ id: "branch", question: "Which branch?", options: null }] },
  actions: ["text", "decline", "cancel"],
  createdAt: "2026-11-22T10:00:00.000Z",
  updatedAt: "2026-11-22T10:00:00.000Z",
  expiresAt: "2026-11-22T10:10:00.000Z",
} as unknown as Interaction;

function deps(overrides: Partial<ClickDeps> = {}) {
  const calls = { told: [] as string[], opened: [] as unknown[], answers: [] as unknown[] };
  const d: ClickDeps = {
    people: new Map([["U0ALICE", "alice"]]),
    linkedPerson: async () => undefined,
    get: async () => question,
    respond: async (_id, answer) => {
      calls.answers.push(answer);
      return question;
    },
    tell: async (_where, text) => {
      calls.told.push(text);
    },
    remember: () => undefined,
    refresh: async () => undefined,
    openModal: async (_trigger, view) => {
      calls.opened.push(view);
    },
    ...overrides,
  };
  return { d, calls };
}

const typeClick = (user: string) => ({
  type: "block_actions",
  trigger_id: "trigger-1",
  user: { id: user },
  actions: [{ action_id: TYPE_ANSWER_ACTION, value: question.id }],
  container: { channel_id: "C0CODEX", message_ts: "1700000000.000100" },
});

const submission = (user: string, text: string) => {
  const view = answerModal(question, { id: question.id, channel: "C0CODEX", ts: "1.2" });
  return {
    type: "view_submission",
    user: { id: user },
    view: {
      callback_id: view.callback_id,
      private_metadata: view.private_metadata,
      state: { values: { "q:branch": { answer: { value: text } } } },
    },
  };
};

describe("Slack answer modal", () => {
  it("a question no button answers gets a Type an answer button, which opens a modal with its questions", async () => {
    const actions = slackMessage(question).blocks.find((block) => block.type === "actions");
    assert.ok(actions?.type === "actions");
    assert.deepEqual(
      actions.elements.map((button) => button.text.text),
      ["Type an answer", "Decline", "Interrupt the turn"],
    );
    const { d, calls } = deps();
    assert.equal(await handleClick(typeClick("U0ALICE"), d), "modal");
    const view = calls.opened[0] as ReturnType<typeof answerModal>;
    assert.equal(view.callback_id, ANSWER_MODAL_CALLBACK);
    assert.deepEqual(
      view.blocks.map((block) => [block.block_id, block.label.text]),
      [["q:branch", "Which branch?"]],
    );
  });

  it("a question it cannot show in full offers no Type an answer, only the refusals", () => {
    // An option without a label: the message cannot show what would be answered.
    const unshown = {
      ...question,
      payload: { questions: [{ id: "branch", question: "Which branch?", options: [{}] }] },
    } as unknown as Interaction;
    const actions = slackMessage(unshown).blocks.find((block) => block.type === "actions");
    assert.ok(actions?.type === "actions");
    assert.deepEqual(
      actions.elements.map((button) => button.text.text),
      ["Decline", "Interrupt the turn"],
    );
  });

  it("the submission answers as the person, with values.answers by question id", async () => {
    const { d, calls } = deps();
    assert.equal(await handleClick(submission("U0ALICE", "release/2.0"), d), "answered");
    assert.deepEqual(calls.answers, [
      {
        action: "text",
        values: { answers: { branch: ["release/2.0"] } },
        metadata: { via: "slack", slackUser: "U0ALICE" },
        answerer: { id: "slack:U0ALICE", name: "alice" },
      },
    ]);
  });

  it("a stranger can neither open the modal nor submit it; a late submission is told who answered", async () => {
    const stranger = deps();
    assert.equal(await handleClick(typeClick("U0EVE"), stranger.d), "refused");
    assert.equal(await handleClick(submission("U0EVE", "main"), stranger.d), "refused");
    assert.deepEqual(stranger.calls.opened, []);
    assert.deepEqual(stranger.calls.answers, []);
    assert.match(stranger.calls.told[0] ?? "", /not on this codex-harness Slack allow-list/);
    const answered = {
      ...question,
      status: "resolved",
      response: {
        action: "decline",
        metadata: { answeredBy: "bob" },
        respondedAt: question.createdAt,
      },
    } as unknown as Interaction;
    const reads = [question, answered];
    const late = deps({
      get: async () => reads.shift() ?? answered,
      respond: async () => {
        throw new ChannelsError("conflict", 409, "already resolved");
      },
    });
    assert.equal(await handleClick(submission("U0ALICE", "main"), late.d), "late");
    assert.deepEqual(late.calls.told, ["Your answer was not taken: Declined by bob."]);
  });
});
