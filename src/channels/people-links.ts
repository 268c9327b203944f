// Chat platforms' users linked to people (`slack:U024BE7LH` -> alice): the link's shape and the
// check of a platform user's id. A linked user answers from that chat as the person, under the same
// routing as everywhere else.
import { CodexHarnessError } from "../errors.js";

/** The chat platforms whose users can be linked to people. */
export const LINK_PLATFORMS = Object.freeze(["slack", "telegram", "discord"] as const);

/** One of {@link LINK_PLATFORMS}. */
export type LinkPlatform = (typeof LINK_PLATFORMS)[number];

/** A chat platform's user linked to a person: one platform user links to one person. */
export interface PersonLink {
  /** `<platform>:<user id>`, e.g. `slack:U024BE7LH`, `telegram:123456789`, `discord:80351110224678912`. */
  platformUser: string;
  /** The person they answer as. */
  personId: string;
  /** ISO 8601. */
  createdAt: string;
}

/** Each platform's user id, and an example of one. */
const USER_IDS: Readonly<Record<LinkPlatform, { form: RegExp; example: string; what: string }>> = {
  // Workspace users are U…, Enterprise Grid users W… (uppercase letters and digits).
  slack: { form: /^[UW][A-Z0-9]{2,20}$/, example: "U024BE7LH", what: "a Slack user id (U… or W…)" },
  // A positive integer of up to 52 bits.
  telegram: {
    form: /^[1-9][0-9]{0,15}$/,
    example: "123456789",
    what: "a Telegram user id (a positive number)",
  },
  // A snowflake: a 64-bit number.
  discord: {
    form: /^[1-9][0-9]{4,19}$/,
    example: "80351110224678912",
    what: "a Discord user id (a snowflake, a number)",
  },
};

/**
 * Checks a platform user (`slack:U024BE7LH`, `telegram:123456789`, `discord:80351110224678912`) and
 * returns it; throws `invalid_input` saying what to give.
 */
export function checkPlatformUser(given: string): string {
  const colon = typeof given === "string" ? given.indexOf(":") : -1;
  const platform = colon > 0 ? given.slice(0, colon) : "";
  const user = colon > 0 ? given.slice(colon + 1) : "";
  if (!(LINK_PLATFORMS as readonly string[]).includes(platform)) {
    throw new CodexHarnessError(
      "invalid_input",
      `${JSON.stringify(given)} is not a chat user: give <platform>:<user id>, the platform one of ${LINK_PLATFORMS.join(", ")} (e.g. slack:U024BE7LH, telegram:123456789).`,
    );
  }
  const ids = USER_IDS[platform as LinkPlatform];
  if (!ids.form.test(user)) {
    throw new CodexHarnessError(
      "invalid_input",
      `${JSON.stringify(given)}: ${JSON.stringify(user)} is not ${ids.what}; e.g. ${platform}:${ids.example}.`,
    );
  }
  return given;
}

/** The platform of a platform user (`slack` of `slack:U024BE7LH`). */
export function platformOf(platformUser: string): string {
  return platformUser.slice(0, Math.max(platformUser.indexOf(":"), 0));
}
