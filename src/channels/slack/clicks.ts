// What a person does in Slack (a `block_actions` click, or a `view_submission` of the answer modal;
// from the HTTP endpoint or socket mode): who it is, whether they may answer, and the answer
// through the runtime (the first answer wins).

import { answerOf, interactionIdOf } from "../chat/message.js";
import {
  type ChatAnswerer,
  type ChatPeople,
  chatAnswerer,
  notAllowed,
  routingRefusal,
} from "../chat/people.js";
import { outcomeWords } from "../choices.js";
import { ChannelsError } from "../errors.js";
import type { Interaction } from "../interaction-types.js";
import type { Person } from "../people-types.js";
import {
  answerModal,
  type SlackSubmissionPayload,
  submittedAnswers,
  TYPE_ANSWER_ACTION,
  typedQuestions,
} from "./answer-modal.js";

/** The parts of Slack's `block_actions` payload a click needs. */
export interface SlackClickPayload {
  type?: string;
  trigger_id?: string;
  user?: { id?: string };
  actions?: { action_id?: string; value?: string }[];
  container?: { channel_id?: string; message_ts?: string };
  channel?: { id?: string };
  message?: { ts?: string };
}

/**
 * What a click did (`modal`: the answer modal was opened; `refused`: the clicker may not answer,
 * by the allow-list and the links or by the request's routing, and was told why).
 */
export type ClickOutcome = "answered" | "refused" | "late" | "ignored" | "invalid" | "modal";

/** What {@link handleClick} needs from the backend. */
export interface ClickDeps {
  /** The allow-list. */
  people: ChatPeople;
  /** The person a platform user is linked to, read now (the backend context's). */
  linkedPerson(platformUser: string): Promise<Person | undefined>;
  get(id: string): Promise<Interaction>;
  respond(id: string, answer: ClickAnswer): Promise<Interaction>;
  /** Tells only the clicker (an ephemeral message). */
  tell(where: { channel: string; user: string }, text: string): Promise<void>;
  /** Remembers where an interaction's message is (so its end can update it). */
  remember(id: string, where: { channel: string; ts: string }): void;
  /** Shows an ended interaction's outcome in its message. */
  refresh(interaction: Interaction, where: { channel: string; ts: string }): Promise<void>;
  /** Opens a modal for the clicker (`views.open` with the click's trigger id). */
  openModal(triggerId: string, view: ReturnType<typeof answerModal>): Promise<void>;
}

/** The response a click sends: the button's answer, and who gave it (recorded as `answeredBy`). */
export interface ClickAnswer {
  action: Interaction["actions"][number];
  values?: Record<string, unknown>;
  metadata: { via: "slack"; slackUser: string };
  /**
   * `slack:<user id>`, and the name the allow-list gives them (or their linked person's name: the
   * runtime answers as that person).
   */
  answerer: ChatAnswerer;
}

/**
 * Handles a click or a modal's submission: answers as the clicker (on the allow-list, or linked to
 * a person), or tells them why not.
 */
export async function handleClick(
  payload: SlackClickPayload | SlackSubmissionPayload,
  deps: ClickDeps,
): Promise<ClickOutcome> {
  if (payload.type === "view_submission") {
    return handleSubmission(payload as SlackSubmissionPayload, deps);
  }
  const click = payload as SlackClickPayload;
  const action = click.actions?.[0];
  const typing = action?.action_id === TYPE_ANSWER_ACTION;
  const data = typing ? action?.value : (action?.value ?? action?.action_id);
  const user = click.user?.id;
  const channel = click.container?.channel_id ?? click.channel?.id;
  const ts = click.container?.message_ts ?? click.message?.ts;
  const id = data === undefined ? undefined : typing ? data : interactionIdOf(data);
  if (click.type !== "block_actions" || !data || !id || !user || !channel) return "ignored";
  const where = { channel, user };
  const person = await personAndInteraction(deps, where, id);
  if (typeof person === "string") return person;
  const { answerer, interaction } = person;
  if (ts) deps.remember(id, { channel, ts });
  if (typing) {
    if (typedQuestions(interaction).length === 0 || !click.trigger_id) return "invalid";
    await deps.openModal(
      click.trigger_id,
      answerModal(interaction, { id, channel, ...(ts ? { ts } : {}) }),
    );
    return "modal";
  }
  const answer = answerOf(interaction, data, "slack");
  if (!answer) {
    await deps.tell(where, "This button does not answer this interaction; nothing was sent.");
    return "invalid";
  }
  return answerAs(deps, { id, channel, ts }, user, answerer, answer);
}

/** A submitted answer modal: its text fields answer the questions (`values.answers`). */
async function handleSubmission(
  payload: SlackSubmissionPayload,
  deps: ClickDeps,
): Promise<ClickOutcome> {
  const submitted = submittedAnswers(payload);
  const user = payload.user?.id;
  if (!submitted || !user) return "ignored";
  const { origin, answers } = submitted;
  const person = await personAndInteraction(deps, { channel: origin.channel, user }, origin.id);
  if (typeof person === "string") return person;
  return answerAs(deps, origin, user, person.answerer, {
    action: "text",
    values: { answers },
  });
}

/** Who the clicker answers as and the interaction, or why there is nothing to answer (they were told). */
async function personAndInteraction(
  deps: ClickDeps,
  where: { channel: string; user: string },
  id: string,
): Promise<{ answerer: ChatAnswerer; interaction: Interaction } | ClickOutcome> {
  const answerer = await chatAnswerer(deps.people, "slack", where.user, deps.linkedPerson);
  if (answerer === undefined) {
    await deps.tell(where, notAllowed("Slack", `slack:${where.user}`));
    return "refused";
  }
  try {
    return { answerer, interaction: await deps.get(id) };
  } catch (error) {
    if (!(error instanceof ChannelsError && error.code === "not_found")) throw error;
    await deps.tell(where, "codex-harness does not know this interaction (any more).");
    return "invalid";
  }
}

/**
 * Sends the answer; when someone answered first, tells the clicker who and shows the outcome; when
 * the request's routing refuses them, tells them why.
 */
async function answerAs(
  deps: ClickDeps,
  origin: { id: string; channel: string; ts?: string | undefined },
  user: string,
  answerer: ChatAnswerer,
  answer: Pick<ClickAnswer, "action" | "values">,
): Promise<ClickOutcome> {
  try {
    await deps.respond(origin.id, {
      ...answer,
      metadata: { via: "slack", slackUser: user },
      answerer,
    });
    return "answered";
  } catch (error) {
    const refusal = routingRefusal(error);
    if (refusal !== undefined) {
      await deps.tell({ channel: origin.channel, user }, refusal);
      return "refused";
    }
    if (!(error instanceof ChannelsError && error.code === "conflict")) throw error;
  }
  const ended = await deps.get(origin.id);
  await deps.tell(
    { channel: origin.channel, user },
    `Your answer was not taken: ${outcomeWords(ended) ?? ended.status}.`,
  );
  if (origin.ts) await deps.refresh(ended, { channel: origin.channel, ts: origin.ts });
  return "late";
}
