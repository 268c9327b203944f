// Who may answer codex from a chat: platform user ids on the chat's allow-list (with the names the
// history shows), or linked to the runtime's people; and what a refused chat user is told.
import { CodexHarnessError } from "../../errors.js";
import { ChannelsError } from "../errors.js";
import type { Person } from "../people-types.js";

/**
 * The allow-list of a chat backend: each platform user id (Slack `U…`, a Telegram numeric id, a
 * Discord snowflake) and the name shown for them. Their answers are recorded as by
 * `<platform>:<user id>` (the response's `answeredBy`), with that name (`answeredByName`). Users
 * linked to a person (`codex-harness people link`) may answer without being on it, as the person.
 */
export type ChatPeople = ReadonlyMap<string, string>;

/**
 * Reads `id=name,id=name` (the form of `--slack-people`, `$CODEX_HARNESS_TELEGRAM_PEOPLE`, …).
 * Throws `invalid_option` naming `from` and the entry to fix.
 */
export function parsePeople(spec: string, from: string): ChatPeople {
  const people = new Map<string, string>();
  for (const entry of spec.split(",").map((part) => part.trim())) {
    if (entry === "") continue;
    const match = /^([^=\s]+)=(.{1,200})$/.exec(entry);
    if (!match?.[1] || !match[2]?.trim()) {
      throw new CodexHarnessError(
        "invalid_option",
        `${from}: "${entry}" is not id=name (e.g. U024BE7LH=alice,123456789=bob).`,
      );
    }
    people.set(match[1], match[2].trim());
  }
  if (people.size === 0) {
    throw new CodexHarnessError(
      "invalid_option",
      `${from} names nobody: give id=name pairs of the people who may answer (e.g. U024BE7LH=alice).`,
    );
  }
  return people;
}

/**
 * The allow-list of a chat's `--<chat>-people` flag, else of its environment variable; with
 * neither, an empty one when `linked` (people are linked to this platform's users: they answer,
 * nobody else). Throws `invalid_option` naming the flag, the variable and `people link` when
 * nobody could answer (e.g. `--slack needs --slack-people U…=name,… (or
 * $CODEX_HARNESS_SLACK_PEOPLE), or people linked to Slack users …: who may answer.`).
 */
export async function peopleOf(
  flagValue: string | undefined,
  env: NodeJS.ProcessEnv,
  names: { chat: string; flag: string; envName: string; example: string; platform: string },
  linked: () => Promise<boolean> = async () => false,
): Promise<ChatPeople> {
  const spec = flagValue ?? env[names.envName];
  if (spec) return parsePeople(spec, flagValue ? names.flag : names.envName);
  if (await linked()) return new Map();
  throw new CodexHarnessError(
    "invalid_option",
    `${names.chat} needs ${names.flag} ${names.example} (or $${names.envName}), or people linked to ${capitalized(names.platform)} users (codex-harness people link <person> ${names.platform}:<user id>): who may answer.`,
  );
}

/** Who answers from a chat, as its backend gives them to the runtime (`BackendAnswerer`). */
export interface ChatAnswerer {
  /** `<platform>:<user id>`. */
  id: string;
  name: string;
  /** Allowed only for being linked to a person (not on the allow-list). */
  linked?: true;
}

/**
 * Who a chat user answers as, asked at each click: `<platform>:<user>` with the allow-list's name,
 * or, when they are not on it, the name of the person they are linked to (`linkedPerson`, the
 * backend context's: read from the store now; `linked` set); undefined when neither (they may not
 * answer). The runtime takes a linked user's answer as the person's either way.
 */
export async function chatAnswerer(
  people: ChatPeople,
  platform: "slack" | "telegram" | "discord",
  user: string,
  linkedPerson: (platformUser: string) => Promise<Person | undefined>,
): Promise<ChatAnswerer | undefined> {
  const id = `${platform}:${user}`;
  const listed = people.get(user);
  if (listed !== undefined) return { id, name: listed };
  const person = await linkedPerson(id);
  return person ? { id, name: person.name, linked: true } : undefined;
}

/**
 * Why an answer from a chat was refused, in words the person sees (under 200 characters: the most
 * a Telegram alert shows), naming the command that would link them.
 */
export function notAllowed(platform: string, platformUser?: string): string {
  const user = platformUser ?? `${platform.toLowerCase()}:<your id>`;
  return `You are not on this codex-harness ${platform} allow-list nor linked to a person, so nothing was answered. Ask whoever runs it to link you: codex-harness people link <person> ${user}`;
}

/**
 * What to tell a chat user whose answer the runtime refused under the request's routing (403
 * `not_allowed`: not among who may answer it; 409 `already_approved`: their accept counts
 * already), or undefined for any other error.
 */
export function routingRefusal(error: unknown): string | undefined {
  if (!(error instanceof ChannelsError)) return undefined;
  if (error.code !== "not_allowed" && error.code !== "already_approved") return undefined;
  return `Your answer was not taken: ${error.message}`;
}

/** Who may answer from a chat, for `serve` to print ("2 people may answer, and the people linked to Slack users"). */
export function answerersLine(listed: number, platform: string): string {
  if (listed === 0) return `the people linked to ${platform} users may answer`;
  const allowList = `${listed} ${listed === 1 ? "person" : "people"} may answer`;
  return `${allowList}, and the people linked to ${platform} users`;
}

function capitalized(word: string): string {
  return `${word.charAt(0).toUpperCase()}${word.slice(1)}`;
}
