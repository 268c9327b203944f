// What ACP's permission requests cannot ask, asked as a form (`elicitation/create`) when the
// editor says it renders forms: codex's questions with their "Other" answer typed in, and an MCP
// server's form with fields.
// A secret is never asked this way (a form shows what is typed); nor is anything when the editor
// offers no forms: those are left to the next handler (channels, or the default decline).
import type * as acp from "@agentclientprotocol/sdk";
import type {
  ElicitationDecision,
  ElicitationRequest,
} from "../events/server-requests/elicitation.js";
import type { UserInputDecision, UserInputRequest } from "../events/server-requests/user-input.js";
import type { JsonValue } from "../protocol/generated/ts/serde_json/JsonValue.js";

/** Sends `elicitation/create` to the editor and resolves with its answer. */
export type AskForm = (
  request: acp.CreateElicitationRequest,
  signal: AbortSignal,
) => Promise<acp.CreateElicitationResponse>;

/** The field beside a question's choice where "Other" is typed (codex offers it on every question). */
export const OTHER_SUFFIX = "__other";
const OTHER = "Other";

/**
 * codex's questions as one form: a choice per question among its options — and "Other", with a
 * field to type it in, where codex allows any answer (it does on every question it asks).
 */
export async function askQuestions(
  request: UserInputRequest,
  sessionId: string,
  ask: AskForm,
  signal: AbortSignal,
): Promise<UserInputDecision | undefined> {
  if (request.questions.some((question) => question.is_secret)) return undefined;
  const properties: Record<string, acp.ElicitationPropertySchema> = {};
  for (const question of request.questions) {
    const labels = question.options?.map((option) => option.label) ?? [];
    const choices = question.is_other ? [...labels, OTHER] : labels;
    properties[question.id] = {
      type: "string",
      title: question.header || question.question,
      description: question.question,
      ...(choices.length > 0 ? { enum: choices } : {}),
    };
    if (question.is_other && labels.length > 0) {
      properties[`${question.id}${OTHER_SUFFIX}`] = {
        type: "string",
        title: `${question.header || "Answer"}: other`,
        description: `Your own answer, when you chose ${OTHER}`,
      };
    }
  }
  const response = await ask(
    {
      mode: "form",
      sessionId,
      ...(request.item_id ? { toolCallId: request.item_id } : {}),
      message: request.questions.map((question) => question.question).join("\n"),
      requestedSchema: {
        type: "object",
        properties,
        required: request.questions.map((question) => question.id),
      },
    },
    signal,
  );
  if (response.action === "cancel") return "cancel";
  if (response.action !== "accept") return "decline";
  const content = (("content" in response ? response.content : null) ?? {}) as Record<
    string,
    unknown
  >;
  const answers: Record<string, string[]> = {};
  for (const question of request.questions) {
    const chosen = content[question.id];
    const answer =
      chosen === OTHER && question.is_other ? content[`${question.id}${OTHER_SUFFIX}`] : chosen;
    // Nothing chosen, or Other with nothing typed: not an answer, so declined.
    if (typeof answer !== "string" || answer.trim() === "") return "decline";
    answers[question.id] = [answer];
  }
  return { answers };
}

/**
 * How many fields an MCP elicitation's form has (0: a yes/no question, such as codex's approval
 * of an MCP tool call), or undefined when it is not a form (a URL to open).
 */
export function formFields(request: ElicitationRequest): number | undefined {
  if (request.mode !== "form") return undefined;
  const schema = request.requested_schema as { properties?: Record<string, unknown> } | null;
  return Object.keys(schema?.properties ?? {}).length;
}

/** An MCP server's form, as the server wrote it, and the editor's answer passed back. */
export async function askMcpForm(
  request: ElicitationRequest,
  sessionId: string,
  ask: AskForm,
  signal: AbortSignal,
): Promise<ElicitationDecision> {
  const response = await ask(
    {
      mode: "form",
      sessionId,
      message: request.message ?? `The MCP server ${request.server_name} asks:`,
      requestedSchema: request.requested_schema as acp.ElicitationSchema,
    },
    signal,
  );
  if (response.action === "cancel") return "cancel";
  if (response.action !== "accept") return "decline";
  return { accept: (("content" in response ? response.content : null) ?? {}) as JsonValue };
}
