// A button click from Slack (a `block_actions` payload, from the HTTP endpoint or socket mode): who
// clicked, whether they may answer, and the answer through the runtime (the first answer wins).

import { answerOf, interactionIdOf } from "../chat/message.js";
import { type ChatPeople, notAllowed } from "../chat/people.js";
import { outcomeWords } from "../choices.js";
import { ChannelsError } from "../errors.js";
import type { Interaction } from "../interaction-types.js";

/** The parts of Slack's `block_actions` payload a click needs. */
export interface SlackClickPayload {
  type?: string;
  user?: { id?: string };
  actions?: { action_id?: string; value?: string }[];
  container?: { channel_id?: string; message_ts?: string };
  channel?: { id?: string };
  message?: { ts?: string };
}

/** What a click did. */
export type ClickOutcome = "answered" | "refused" | "late" | "ignored" | "invalid";

/** What {@link handleClick} needs from the backend. */
export interface ClickDeps {
  people: ChatPeople;
  get(id: string): Promise<Interaction>;
  respond(id: string, answer: ClickAnswer): Promise<Interaction>;
  /** Tells only the clicker (an ephemeral message). */
  tell(where: { channel: string; user: string }, text: string): Promise<void>;
  /** Remembers where an interaction's message is (so its end can update it). */
  remember(id: string, where: { channel: string; ts: string }): void;
  /** Shows an ended interaction's outcome in its message. */
  refresh(interaction: Interaction, where: { channel: string; ts: string }): Promise<void>;
}

/** The response a click sends: the button's answer and who gave it. */
export interface ClickAnswer {
  action: Interaction["actions"][number];
  values?: Record<string, unknown>;
  metadata: { answeredBy: string; via: "slack"; slackUser: string };
}

/** Handles a click: answers as the mapped person, or tells the clicker why not. */
export async function handleClick(
  payload: SlackClickPayload,
  deps: ClickDeps,
): Promise<ClickOutcome> {
  const data = payload.actions?.[0]?.value ?? payload.actions?.[0]?.action_id;
  const user = payload.user?.id;
  const channel = payload.container?.channel_id ?? payload.channel?.id;
  const ts = payload.container?.message_ts ?? payload.message?.ts;
  const id = data === undefined ? undefined : interactionIdOf(data);
  if (payload.type !== "block_actions" || !data || !id || !user || !channel) return "ignored";
  const where = { channel, user };
  const name = deps.people.get(user);
  if (name === undefined) {
    await deps.tell(where, notAllowed("Slack"));
    return "refused";
  }
  let interaction: Interaction;
  try {
    interaction = await deps.get(id);
  } catch (error) {
    if (!(error instanceof ChannelsError && error.code === "not_found")) throw error;
    await deps.tell(where, "codex-harness does not know this interaction (any more).");
    return "invalid";
  }
  if (ts) deps.remember(id, { channel, ts });
  const answer = answerOf(interaction, data);
  if (!answer) {
    await deps.tell(where, "This button does not answer this interaction; nothing was sent.");
    return "invalid";
  }
  try {
    await deps.respond(id, {
      ...answer,
      metadata: { answeredBy: name, via: "slack", slackUser: user },
    });
    return "answered";
  } catch (error) {
    if (!(error instanceof ChannelsError && error.code === "conflict")) throw error;
  }
  const ended = await deps.get(id);
  await deps.tell(where, `Your answer was not taken: ${outcomeWords(ended) ?? ended.status}.`);
  if (ts) await deps.refresh(ended, { channel, ts });
  return "late";
}
