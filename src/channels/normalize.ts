// codex's requests (as codex-harness's approval requests) -> interactions, and responses back to
// the decision each kind takes. Pure: the runtime checks responses with it (check-response.ts),
// the bridge maps them.
import { CodexHarnessError } from "../errors.js";
import type { ApprovalKind, ApprovalRequest, DecisionOf } from "../events/approval-types.js";
import type { JsonValue } from "../protocol/generated/ts/serde_json/JsonValue.js";
import type {
  InteractionInput,
  InteractionKind,
  InteractionResponse,
  ResponseAction,
} from "./interaction-types.js";
import { fieldsProblem, listProblem, PAYLOAD_FIELDS } from "./showable.js";
import { titleOf } from "./titles.js";

/** The request kinds a person answers through channels, and the interaction kind of each. */
export const BRIDGED_KINDS = {
  commandExecution: "approval_request",
  fileChange: "approval_request",
  permissions: "permissions_request",
  userInput: "user_input_request",
  elicitation: "elicitation_request",
} as const satisfies Partial<Record<ApprovalKind, InteractionKind>>;

export type BridgedKind = keyof typeof BRIDGED_KINDS;

/** A request of a bridged kind. */
export type BridgedRequest = Extract<ApprovalRequest, { kind: BridgedKind }>;

/** The decision of any bridged kind. */
export type BridgedDecision = DecisionOf<BridgedKind>;

/** The actions each interaction kind takes. */
const ACTIONS: Record<InteractionKind, ResponseAction[]> = {
  approval_request: ["accept", "decline", "cancel"],
  permissions_request: ["accept", "decline"],
  user_input_request: ["text", "decline", "cancel"],
  elicitation_request: ["accept", "decline", "cancel"],
  progress_update: ["accept"],
};

/**
 * The interaction for one of codex's requests. The payload is the request itself (snake_case),
 * the title derived from it ({@link titleOf}), `codex.requestId` codex's id as it came (a string
 * or a number); `project` (`source.project`) tells people where it comes from.
 */
export function interactionFor(
  request: BridgedRequest,
  source = "codex-harness",
  project?: string,
): InteractionInput {
  const kind = BRIDGED_KINDS[request.kind];
  const codex = {
    ...(request.thread_id ? { threadId: request.thread_id } : {}),
    ...(request.turn_id ? { turnId: request.turn_id } : {}),
    requestId: request.request_id,
    ...(request.item_id ? { itemId: request.item_id } : {}),
  };
  const payload: Record<string, unknown> = { ...request };
  return {
    kind,
    source: { name: source, ...(project ? { project } : {}) },
    codex,
    title: titleOf(kind, payload),
    payload,
    actions: actionsOf(kind),
  };
}

/** The actions an interaction kind allows (its `actions` when created, else the kind's). */
export function actionsOf(kind: InteractionKind): ResponseAction[] {
  return [...ACTIONS[kind]];
}

/** The decision a response stands for, for the request it answers. Throws `invalid_response`. */
export function decisionFor(
  request: BridgedRequest,
  response: Pick<InteractionResponse, "action" | "values">,
): BridgedDecision {
  const values = response.values ?? {};
  const { action } = response;
  if (action === "decline") return "decline";
  if (action === "cancel") {
    return request.kind === "permissions" ? "decline" : "cancel";
  }
  switch (request.kind) {
    case "commandExecution":
    case "fileChange": {
      if (action !== "accept")
        throw invalidResponse(`answer an approval with "accept" or "decline"`);
      if (values.scope === undefined || values.scope === "once") return "accept";
      if (values.scope === "session") return "acceptForSession";
      throw invalidResponse(
        `values.scope is "once" or "session", not ${JSON.stringify(values.scope)}`,
      );
    }
    case "permissions": {
      if (action !== "accept") throw invalidResponse(`answer with "accept" or "decline"`);
      const scope = values.scope ?? "turn";
      if (scope !== "turn" && scope !== "session") {
        throw invalidResponse(`values.scope is "turn" or "session", not ${JSON.stringify(scope)}`);
      }
      // A payload not made by the bridge may lack what it asks for: say so, rather than crash.
      const problem = fieldsProblem(
        request.permissions,
        PAYLOAD_FIELDS.parts.permissions,
        "payload.permissions",
      );
      if (problem)
        throw invalidResponse(
          `${problem}, so there is nothing to grant; answer "decline" or "cancel"`,
        );
      const asked = request.permissions;
      return {
        grant: {
          ...(asked.network ? { network: asked.network } : {}),
          ...(asked.file_system ? { fileSystem: asked.file_system } : {}),
        },
        scope,
      };
    }
    case "userInput": {
      const problem =
        fieldsProblem(request, { questions: "array" }, "payload", ["questions"]) ||
        listProblem(request.questions, { id: "string" }, "payload.questions", ["id"]);
      if (problem)
        throw invalidResponse(
          `${problem}, so there is nothing to answer; answer "decline" or "cancel"`,
        );
      return { answers: answersOf(request.questions, action, values) };
    }
    case "elicitation": {
      if (action !== "accept") throw invalidResponse(`answer with "accept", "decline" or "cancel"`);
      // values came from a JSON body, so its content is JSON.
      return { accept: (values.content ?? {}) as JsonValue };
    }
  }
  throw invalidResponse(
    `requests of kind ${(request as { kind: string }).kind} are not answered through channels`,
  );
}

/**
 * The answers of a user-input response: `values.answers` ({questionId: string | string[]}), or for
 * a single question `values.text` / `values.answer`.
 */
function answersOf(
  questions: { id: string }[],
  action: ResponseAction,
  values: Record<string, unknown>,
): Record<string, string[]> {
  if (action !== "text" && action !== "accept") {
    throw invalidResponse(`answer questions with "text" (values.answers or values.text)`);
  }
  const given = values.answers;
  if (given !== undefined) {
    if (typeof given !== "object" || given === null || Array.isArray(given)) {
      throw invalidResponse(
        "values.answers maps each question id to a string or a list of strings",
      );
    }
    const answers: Record<string, string[]> = {};
    for (const question of questions) {
      const answer = (given as Record<string, unknown>)[question.id];
      if (answer === undefined)
        throw invalidResponse(`values.answers has no answer for "${question.id}"`);
      const list = Array.isArray(answer) ? answer : [answer];
      if (!list.every((entry) => typeof entry === "string")) {
        throw invalidResponse(
          `the answer to "${question.id}" must be a string or a list of strings`,
        );
      }
      answers[question.id] = list as string[];
    }
    return answers;
  }
  const text = values.text ?? values.answer;
  if (typeof text === "string" && questions.length === 1 && questions[0]) {
    return { [questions[0].id]: [text] };
  }
  throw invalidResponse(
    questions.length === 1
      ? "give the answer as values.text"
      : `give values.answers with an answer for each of ${questions.map((q) => `"${q.id}"`).join(", ")}`,
  );
}

/** The `invalid_response` error, saying what is wrong with a response. */
export function invalidResponse(message: string): CodexHarnessError {
  return new CodexHarnessError("invalid_response", `Invalid response: ${message}.`);
}
