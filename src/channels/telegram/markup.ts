// An interaction as a Telegram message: HTML text (title, details, how to answer, how it ended)
// and an inline keyboard of the shared chat buttons.
import type { InlineKeyboardButton, InlineKeyboardMarkup } from "grammy/types";
import { chatMessage, chatUnshownReason } from "../chat/message.js";
import { CHAT_ROOMS } from "../chat/rooms.js";
import type { Interaction } from "../interaction-types.js";

/**
 * The details' share of Telegram's 4,096 characters (counted after the HTML is parsed): the rest
 * is room for the title, the hint and the outcome (300 characters each at most).
 */
const MAX_DETAILS = CHAT_ROOMS.telegram.max;

/** `text` safe inside Telegram's HTML parse mode. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The number of questions an interaction asks (`payload.questions`). */
export function questionCount(interaction: Interaction): number {
  const questions = interaction.payload.questions;
  return Array.isArray(questions) ? questions.length : 0;
}

/** Whether a reply to the message can answer it: a single question that takes text. */
export function answersByReply(interaction: Interaction): boolean {
  // What the message cannot show in full takes only a refusal: no reply to type.
  if (chatUnshownReason(interaction, "telegram") !== undefined) return false;
  return interaction.actions.includes("text") && questionCount(interaction) === 1;
}

/** What to do besides the buttons, while the interaction is open. */
function hintOf(interaction: Interaction): string | undefined {
  if (chatUnshownReason(interaction, "telegram") !== undefined) return undefined;
  if (answersByReply(interaction)) return "Reply to this message to answer in your own words.";
  if (interaction.kind === "user_input_request") return "Answer the questions in the inbox.";
  if (interaction.kind === "elicitation_request") return "Fill in the form in the inbox.";
  return undefined;
}

/**
 * The message's text (HTML parse mode): the title in bold, the details (the command in `code`),
 * then while open a hint for what the buttons cannot answer and the accepts so far of a request
 * that needs several ("1 of 2 approvals (Alice)"), and once ended the outcome in bold
 * ("Accepted by alice"). Always under Telegram's 4,096 characters.
 */
export function messageText(interaction: Interaction): string {
  const message = chatMessage(interaction, "telegram");
  const lines = [`<b>${escapeHtml(clip(message.title, 300))}</b>`];
  // Details that fit (CHAT_ROOMS.telegram: each line and its break) are all there, uncut; of
  // others, the start, cut where the room ends.
  let room = MAX_DETAILS;
  for (const detail of message.details) {
    if (room <= 0) break;
    const line = detail.length < room ? detail : clip(detail, Math.max(room - 1, 1));
    room -= line.length + 1;
    lines.push(line.startsWith("$ ") ? `<code>${escapeHtml(line)}</code>` : escapeHtml(line));
  }
  const hint = message.outcome === undefined ? hintOf(interaction) : undefined;
  if (hint) lines.push("", `<i>${escapeHtml(hint)}</i>`);
  if (message.progress !== undefined) {
    lines.push("", `<i>${escapeHtml(clip(message.progress, 300))}</i>`);
  }
  if (message.outcome !== undefined) {
    lines.push("", `<b>${escapeHtml(clip(message.outcome, 300))}</b>`);
  }
  return lines.join("\n");
}

/** The inline keyboard of an open interaction: one button a row; empty once it ended. */
export function keyboardOf(interaction: Interaction): InlineKeyboardMarkup {
  return {
    inline_keyboard: chatMessage(interaction, "telegram").buttons.map(
      (button): InlineKeyboardButton[] => [
        {
          text: button.label,
          callback_data: button.data,
          ...(button.style ? { style: button.style } : {}),
        },
      ],
    ),
  };
}
