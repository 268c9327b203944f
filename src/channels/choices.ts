// What a person can answer to each kind of interaction, and the words for how one ended: one table
// for the web inbox (which embeds it and these functions' source, so they use nothing but each
// other) and for the chat backends.
import type { Interaction, InteractionKind, ResponseAction } from "./interaction-types.js";

/** One answer a person can pick: its button, what it sends, and the history's words for it. */
export interface Choice {
  label: string;
  /** The inbox's key for it. */
  key: string;
  action: ResponseAction;
  /** The response's `values` (absent for choices whose values are typed in: answers, a form). */
  values?: Record<string, unknown>;
  /** The `values.scope`s a response of this choice has (`"default"`: none given). */
  scopes?: string[];
  /** The answers to the questions are typed or picked (`values.answers`). */
  answers?: true;
  /** The answer is a form's content (`values.content`). */
  form?: true;
  style?: "primary" | "danger";
  /** The history's words, e.g. "Accepted for this session". */
  done: string;
}

const DECLINE: Choice = {
  label: "Decline",
  key: "d",
  action: "decline",
  style: "danger",
  done: "Declined",
};
const INTERRUPT: Choice = {
  label: "Interrupt the turn",
  key: "i",
  action: "cancel",
  done: "Declined and interrupted the turn",
};

/** The choices of each kind, in the order they are shown. */
export const CHOICES: Readonly<Record<InteractionKind, readonly Choice[]>> = {
  approval_request: [
    {
      label: "Accept",
      key: "a",
      action: "accept",
      values: {},
      scopes: ["default", "once"],
      style: "primary",
      done: "Accepted",
    },
    {
      label: "Accept for this session",
      key: "s",
      action: "accept",
      values: { scope: "session" },
      scopes: ["session"],
      done: "Accepted for this session",
    },
    DECLINE,
    INTERRUPT,
  ],
  permissions_request: [
    {
      label: "Grant for this turn",
      key: "a",
      action: "accept",
      values: { scope: "turn" },
      scopes: ["default", "turn"],
      style: "primary",
      done: "Granted for this turn",
    },
    {
      label: "Grant for this session",
      key: "s",
      action: "accept",
      values: { scope: "session" },
      scopes: ["session"],
      done: "Granted for this session",
    },
    DECLINE,
  ],
  user_input_request: [
    {
      label: "Answer",
      key: "a",
      action: "text",
      answers: true,
      style: "primary",
      done: "Answered",
    },
    DECLINE,
    INTERRUPT,
  ],
  elicitation_request: [
    {
      label: "Submit",
      key: "a",
      action: "accept",
      form: true,
      style: "primary",
      done: "Submitted",
    },
    DECLINE,
    INTERRUPT,
  ],
  progress_update: [
    {
      label: "Acknowledge",
      key: "a",
      action: "accept",
      values: {},
      style: "primary",
      done: "Acknowledged",
    },
  ],
};

/** The history's words for an action no choice of the kind stands for. */
export const DONE: Readonly<Record<string, string>> = {
  accept: "Accepted",
  decline: "Declined",
  cancel: "Interrupted the turn",
  text: "Answered",
};

type Shown = Pick<Interaction, "kind" | "actions">;

/** The choices an interaction offers: its kind's, among the actions it allows. */
export function choicesOf(interaction: Shown): Choice[] {
  const allowed = new Set(interaction.actions || []);
  return (CHOICES[interaction.kind] || CHOICES.progress_update).filter((choice) =>
    allowed.has(choice.action),
  );
}

/**
 * The choices that accept nothing (Decline, Interrupt the turn), among the actions it allows: all
 * the inbox offers for a request it cannot show in full.
 */
export function refusalsOf(interaction: Shown): Choice[] {
  return choicesOf(interaction).filter(
    (choice) => choice.action === "decline" || choice.action === "cancel",
  );
}

/** The choice a response stands for, if one does. */
export function chosenOf(
  interaction: Shown,
  response: { action: string; values?: Record<string, unknown> | undefined },
): Choice | undefined {
  const given = response.values ? response.values.scope : undefined;
  const scope = given === undefined ? "default" : String(given);
  return choicesOf(interaction).find(
    (choice) =>
      choice.action === response.action && (!choice.scopes || choice.scopes.includes(scope)),
  );
}

/**
 * How an interaction ended, in words without a time: "Accepted for this session by alice",
 * "Withdrawn by codex (…)", "Expired: nobody answered in time"; undefined while it is open.
 */
export function outcomeWords(
  interaction: Shown & Partial<Pick<Interaction, "response" | "end">>,
): string | undefined {
  const response = interaction.response;
  if (response) {
    // Who the runtime authenticated; what the client wrote only for answers from before it did.
    const meta = (response.metadata || {}) as Record<string, unknown>;
    const who = [
      response.answeredByName,
      response.answeredBy,
      meta.answeredBy,
      meta.user,
      meta.by,
    ].find((value) => typeof value === "string" && value);
    const chosen = chosenOf(interaction, response);
    return (
      (chosen ? chosen.done : DONE[response.action] || response.action) + (who ? ` by ${who}` : "")
    );
  }
  const end = interaction.end;
  if (!end) return undefined;
  if (end.reason === "cleared") return "Withdrawn by codex (answered elsewhere, or the turn ended)";
  if (end.reason === "timeout") return "Expired: nobody answered in time";
  return (
    (end.reason === "cancelled" ? "Cancelled" : `Ended (${end.reason})`) +
    (end.message ? `: ${end.message}` : "")
  );
}

/**
 * How a command or a file change ended, in words, from the payload of its item's progress update
 * (`progressOf` in progress.ts): "The command ran (exit 0)", "The command failed (exit 2)", "The change was
 * declined"; undefined for other updates.
 */
export function itemEndWords(payload: Record<string, unknown>): string | undefined {
  const exit = typeof payload.exitCode === "number" ? ` (exit ${payload.exitCode})` : "";
  const words: Record<string, Record<string, string>> = {
    command: {
      completed: `The command ran${exit}`,
      failed: `The command failed${exit}`,
      declined: "The command was declined",
    },
    file_change: {
      completed: "The change was applied",
      failed: "The change failed",
      declined: "The change was declined",
    },
  };
  const event = words[String(payload.event)];
  return event && Object.hasOwn(event, String(payload.status))
    ? event[String(payload.status)]
    : undefined;
}
