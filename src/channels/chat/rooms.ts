// How much of a request each chat platform's message holds, counted as the platform counts it
// (after its escaping), and that escaping: a request whose lines do not fit cannot be shown there
// in full, so the message offers only the answers that accept nothing, and the runtime holds the
// platform's answers to that.

/** The chat platforms, named as the `metadata.via` of the answers their backends send. */
export type ChatPlatform = "slack" | "telegram" | "discord";

/** Text safe in Slack mrkdwn: `&`, `<`, `>` escaped as Slack asks. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * Text shown as written in Discord markdown: `\`, `*`, `_`, `~`, `` ` ``, `|` escaped anywhere,
 * and `>`, `#`, `-` at the start of a line (quotes, headings, lists).
 */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\*_~`|]/g, "\\$&").replace(/^(\s*)([>#-])/gm, "$1\\$2");
}

/** A platform's room for a request's lines: its name, and how many characters fit, counted how. */
interface Room {
  name: string;
  /** The most characters of the lines, each counted with its line break. */
  max: number;
  size(line: string): number;
}

/**
 * What each platform's message holds of a request's lines: Slack a section of its own (3,000
 * characters, escaped); Telegram 3,000 characters of text as it shows them (its 4,096 hold the
 * title, a hint and the outcome besides); Discord what its 2,000 characters leave beside the title
 * (256 characters, escaped) and the line saying where to type an answer (escaped).
 */
export const CHAT_ROOMS: Readonly<Record<ChatPlatform, Room>> = {
  slack: { name: "Slack", max: 3_000, size: (line) => escapeMrkdwn(line).length },
  telegram: { name: "Telegram", max: 3_000, size: (line) => line.length },
  discord: { name: "Discord", max: 1_350, size: (line) => escapeMarkdown(line).length },
};

/** Why `lines` do not fit `platform`'s message, in words, or undefined when they do. */
export function roomProblem(lines: readonly string[], platform: ChatPlatform): string | undefined {
  const room = CHAT_ROOMS[platform];
  const size = lines.reduce((sum, line) => sum + room.size(line) + 1, 0);
  return size <= room.max
    ? undefined
    : `it is too long for a ${room.name} message: ${size} characters, where ${room.max} fit`;
}
