// An interaction as a Slack message: Block Kit built from the shared chat message (a section with
// the title, one with the details, buttons while it is open, with the approvals so far when it
// needs several, the outcome once it ended).

import { chatMessage, needsTyping, TYPE_ELSEWHERE } from "../chat/message.js";
import { escapeMrkdwn } from "../chat/rooms.js";
import type { Interaction } from "../interaction-types.js";
import { offersModal, TYPE_ANSWER_ACTION } from "./answer-modal.js";

/** The Block Kit blocks we send (the subset of Slack's block types we use). */
export type SlackBlock =
  | { type: "section"; text: { type: "mrkdwn"; text: string } }
  | { type: "context"; elements: { type: "mrkdwn"; text: string }[] }
  | { type: "actions"; block_id: string; elements: SlackButton[] };

/** A Block Kit button: `action_id` and `value` both carry the chat button's data. */
export interface SlackButton {
  type: "button";
  text: { type: "plain_text"; text: string };
  action_id: string;
  value: string;
  style?: "primary" | "danger";
}

/** What `chat.postMessage` / `chat.update` get besides the channel: fallback text and blocks. */
export interface SlackMessage {
  text: string;
  blocks: SlackBlock[];
}

export { escapeMrkdwn, TYPE_ELSEWHERE };

/** Slack's limits: section text 3,000 characters, button text 75, an actions block 25 elements. */
const SECTION_MAX = 3_000;
const BUTTON_TEXT_MAX = 75;
const BUTTONS_MAX = 25;

/**
 * The message for an interaction as it is now (buttons while open, the outcome once ended): the
 * title in a section, the details in one of their own (what fits them is `CHAT_ROOMS.slack`).
 */
export function slackMessage(interaction: Interaction): SlackMessage {
  const message = chatMessage(interaction, "slack");
  const section = (text: string): SlackBlock => ({
    type: "section",
    text: { type: "mrkdwn", text: clip(text, SECTION_MAX) },
  });
  const blocks: SlackBlock[] = [section(`*${escapeMrkdwn(message.title)}*`)];
  if (message.details.length > 0)
    blocks.push(section(message.details.map(escapeMrkdwn).join("\n")));
  if (message.buttons.length > 0) {
    blocks.push({
      type: "actions",
      block_id: `codex-harness:${interaction.id}`.slice(0, 255),
      elements: message.buttons.slice(0, BUTTONS_MAX).map((button) => ({
        type: "button",
        text: { type: "plain_text", text: clip(button.label, BUTTON_TEXT_MAX) },
        action_id: button.data,
        value: button.data,
        ...(button.style ? { style: button.style } : {}),
      })),
    });
    const typing = needsTyping(interaction, message.buttons.length, "slack");
    if (offersModal(interaction, !typing)) {
      // Typed answers (besides the options, or to questions no button answers): a modal.
      const elements = (blocks.at(-1) as Extract<SlackBlock, { type: "actions" }>).elements;
      // After the options, before Decline (the first danger button).
      const at = elements.findIndex((button) => button.style === "danger");
      elements.splice(at === -1 ? elements.length : at, 0, {
        type: "button",
        text: { type: "plain_text", text: "Type an answer" },
        action_id: TYPE_ANSWER_ACTION,
        value: interaction.id,
      });
    } else if (typing) {
      blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: TYPE_ELSEWHERE }] });
    }
  }
  if (message.progress !== undefined) {
    blocks.push({
      type: "context",
      elements: [{ type: "mrkdwn", text: escapeMrkdwn(message.progress) }],
    });
  }
  if (message.outcome !== undefined) {
    blocks.push({
      type: "context",
      elements: [{ type: "mrkdwn", text: escapeMrkdwn(message.outcome) }],
    });
  }
  const text =
    message.outcome === undefined ? message.title : `${message.title}: ${message.outcome}`;
  return { text: clip(text, SECTION_MAX), blocks };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
