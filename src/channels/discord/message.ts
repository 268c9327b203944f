// An interaction as a Discord message: markdown content built from the shared chat message (the
// title in bold, the details, the accepts so far of a request that needs several, how it ended)
// and action rows of the shared buttons while it is open.
import { chatMessage, needsTyping, TYPE_ELSEWHERE } from "../chat/message.js";
import { escapeMarkdown } from "../chat/rooms.js";
import type { Interaction } from "../interaction-types.js";

export { escapeMarkdown };

/** A message button (component type 2): `custom_id` carries the chat button's data. */
export interface DiscordButton {
  type: 2;
  /** 1 primary, 2 secondary, 4 danger. */
  style: 1 | 2 | 4;
  label: string;
  custom_id: string;
}

/** An action row (component type 1): at most five buttons. */
export interface DiscordActionRow {
  type: 1;
  components: DiscordButton[];
}

/** What `POST /channels/{id}/messages` and the edits of it send. */
export interface DiscordMessage {
  content: string;
  components: DiscordActionRow[];
  /** Nothing in a title or a command pings anyone. */
  allowed_mentions: { parse: [] };
}

/** Discord's limits: content 2,000 characters, a label 80, five buttons a row, five rows. */
const CONTENT_MAX = 2_000;
const TITLE_MAX = 256;
const LABEL_MAX = 80;
const PER_ROW = 5;
const ROWS_MAX = 5;

const STYLES = { primary: 1, danger: 4 } as const;

/** The message for an interaction as it is now (buttons while open, the outcome once ended). */
export function discordMessage(interaction: Interaction): DiscordMessage {
  const message = chatMessage(interaction, "discord");
  const buttons = message.buttons.slice(0, PER_ROW * ROWS_MAX);
  const tail: string[] = [];
  if (buttons.length > 0 && needsTyping(interaction, buttons.length, "discord"))
    tail.push(TYPE_ELSEWHERE);
  if (message.progress !== undefined) tail.push(`*${escapeMarkdown(message.progress)}*`);
  if (message.outcome !== undefined) tail.push(`**${escapeMarkdown(message.outcome)}**`);
  const head = `**${escapeMarkdown(clip(message.title, TITLE_MAX))}**`;
  const end = tail.join("\n");
  const room = CONTENT_MAX - head.length - end.length - 2;
  const details = clip(message.details.map(escapeMarkdown).join("\n"), Math.max(room, 0));
  const content = [head, details, end].filter((part) => part !== "").join("\n");
  const components: DiscordActionRow[] = [];
  for (let at = 0; at < buttons.length; at += PER_ROW) {
    components.push({
      type: 1,
      components: buttons.slice(at, at + PER_ROW).map((button) => ({
        type: 2,
        style: button.style ? STYLES[button.style] : 2,
        label: clip(button.label, LABEL_MAX),
        custom_id: button.data,
      })),
    });
  }
  return { content: clip(content, CONTENT_MAX), components, allowed_mentions: { parse: [] } };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(max - 1, 0))}…`;
}
