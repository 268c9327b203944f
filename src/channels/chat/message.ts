// An interaction as a chat message: its title, every field of what is asked (request-lines.ts),
// its buttons (the shared choices) and, once it ended, how. A request the surfaces cannot show in
// full (showable.ts) is its raw JSON here too, and one too long for the platform's message says so
// above what fits: both with only the buttons that accept nothing (Decline, Interrupt).
import { type Choice, choicesOf, outcomeWords, refusalsOf } from "../choices.js";
import type { Interaction } from "../interaction-types.js";
import { requestLines } from "../request-lines.js";
import { approvalProgress } from "../routing.js";
import { unshownReason } from "../showable.js";
import { type ChatPlatform, roomProblem } from "./rooms.js";

/** What a chat message shows; each backend lays it out in its own markup. */
export interface ChatMessage {
  title: string;
  /**
   * Plain lines: every field of the request ({@link requestLines}); for a request that cannot be
   * shown in full, a line saying so and why, then its payload's JSON (or, when it is only too long
   * for the platform, its lines).
   */
  details: string[];
  /** The buttons while it is open (a question's options first, then the kind's choices). */
  buttons: ChatButton[];
  /** How it ended ("Accepted by alice"), once it did. */
  outcome?: string;
  /**
   * Where a request that needs several accepts stands while it is open ("1 of 2 approvals
   * (Alice)"), once someone accepted it.
   */
  progress?: string;
}

/** One button: its label and the data the platform sends back when it is clicked. */
export interface ChatButton {
  label: string;
  /** `<interaction id>:<index>`, at most 64 bytes (Telegram's limit; Slack and Discord allow more). */
  data: string;
  style?: "primary" | "danger";
}

/** Where a person types an answer a button cannot give (free text, a form). */
export const TYPE_ELSEWHERE =
  "To type an answer, use the codex-harness inbox or `codex-harness interactions respond`.";

/**
 * Why `platform`'s message cannot show an interaction in full, in words, or undefined when it can:
 * what no surface can show ({@link unshownReason}), or lines too long for the platform
 * ({@link roomProblem}). The messages and the runtime (for answers sent as from `platform`) ask it.
 */
export function chatUnshownReason(
  interaction: Pick<Interaction, "kind" | "payload">,
  platform: ChatPlatform,
): string | undefined {
  return unshownReason(interaction) ?? roomProblem(requestLines(interaction), platform);
}

/**
 * Whether some answer needs typing besides `buttons` buttons: a form, or questions no option button
 * answers. Never for a request that cannot be shown in full: it takes nothing typed.
 */
export function needsTyping(
  interaction: Interaction,
  buttons: number,
  platform: ChatPlatform,
): boolean {
  if (chatUnshownReason(interaction, platform) !== undefined) return false;
  const choices = choicesOf(interaction);
  if (choices.some((choice) => choice.form)) return true;
  const plain = choices.filter((choice) => !choice.answers && !choice.form).length;
  return choices.some((choice) => choice.answers) && buttons <= plain;
}

/** The answer a button stands for. */
export interface ChatAnswer {
  action: Interaction["actions"][number];
  values?: Record<string, unknown>;
}

/** The most of a payload's JSON a message carries: Slack's section (each platform clips to its own). */
const RAW_MAX = 3_000;
/** The most of the reason a request cannot be shown (it may quote a field's value). */
const REASON_MAX = 200;

const open = (status: string) => status === "pending" || status === "delivered";
const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

/** The message for an interaction as it is now, on `platform`. */
export function chatMessage(interaction: Interaction, platform: ChatPlatform): ChatMessage {
  const outcome = outcomeWords(interaction);
  const unshown = unshownReason(interaction);
  const lines = unshown === undefined ? requestLines(interaction) : [];
  const tooLong = unshown === undefined ? roomProblem(lines, platform) : undefined;
  return {
    title: interaction.title,
    details:
      unshown !== undefined
        ? rawOf(interaction.payload, unshown)
        : tooLong !== undefined
          ? [
              cannotShow(
                tooLong,
                "read it all in the inbox or with `codex-harness interactions show`",
              ),
              ...lines,
            ]
          : lines,
    buttons: open(interaction.status) ? buttonsOf(interaction, platform) : [],
    ...(outcome === undefined ? {} : { outcome }),
    ...(open(interaction.status) && interaction.approvals?.length
      ? { progress: approvalProgress(interaction) }
      : {}),
  };
}

