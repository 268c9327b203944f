// `codex-harness serve --telegram …`: the flags that connect a Telegram chat, and the backend they
// make. The bot token comes from the environment (or a file it names), never from a flag.
import type { Command } from "commander";
import type { InteractionBackend } from "../channels/backends.js";
import { peopleOf } from "../channels/chat/people.js";
import { readSecret } from "../channels/chat/secrets.js";
import { CodexHarnessError } from "../errors.js";

/** The `serve` flags of the Telegram backend, as commander gives them. */
export interface TelegramFlags {
  telegram?: boolean;
  telegramChat?: string;
  telegramPeople?: string;
  telegramApiRoot?: string;
}

/** Adds `--telegram`, `--telegram-chat`, `--telegram-people`, `--telegram-api-root` to `serve`. */
export function addTelegramFlags(command: Command): Command {
  return command
    .option(
      "--telegram",
      "also ask in a Telegram chat (bot token in $TELEGRAM_BOT_TOKEN or the file $TELEGRAM_BOT_TOKEN_FILE)",
    )
    .option("--telegram-chat <id>", "the chat's numeric id (a group's is negative)")
    .option(
      "--telegram-people <id=name,...>",
      "Telegram user ids who may answer besides the people linked to Telegram users (people link), and the names the history shows (default $CODEX_HARNESS_TELEGRAM_PEOPLE)",
    )
    .option(
      "--telegram-api-root <url>",
      "a Bot API server of your own (default https://api.telegram.org)",
    );
}

/**
 * The Telegram backend the flags ask for (none without `--telegram`). Throws `invalid_option` for a
 * missing chat, or no people (neither `--telegram-people` nor its variable, and `linked` says no
 * one is linked to a Telegram user), `missing_secret` without a token, `missing_dependency`
 * without grammy. Polling failures are printed on stderr (redacted, repeats left out).
 */
export async function telegramBackendsOf(
  flags: TelegramFlags,
  env: NodeJS.ProcessEnv = process.env,
  linked: (platform: "telegram") => Promise<boolean> = async () => false,
): Promise<InteractionBackend[]> {
  if (!flags.telegram) {
    const stray = flags.telegramChat ?? flags.telegramPeople ?? flags.telegramApiRoot;
    if (stray !== undefined) {
      throw new CodexHarnessError(
        "invalid_option",
        "--telegram-chat, --telegram-people and --telegram-api-root need --telegram.",
      );
    }
    return [];
  }
  if (!flags.telegramChat) {
    throw new CodexHarnessError(
      "invalid_option",
      "--telegram needs --telegram-chat <id>, the numeric id of the chat to ask in.",
    );
  }
  const people = await peopleOf(
    flags.telegramPeople,
    env,
    {
      chat: "--telegram",
      flag: "--telegram-people",
      envName: "CODEX_HARNESS_TELEGRAM_PEOPLE",
      example: "id=name,…",
      platform: "telegram",
    },
    () => linked("telegram"),
  );
  const token = readSecret(env, "TELEGRAM_BOT_TOKEN", "--telegram");
  // Loaded here so that `serve` without --telegram never loads the backend (nor grammy).
  const { telegramBackend } = await import("../channels/telegram/backend.js");
  return [
    await telegramBackend({
      token,
      chatId: flags.telegramChat,
      people,
      ...(flags.telegramApiRoot ? { apiRoot: flags.telegramApiRoot } : {}),
    }),
  ];
}
