// `codex-harness serve --slack`: the Slack backend from flags (channel, people) and the environment
// (tokens and the signing secret, never arguments).
import type { Command } from "commander";
import type { InteractionBackend } from "../channels/backends.js";
import { answerersLine, peopleOf } from "../channels/chat/people.js";
import { readSecret } from "../channels/chat/secrets.js";
import { CodexHarnessError } from "../errors.js";

/** The `serve` flags of the Slack backend. */
export interface SlackServeFlags {
  slack?: boolean;
  slackChannel?: string;
  slackPeople?: string;
}

/** Adds `--slack`, `--slack-channel`, `--slack-people` to `serve`. */
export function addSlackServeOptions(command: Command): Command {
  return command
    .option(
      "--slack",
      "also post interactions to Slack: $SLACK_BOT_TOKEN, and $SLACK_SIGNING_SECRET (interactivity URL) and/or $SLACK_APP_TOKEN (socket mode); each may be a file in $…_FILE",
    )
    .option("--slack-channel <id>", "the Slack channel id (C…) to post to (implies --slack)")
    .option(
      "--slack-people <list>",
      "who may answer from Slack besides the people linked to Slack users (people link): U…=name,… (default $CODEX_HARNESS_SLACK_PEOPLE)",
    );
}

/**
 * The Slack backend the flags ask for (none without `--slack`), and what to print about it. The
 * backend's code is loaded only then. Without `--slack-people` (or its variable), `linked` is asked
 * whether people are linked to Slack users: they alone may answer then.
 */
export async function slackServeBackend(
  flags: SlackServeFlags,
  env: NodeJS.ProcessEnv,
  linked: (platform: "slack") => Promise<boolean> = async () => false,
): Promise<{ backend: InteractionBackend; describe(url: string): string[] } | undefined> {
  if (!flags.slack && flags.slackChannel === undefined) return undefined;
  const channel = flags.slackChannel ?? env.CODEX_HARNESS_SLACK_CHANNEL;
  if (!channel) {
    throw new CodexHarnessError(
      "invalid_option",
      "--slack needs --slack-channel <id> (or $CODEX_HARNESS_SLACK_CHANNEL): the channel id, C…, the app is in.",
    );
  }
  const people = await peopleOf(
    flags.slackPeople,
    env,
    {
      chat: "--slack",
      flag: "--slack-people",
      envName: "CODEX_HARNESS_SLACK_PEOPLE",
      example: "U…=name,…",
      platform: "slack",
    },
    () => linked("slack"),
  );
  const token = readSecret(env, "SLACK_BOT_TOKEN", "--slack");
  const given = (name: string) => Boolean(env[name] || env[`${name}_FILE`]);
  if (!given("SLACK_SIGNING_SECRET") && !given("SLACK_APP_TOKEN")) {
    throw new CodexHarnessError(
      "missing_secret",
      "--slack needs a way for clicks to come back: SLACK_SIGNING_SECRET (Slack calls this runtime's interactivity URL) or SLACK_APP_TOKEN (socket mode, no public URL), or their _FILE forms.",
    );
  }
  const signingSecret = given("SLACK_SIGNING_SECRET")
    ? readSecret(env, "SLACK_SIGNING_SECRET", "--slack")
    : undefined;
  const appToken = given("SLACK_APP_TOKEN")
    ? readSecret(env, "SLACK_APP_TOKEN", "--slack")
    : undefined;
  const [{ slackBackend }, { SLACK_INTERACTIONS_PATH }] = await Promise.all([
    import("../channels/slack/backend.js"),
    import("../channels/slack/interactivity.js"),
  ]);
  const backend = slackBackend({
    token,
    channel,
    people,
    ...(signingSecret ? { signingSecret } : {}),
    ...(appToken ? { appToken } : {}),
    ...(env.CODEX_HARNESS_SLACK_API_URL ? { apiUrl: env.CODEX_HARNESS_SLACK_API_URL } : {}),
  });
  return {
    backend,
    describe: (url) => [
      `slack: posting to ${channel}; ${answerersLine(people.size, "Slack")}`,
      ...(signingSecret
        ? [
            `slack: interactivity at ${url}${SLACK_INTERACTIONS_PATH} (give Slack this path under your public URL)`,
          ]
        : []),
      ...(appToken ? ["slack: socket mode connected"] : []),
    ],
  };
}
