// The agent's questions: `item/tool/requestUserInput`.

import { isObject } from "../wire-values.js";
import { type ApprovalRequestBase, kindSpec, listOf } from "./spec.js";

/** One question of a `request_user_input` call. */
export interface UserInputQuestion {
  id: string;
  header: string;
  question: string;
  is_other: boolean;
  is_secret: boolean;
  options: { label: string; description: string }[] | null;
}

/** The agent asks the user questions. */
export interface UserInputRequest extends ApprovalRequestBase {
  kind: "userInput";
  questions: UserInputQuestion[];
  is_blocking: boolean;
}

/** Answers by question id (each a list: the chosen options or free text). */
export type UserInputDecision = "decline" | "cancel" | { answers: Record<string, string[]> };

export const userInput = kindSpec<UserInputRequest, UserInputDecision>()({
  kind: "userInput",
  accepts: '{ answers: { [questionId]: string[] } }, "decline", "cancel"',
  isDecision: (value): value is UserInputDecision =>
    value === "cancel" ||
    (isObject(value) &&
      isObject(value.answers) &&
      Object.values(value.answers).every(
        (answer) => Array.isArray(answer) && answer.every((part) => typeof part === "string"),
      )),
  methods: {
    "item/tool/requestUserInput": {
      request: (params) => ({
        item_id: params.itemId,
        questions: listOf(params.questions).map((question) => ({
          id: question.id ?? "",
          header: question.header ?? "",
          question: question.question ?? "",
          is_other: question.isOther === true,
          is_secret: question.isSecret === true,
          options: Array.isArray(question.options) ? question.options : null,
        })),
        is_blocking: params.isBlocking !== false,
      }),
      result: (decision) =>
        typeof decision === "string"
          ? { answers: {} }
          : {
              answers: Object.fromEntries(
                Object.entries(decision.answers).map(([id, answers]) => [id, { answers }]),
              ),
            },
    },
  },
});
