// A button click from Discord (a signed MESSAGE_COMPONENT interaction): who clicked, whether they
// may answer, the answer through the runtime (the first answer wins), and the interaction
// response Discord shows — all within Discord's 3 seconds.
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
import { type DiscordMessage, discordMessage } from "./message.js";

/** The parts of Discord's component interaction a click needs. */
export interface DiscordClickPayload {
  type?: number;
  data?: { custom_id?: string; component_type?: number };
  member?: { user?: { id?: string } };
  user?: { id?: string };
  channel_id?: string;
  message?: { id?: string; channel_id?: string };
}

/** An interaction response: 4 a (here ephemeral) message, 6 a deferred update, 7 an update. */
export type DiscordReply =
  | { type: 4; data: { content: string; flags: 64 } }
  | { type: 6 }
  | { type: 7; data: DiscordMessage };

/**
 * What a click did (`refused`: the clicker may not answer, by the allow-list and the links or by
 * the request's routing, and was told why).
 */
export type ClickOutcome = "answered" | "refused" | "late" | "ignored" | "invalid";

/** Where a message is. */
export interface Where {
  channelId: string;
  messageId: string;
}

/** What {@link handleClick} needs from the backend. */
export interface ClickDeps {
  /** The allow-list. */
  people: ChatPeople;
  /** The person a platform user is linked to, read now (the backend context's). */
  linkedPerson(platformUser: string): Promise<Person | undefined>;
  get(id: string): Promise<Interaction>;
  respond(id: string, answer: ClickAnswer): Promise<Interaction>;
  /** Remembers where an interaction's message is (so its end can update it). */
  remember(id: string, where: Where): void;
  /** Shows an ended interaction's outcome in its message (in the background). */
  refresh(interaction: Interaction, where: Where): void;
  /** How long the answer may take before the reply is a deferred update (Discord waits 3 s). */
  answerWithinMs: number;
}

/** The response a click sends: the button's answer and who gave it. */
export interface ClickAnswer {
  action: Interaction["actions"][number];
  values?: Record<string, unknown>;
  metadata: { via: "discord"; discordUserId: string };
  /**
   * `discord:<user id>`, and the name the allow-list gives them (recorded as `answeredBy`), or
   * their linked person's name (the runtime answers as that person).
   */
  answerer: ChatAnswerer;
}

/** A click's reply (sent at once) and what the click did (known later when the answer is slow). */
export interface ClickResult {
  reply: DiscordReply;
  outcome: Promise<ClickOutcome>;
}

/** An ephemeral message: only the clicker sees it. */
export const tellOnly = (content: string): DiscordReply => ({
  type: 4,
  data: { content, flags: 64 },
});

const now = (reply: DiscordReply, outcome: ClickOutcome): ClickResult => ({
  reply,
  outcome: Promise.resolve(outcome),
});

/**
 * Handles a click: answers as the clicker (on the allow-list, or linked to a person), or tells
 * them why not.
 */
export async function handleClick(
  payload: DiscordClickPayload,
  deps: ClickDeps,
): Promise<ClickResult> {
  const data = payload.data?.custom_id;
  const user = payload.member?.user?.id ?? payload.user?.id;
  const channelId = payload.channel_id ?? payload.message?.channel_id;
  const messageId = payload.message?.id;
  const id = data === undefined ? undefined : interactionIdOf(data);
  if (!data || !id || !user) {
    return now(
      tellOnly("That button is not one of codex-harness's; nothing was answered."),
      "ignored",
    );
  }
  const answerer = await chatAnswerer(deps.people, "discord", user, deps.linkedPerson);
  if (answerer === undefined) {
    return now(tellOnly(notAllowed("Discord", `discord:${user}`)), "refused");
  }
  let interaction: Interaction;
  try {
    interaction = await deps.get(id);
  } catch (error) {
    if (!(error instanceof ChannelsError && error.code === "not_found")) throw error;
    return now(tellOnly("codex-harness does not know this interaction (any more)."), "invalid");
  }
  const where = channelId && messageId ? { channelId, messageId } : undefined;
  if (where) deps.remember(id, where);
  const answer = answerOf(interaction, data, "discord");
  if (!answer) {
    return now(
      tellOnly("This button does not answer this interaction; nothing was sent."),
      "invalid",
    );
  }
  const answering = deps
    .respond(id, {
      ...answer,
      metadata: { via: "discord", discordUserId: user },
      answerer,
    })
    .then(
      (done) => ({ done }),
      (error: unknown) => ({ error }),
    );
  let timer: NodeJS.Timeout | undefined;
  const first = await Promise.race([
    answering,
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), deps.answerWithinMs);
    }),
  ]);
  clearTimeout(timer);
  if (first === undefined) {
    // Slow: acknowledge now; the message changes when the runtime delivers the end (or below).
    const outcome = answering.then(async (result) => {
      if ("done" in result) return "answered" as const;
      return (await late(id, result.error, where, deps)).outcome;
    });
    return { reply: { type: 6 }, outcome };
  }
  if ("done" in first) {
    return now({ type: 7, data: discordMessage(first.done) }, "answered");
  }
  const { reply, outcome } = await late(id, first.error, where, deps);
  return now(reply, outcome);
}

/**
 * After a refused answer, told to the clicker only: why the request's routing refused it, or who
 * answered first (a conflict).
 */
async function late(
  id: string,
  error: unknown,
  where: Where | undefined,
  deps: ClickDeps,
): Promise<{ reply: DiscordReply; outcome: ClickOutcome }> {
  const refusal = routingRefusal(error);
  if (refusal !== undefined) return { reply: tellOnly(refusal), outcome: "refused" };
  if (!(error instanceof ChannelsError && error.code === "conflict")) throw error;
  const ended = await deps.get(id);
  if (where) deps.refresh(ended, where);
  return {
    reply: tellOnly(`Your answer was not taken: ${outcomeWords(ended) ?? ended.status}.`),
    outcome: "late",
  };
}