/**
 * The answer of a clicked button, or undefined for data that is not one of this interaction's
 * buttons: also an Accept (stale, or forged) of a request that cannot be shown in full.
 */
export function answerOf(
  interaction: Interaction,
  data: string,
  platform: ChatPlatform,
): ChatAnswer | undefined {
  const [id, index] = splitData(data);
  if (id !== interaction.id || index === undefined) return undefined;
  const answer = offeredOf(interaction, platform)[index];
  if (!answer) return undefined;
  return { action: answer.action, ...(answer.values ? { values: answer.values } : {}) };
}

/** The interaction id a button's data names (to load it before {@link answerOf}). */
export function interactionIdOf(data: string): string | undefined {
  return splitData(data)[0];
}

function splitData(data: string): [string | undefined, number | undefined] {
  const match = /^(int_[A-Za-z0-9-]{1,60}):(\d{1,2})$/.exec(data);
  return match ? [match[1], Number(match[2])] : [undefined, undefined];
}

/**
 * What each button answers, in button order: for a single question with options, one per option
 * (`text` with the option's label); then the kind's choices that need nothing typed.
 */
function answersOf(
  interaction: Interaction,
): (ChatAnswer & { label: string; style?: Choice["style"] })[] {
  const answers: (ChatAnswer & { label: string; style?: Choice["style"] })[] = [];
  const questions = Array.isArray(interaction.payload.questions)
    ? (interaction.payload.questions as { options?: unknown }[])
    : [];
  const options =
    questions.length === 1 && Array.isArray(questions[0]?.options)
      ? (questions[0].options as { label?: unknown }[])
      : [];
  if (interaction.actions.includes("text")) {
    for (const option of options) {
      const label = text(option.label);
      if (label) answers.push({ label, action: "text", values: { text: label } });
    }
  }
  for (const choice of choicesOf(interaction)) {
    if (choice.answers || choice.form) continue;
    answers.push({
      label: choice.label,
      action: choice.action,
      ...(choice.values ? { values: choice.values } : {}),
      ...(choice.style ? { style: choice.style } : {}),
    });
  }
  return answers;
}

/**
 * The answers offered, at their buttons' indexes: all of {@link answersOf}, or for a request that
 * cannot be shown in full only the refusals (the others' places left empty, so that a button's
 * index means the same answer whether the request can be shown or not).
 */
function offeredOf(
  interaction: Interaction,
  platform: ChatPlatform,
): ((ChatAnswer & { label: string; style?: Choice["style"] }) | undefined)[] {
  const answers = answersOf(interaction);
  if (chatUnshownReason(interaction, platform) === undefined) return answers;
  const refusals = new Set(refusalsOf(interaction).map((choice) => choice.action));
  return answers.map((answer) => (refusals.has(answer.action) ? answer : undefined));
}

function buttonsOf(interaction: Interaction, platform: ChatPlatform): ChatButton[] {
  return offeredOf(interaction, platform).flatMap((answer, index) =>
    answer
      ? [
          {
            label: answer.label,
            data: `${interaction.id}:${index}`,
            ...(answer.style ? { style: answer.style } : {}),
          },
        ]
      : [],
  );
}

/** The line saying a message cannot show a request in full, and why (clipped: it may quote a value). */
function cannotShow(reason: string, then: string): string {
  return `This message cannot show the request in full (${clip(reason, REASON_MAX)}), so it can only be declined here; ${then}:`;
}

function clip(words: string, max: number): string {
  return words.length <= max ? words : `${words.slice(0, max - 1)}…`;
}

/**
 * A request that cannot be shown in full: a line saying so and why, then its payload's JSON (each
 * platform clips what does not fit, so the line comes first).
 */
function rawOf(payload: unknown, reason: string): string[] {
  const raw = JSON.stringify(payload, null, 2) ?? String(payload);
  return [cannotShow(reason, "this is what was sent"), ...clip(raw, RAW_MAX).split("\n")];
}
