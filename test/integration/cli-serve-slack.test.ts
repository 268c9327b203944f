// `codex-harness serve --slack`: clear errors for what is missing, and with the secrets in the
// environment (one in a file) it posts to Slack (a local fake) and never prints a secret.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { ChannelsClient } from "../../src/channels/client.js";
import { channelsTestDirs } from "../support/channels-dirs.js";
import { assertRefusedStarts, envWithout, runCli, whileServing } from "../support/cli.js";
import { eventually } from "../support/eventually.js";
import { FakeSlack } from "../support/fake-slack.js";

const BOT_TOKEN = "xoxb-9999-8888-clisecretbottoken";
const SIGNING_SECRET = "cli-signing-secret-0123456789abcdef";
const { dataDir } = channelsTestDirs("codex-harness-serve-slack-");
let fake: FakeSlack | undefined;
after(() => fake?.close());

/** A child environment without any Slack variable of the machine running the tests. */
const cleanEnv = (extra: Record<string, string>) => envWithout(/SLACK/, extra);

describe("codex-harness serve --slack", () => {
  it("says what is missing: the channel, the people, the bot token, a way for clicks back", async () => {
    const base = ["serve", "--port", "0", "--data-dir", dataDir(), "--slack"];
    await assertRefusedStarts(base, /SLACK/, BOT_TOKEN, [
      [[], {}, /--slack needs --slack-channel <id>/],
      [["--slack-channel", "C1"], {}, /--slack needs --slack-people/],
      [
        ["--slack-channel", "C1", "--slack-people", "U1"],
        {},
        /--slack-people: "U1" is not id=name/,
      ],
      [
        ["--slack-channel", "C1", "--slack-people", "U1=a"],
        {},
        /--slack needs SLACK_BOT_TOKEN \(or SLACK_BOT_TOKEN_FILE/,
      ],
      [
        ["--slack-channel", "C1", "--slack-people", "U1=a"],
        { SLACK_BOT_TOKEN: BOT_TOKEN },
        /SLACK_SIGNING_SECRET .* or SLACK_APP_TOKEN/,
      ],
    ]);
  });

  it("needs no --slack-people once people are linked to Slack users: they answer", async () => {
    const dir = dataDir();
    const base = ["serve", "--port", "0", "--data-dir", dir, "--slack-channel", "C1"];
    // Linked to a Telegram user only: nobody could answer from Slack.
    for (const args of [
      ["people", "add", "alice", "--data-dir", dir],
      ["people", "link", "alice", "telegram:123456789", "--data-dir", dir],
    ]) {
      const ran = await runCli(args);
      assert.equal(ran.code, 0, ran.stderr);
    }
    await assertRefusedStarts(base, /SLACK/, BOT_TOKEN, [
      [
        [],
        {},
        /--slack needs --slack-people U…=name,… \(or \$CODEX_HARNESS_SLACK_PEOPLE\), or people linked to Slack users \(codex-harness people link <person> slack:<user id>\)/,
      ],
    ]);
    const linked = await runCli(["people", "link", "alice", "slack:U0ALICE", "--data-dir", dir]);
    assert.equal(linked.code, 0, linked.stderr);
    // Past the people: what it asks for next is the token.
    await assertRefusedStarts(base, /SLACK/, BOT_TOKEN, [
      [[], {}, /--slack needs SLACK_BOT_TOKEN \(or SLACK_BOT_TOKEN_FILE/],
    ]);
  });

  it("posts interactions to Slack with the token from a file, and prints where Slack calls", async () => {
    fake = await FakeSlack.start({ botToken: BOT_TOKEN, appToken: "xapp-unused" });
    const dir = dataDir();
    const tokenFile = path.join(dir, "slack-bot-token");
    writeFileSync(tokenFile, `${BOT_TOKEN}\n`, { mode: 0o600 });
    await whileServing(
      [
        "serve",
        "--port",
        "0",
        "--data-dir",
        dir,
        "--slack-channel",
        "C0CLI",
        "--slack-people",
        "U0ALICE=alice",
      ],
      cleanEnv({
        SLACK_BOT_TOKEN_FILE: tokenFile,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        CODEX_HARNESS_SLACK_API_URL: fake.apiUrl,
      }),
      async ({ url, token, output }) => {
        assert.match(
          output.stdout,
          new RegExp(`slack: interactivity at ${url}/v1/slack/interactions`),
        );
        assert.match(output.stdout, /slack: posting to C0CLI; 1 person may answer/);
        await new ChannelsClient({ url, token }).create({
          kind: "approval_request",
          source: { name: "test" },
          payload: { command: "ls" },
        });
        const message = await eventually(
          "the Slack message",
          () => [...(fake?.messages.values() ?? [])][0],
        );
        assert.equal(message.channel, "C0CLI");
        for (const secret of [BOT_TOKEN, SIGNING_SECRET]) {
          assert.ok(!output.stdout.includes(secret) && !output.stderr.includes(secret));
        }
      },
    );
  });
});
