// Typed answers from Slack: a "Type an answer" button opens a modal with one text field per
// question (`views.open`), and its submission (`view_submission`) answers the interaction.
import { chatUnshownReason } from "../chat/message.js";
import type { Interaction } from "../interaction-types.js";

/** The `action_id` of the button that opens the modal (its `value` is the interaction id). */
export const TYPE_ANSWER_ACTION = "codex-harness-type-answer";
/** The modal's `callback_id`, by which its submission is known. */
export const ANSWER_MODAL_CALLBACK = "codex-harness-answer";

/** Slack's limits: a modal's title 24 characters, an input's label 2,000, a modal 100 blocks. */
const LABEL_MAX = 2_000;
const BLOCKS_MAX = 100;

/** Where the interaction's message is, carried through the modal (`private_metadata`). */
export interface ModalOrigin {
  id: string;
  channel: string;
  ts?: string;
}

interface Question {
  id: string;
  question: string;
  /** The offered options' labels (a typed answer may be one of them, or, with `is_other`, anything). */
  options: string[];
  isOther: boolean;
}

/** The questions an interaction asks that a modal can take answers to (none: no modal). */
export function typedQuestions(interaction: Interaction): Question[] {
  if (interaction.kind !== "user_input_request") return [];
  // What the message cannot show in full takes only a refusal: no answer to type.
  if (chatUnshownReason(interaction, "slack") !== undefined) return [];
  const questions = interaction.payload.questions;
  if (!Array.isArray(questions)) return [];
  return questions.flatMap(
    (question: { id?: unknown; question?: unknown; options?: unknown; is_other?: unknown }) => {
      if (typeof question?.id !== "string" || question.id === "") return [];
      const options = Array.isArray(question.options)
        ? question.options.flatMap((option: { label?: unknown }) =>
            typeof option?.label === "string" ? [option.label] : [],
          )
        : [];
      const asked = typeof question.question === "string" ? question.question : question.id;
      return [{ id: question.id, question: asked, options, isOther: question.is_other === true }];
    },
  );
}

/**
 * Whether a message offers the modal: no button answers the questions, or some question takes an
 * answer besides its options (codex marks every question `is_other`).
 */
export function offersModal(interaction: Interaction, answeredByButtons: boolean): boolean {
  const questions = typedQuestions(interaction);
  if (questions.length === 0) return false;
  return (
    !answeredByButtons ||
    questions.some((question) => question.isOther || question.options.length === 0)
  );
}

/** The modal for an interaction's questions (a text field each, the questions as labels). */
export function answerModal(interaction: Interaction, origin: ModalOrigin) {
  return {
    type: "modal" as const,
    callback_id: ANSWER_MODAL_CALLBACK,
    private_metadata: JSON.stringify(origin),
    title: { type: "plain_text" as const, text: "Answer codex" },
    submit: { type: "plain_text" as const, text: "Send" },
    close: { type: "plain_text" as const, text: "Cancel" },
    blocks: typedQuestions(interaction)
      .slice(0, BLOCKS_MAX)
      .map((question) => ({
        type: "input" as const,
        block_id: `q:${question.id}`.slice(0, 255),
        label: { type: "plain_text" as const, text: clip(question.question, LABEL_MAX) },
        element: { type: "plain_text_input" as const, action_id: "answer", multiline: true },
        ...(question.options.length > 0 ? { hint: optionsHint(question) } : {}),
      })),
  };
}

function optionsHint(question: Question) {
  const lead = question.isOther ? "Your own answer, or one of" : "One of";
  return {
    type: "plain_text" as const,
    text: clip(`${lead}: ${question.options.join(", ")}`, LABEL_MAX),
  };
}

/** The parts of Slack's `view_submission` payload an answer needs. */
export interface SlackSubmissionPayload {
  type?: string;
  user?: { id?: string };
  view?: {
    callback_id?: string;
    private_metadata?: string;
    state?: { values?: Record<string, Record<string, { value?: string | null }>> };
  };
}

/**
 * What a submission answers: the interaction it came from and `values.answers` by question id,
 * or undefined for a payload that is not one of our modals' submissions.
 */
export function submittedAnswers(
  payload: SlackSubmissionPayload,
): { origin: ModalOrigin; answers: Record<string, string[]> } | undefined {
  const view = payload.view;
  if (payload.type !== "view_submission" || view?.callback_id !== ANSWER_MODAL_CALLBACK) {
    return undefined;
  }
  let origin: ModalOrigin;
  try {
    origin = JSON.parse(view.private_metadata ?? "") as ModalOrigin;
  } catch {
    return undefined;
  }
  if (typeof origin?.id !== "string" || typeof origin.channel !== "string") return undefined;
  const answers: Record<string, string[]> = {};
  for (const [block, fields] of Object.entries(view.state?.values ?? {})) {
    const text = fields.answer?.value;
    if (block.startsWith("q:") && typeof text === "string") answers[block.slice(2)] = [text];
  }
  return { origin, answers };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
