// `codex-harness serve --discord`: the Discord backend from flags (channel, people) and the
// environment (the bot token and the application's public key, never arguments).
import type { Command } from "commander";
import type { InteractionBackend } from "../channels/backends.js";
import { answerersLine, peopleOf } from "../channels/chat/people.js";
import { readSecret } from "../channels/chat/secrets.js";
import { CodexHarnessError } from "../errors.js";

/** The `serve` flags of the Discord backend. */
export interface DiscordServeFlags {
  discord?: boolean;
  discordChannel?: string;
  discordPeople?: string;
}

/** Adds `--discord`, `--discord-channel`, `--discord-people` to `serve`. */
export function addDiscordServeOptions(command: Command): Command {
  return command
    .option(
      "--discord",
      "also post interactions to Discord: $DISCORD_BOT_TOKEN and $DISCORD_PUBLIC_KEY (the application's, to check clicks); each may be a file in $…_FILE",
    )
    .option("--discord-channel <id>", "the Discord channel id to post to (implies --discord)")
    .option(
      "--discord-people <list>",
      "who may answer from Discord besides the people linked to Discord users (people link): user id=name,… (default $CODEX_HARNESS_DISCORD_PEOPLE)",
    );
}

/**
 * The Discord backend the flags ask for (none without `--discord`), and what to print about it.
 * The backend's code is loaded only then. Without `--discord-people` (or its variable), `linked` is
 * asked whether people are linked to Discord users: they alone may answer then.
 */
export async function discordServeBackend(
  flags: DiscordServeFlags,
  env: NodeJS.ProcessEnv,
  linked: (platform: "discord") => Promise<boolean> = async () => false,
): Promise<{ backend: InteractionBackend; describe(url: string): string[] } | undefined> {
  if (!flags.discord && flags.discordChannel === undefined) return undefined;
  const channelId = flags.discordChannel ?? env.CODEX_HARNESS_DISCORD_CHANNEL;
  if (!channelId) {
    throw new CodexHarnessError(
      "invalid_option",
      "--discord needs --discord-channel <id> (or $CODEX_HARNESS_DISCORD_CHANNEL): the text channel's id (Developer Mode, Copy Channel ID).",
    );
  }
  const people = await peopleOf(
    flags.discordPeople,
    env,
    {
      chat: "--discord",
      flag: "--discord-people",
      envName: "CODEX_HARNESS_DISCORD_PEOPLE",
      example: "<user id>=name,…",
      platform: "discord",
    },
    () => linked("discord"),
  );
  const token = readSecret(env, "DISCORD_BOT_TOKEN", "--discord");
  const applicationPublicKey = readSecret(env, "DISCORD_PUBLIC_KEY", "--discord");
  const [{ discordBackend }, { DISCORD_INTERACTIONS_PATH }] = await Promise.all([
    import("../channels/discord/backend.js"),
    import("../channels/discord/interactions.js"),
  ]);
  const backend = discordBackend({
    token,
    applicationPublicKey,
    channelId,
    people,
    ...(env.CODEX_HARNESS_DISCORD_API_URL ? { apiUrl: env.CODEX_HARNESS_DISCORD_API_URL } : {}),
  });
  return {
    backend,
    describe: (url) => [
      `discord: posting to channel ${channelId}; ${answerersLine(people.size, "Discord")}`,
      `discord: interactions endpoint at ${url}${DISCORD_INTERACTIONS_PATH} (give Discord this path under your public URL)`,
    ],
  };
}
