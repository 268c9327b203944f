// `codex-harness serve --discord`: clear errors for what is missing, and with the secrets in the
// environment (one in a file) it posts to Discord (a local fake), prints its Interactions Endpoint
// URL, answers a signed PING there, and never prints a secret.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { ChannelsClient } from "../../src/channels/client.js";
import { channelsTestDirs } from "../support/channels-dirs.js";
import { assertRefusedStarts, envWithout, whileServing } from "../support/cli.js";
import { eventually } from "../support/eventually.js";
import { applicationKeys, FakeDiscord, postInteraction } from "../support/fake-discord.js";

const BOT_TOKEN = "MTIwMDAwMDAwMDAwMDAwMDAwMQ.Gx5555.cli-secret-discord-bot-token";
const KEYS = applicationKeys();
const { dataDir } = channelsTestDirs("codex-harness-serve-discord-");
let fake: FakeDiscord | undefined;
after(() => fake?.close());

/** A child environment without any Discord variable of the machine running the tests. */
const cleanEnv = (extra: Record<string, string>) => envWithout(/DISCORD/, extra);

describe("codex-harness serve --discord", () => {
  it("says what is missing: the channel, the people, the bot token, the public key", async () => {
    const base = ["serve", "--port", "0", "--data-dir", dataDir(), "--discord"];
    const people = ["--discord-channel", "1000000000000000042", "--discord-people", "803=a"];
    await assertRefusedStarts(base, /DISCORD/, BOT_TOKEN, [
      [[], {}, /--discord needs --discord-channel <id>/],
      [["--discord-channel", "1000000000000000042"], {}, /--discord needs --discord-people/],
      [
        ["--discord-channel", "1000000000000000042", "--discord-people", "803"],
        {},
        /--discord-people: "803" is not id=name/,
      ],
      [people, {}, /--discord needs DISCORD_BOT_TOKEN \(or DISCORD_BOT_TOKEN_FILE/],
      [
        people,
        { DISCORD_BOT_TOKEN: BOT_TOKEN },
        /--discord needs DISCORD_PUBLIC_KEY \(or DISCORD_PUBLIC_KEY_FILE/,
      ],
      [
        people,
        { DISCORD_BOT_TOKEN: BOT_TOKEN, DISCORD_PUBLIC_KEY: "not-hex" },
        /applicationPublicKey` must be the application's public key, 64 hex/,
      ],
    ]);
  });

  it("posts interactions to Discord with the token from a file, and prints where Discord calls", async () => {
    fake = await FakeDiscord.start(BOT_TOKEN);
    const dir = dataDir();
    const tokenFile = path.join(dir, "discord-bot-token");
    writeFileSync(tokenFile, `${BOT_TOKEN}\n`, { mode: 0o600 });
    await whileServing(
      [
        "serve",
        "--port",
        "0",
        "--data-dir",
        dir,
        "--discord-channel",
        "1000000000000000042",
        "--discord-people",
        "80351110224678912=alice",
      ],
      cleanEnv({
        DISCORD_BOT_TOKEN_FILE: tokenFile,
        DISCORD_PUBLIC_KEY: KEYS.publicKeyHex,
        CODEX_HARNESS_DISCORD_API_URL: fake.apiUrl,
      }),
      async ({ url, token, output }) => {
        assert.match(
          output.stdout,
          new RegExp(`discord: interactions endpoint at ${url}/v1/discord/interactions`),
        );
        assert.match(
          output.stdout,
          /discord: posting to channel 1000000000000000042; 1 person may answer/,
        );
        const pong = await postInteraction(`${url}/v1/discord/interactions`, KEYS.privateKey, {
          type: 1,
        });
        assert.deepEqual(pong, { status: 200, body: { type: 1 } });
        await new ChannelsClient({ url, token }).create({
          kind: "approval_request",
          source: { name: "test" },
          payload: { command: "ls" },
        });
        const message = await eventually(
          "the Discord message",
          () => [...(fake?.messages.values() ?? [])][0],
        );
        assert.equal(message.channel_id, "1000000000000000042");
        assert.ok(!output.stdout.includes(BOT_TOKEN) && !output.stderr.includes(BOT_TOKEN));
      },
    );
  });
});
