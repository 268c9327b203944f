// Who may answer codex from a chat: platform user ids mapped to the names the history shows.
import { CodexHarnessError } from "../../errors.js";

/**
 * The people a chat backend lets answer: each platform user id (Slack `U…`, a Telegram numeric
 * id, a Discord snowflake) and the name shown for them. Their answers are recorded as by
 * `<platform>:<user id>` (the response's `answeredBy`), with that name (`answeredByName`).
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
 * The people of a chat's `--<chat>-people` flag, else of its environment variable. Throws
 * `invalid_option` naming both when neither is given (e.g. `--slack needs --slack-people
 * U…=name,… (or $CODEX_HARNESS_SLACK_PEOPLE): who may answer.`).
 */
export function peopleOf(
  flagValue: string | undefined,
  env: NodeJS.ProcessEnv,
  names: { chat: string; flag: string; envName: string; example: string },
): ChatPeople {
  const spec = flagValue ?? env[names.envName];
  if (!spec) {
    throw new CodexHarnessError(
      "invalid_option",
      `${names.chat} needs ${names.flag} ${names.example} (or $${names.envName}): who may answer.`,
    );
  }
  return parsePeople(spec, flagValue ? names.flag : names.envName);
}

/** Why an answer from a chat was refused, in words the person sees. */
export function notAllowed(platform: string): string {
  return `You are not on this codex-harness ${platform} allow-list, so your answer was not taken. Ask whoever runs it to add your user id.`;
}
