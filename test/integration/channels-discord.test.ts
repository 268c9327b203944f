// The Discord backend against a local fake Discord (the real discord.js REST client pointed at it)
// and signed calls to its Interactions Endpoint: a real codex approval answered by a click, an
// option, a late click, forged and stale signatures, PING, a stranger, Discord down or limiting.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { inspect } from "node:util";
import type { InteractionBackend } from "../../src/channels/backends.js";
import { notAllowed, parsePeople } from "../../src/channels/chat/people.js";
import { ChannelsClient } from "../../src/channels/client.js";
import {
  type DiscordBackend,
  type DiscordBackendOptions,
  discordBackend,
} from "../../src/channels/discord/backend.js";
import { DISCORD_INTERACTIONS_PATH } from "../../src/channels/discord/interactions.js";
import type { CodexHarnessError } from "../../src/errors.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { channelsTestDirs } from "../support/channels-dirs.js";
import {
  approvalRequest as approval,
  colorRequest,
  personClient,
  posted,
  recorder,
  runTurn,
  type ServedBackend,
  serveBackend,
  serveOnly,
  startCodexAsking,
} from "../support/chat-backends.js";
import { withoutPackage } from "../support/chat-fixtures.js";
import type { CodexApiFixture } from "../support/codex-api-fixture.js";
import { eventually } from "../support/eventually.js";
import {
  applicationKeys,
  buttonsOf,
  clickPayload,
  FakeDiscord,
  postInteraction,
  rateLimited,
} from "../support/fake-discord.js";

const BOT_TOKEN = "MTIwMDAwMDAwMDAwMDAwMDAwMQ.Gx1234.secret-discord-bot-token-value";
const CHANNEL = "1000000000000000042";
const ALICE = "80351110224678912";
const BOB = "80351110224678913";
const MALLORY = "80351110224678999";
const PEOPLE = parsePeople(`${ALICE}=alice,${BOB}=bob`, "--discord-people");
const KEYS = applicationKeys();

const { dataDir, servers } = channelsTestDirs("codex-harness-discord-");
const fakes: FakeDiscord[] = [];
let fixture: CodexApiFixture | undefined;
after(async () => {
  await fixture?.close();
  for (const fake of fakes.splice(0)) await fake.close();
});

async function startFake(): Promise<FakeDiscord> {
  const fake = await FakeDiscord.start(BOT_TOKEN);
  fakes.push(fake);
  return fake;
}

/** The options every Discord backend here has: the bot token, the key, the channel, who, the fake. */
function discordOptions(fake: FakeDiscord): DiscordBackendOptions {
  return {
    token: BOT_TOKEN,
    applicationPublicKey: KEYS.publicKeyHex,
    channelId: CHANNEL,
    people: PEOPLE,
    apiUrl: fake.apiUrl,
  };
}

interface Setup extends ServedBackend<DiscordBackend> {
  fake: FakeDiscord;
  discord: DiscordBackend;
  endpoint: string;
}

async function setup(
  options: Partial<DiscordBackendOptions> = {},
  extra: InteractionBackend[] = [],
  fake?: FakeDiscord,
): Promise<Setup> {
  const discordFake = fake ?? (await startFake());
  const served = await serveBackend(
    dataDir(),
    (log) => discordBackend({ ...discordOptions(discordFake), log, ...options }),
    { extra },
  );
  servers.push(served.server);
  return {
    ...served,
    fake: discordFake,
    discord: served.backend,
    endpoint: `${served.server.url}${DISCORD_INTERACTIONS_PATH}`,
  };
}

describe("Discord backend", () => {
  it("a real codex command approval answered by a signed click runs the command; the message says who", async () => {
    const { fake, server, endpoint } = await setup();
    fixture = await startCodexAsking({ url: server.url, token: server.token }, [
      execCommand("echo discorded > discord.txt", { escalated: true }),
      reply("done"),
    ]);
    const turn = runTurn(fixture, "go");
    const message = await posted(fake);
    assert.equal(message.channel_id, CHANNEL);
    assert.match(message.content, /discord\.txt/);
    const buttons = buttonsOf(message);
    assert.deepEqual(
      [...buttons.keys()],
      ["Accept", "Accept for this session", "Decline", "Interrupt the turn"],
    );
    assert.deepEqual(
      message.components[0]?.components.map((button) => button.style),
      [1, 2, 4, 2],
    );
    const answer = await postInteraction(
      endpoint,
      KEYS.privateKey,
      clickPayload(ALICE, message, buttons.get("Accept") ?? ""),
    );
    assert.equal(answer.status, 200);
    assert.equal(answer.body.type, 7, "the clicked message is updated in the reply");
    assert.match(answer.body.data?.content ?? "", /Accepted by alice/);
    assert.deepEqual(answer.body.data?.components, []);
    await turn;
    assert.ok(existsSync(path.join(fixture.workdir, "discord.txt")));
    await eventually("the message patched", () => /Accepted by alice/.test(message.content));
    assert.deepEqual(message.components, [], "no buttons once answered");
    const [answered] = await new ChannelsClient({ url: server.url, token: server.token }).list({
      status: ["resolved"],
    });
    // Who answered is the verified Discord user, by the allow-list's name.
    assert.equal(answered?.response?.answeredBy, `discord:${ALICE}`);
    assert.equal(answered?.response?.answeredByName, "alice");
    assert.deepEqual(answered?.response?.metadata, { via: "discord", discordUserId: ALICE });
    await fixture.close();
    fixture = undefined;
  });

  it("a question is answered with an option button", async () => {
    const { fake, client, discord, endpoint } = await setup();
    const asked = await client.create(colorRequest);
    const message = await posted(fake);
    const buttons = buttonsOf(message);
    assert.deepEqual([...buttons.keys()], ["blue", "red", "Decline", "Interrupt the turn"]);
    const answer = await postInteraction(
      endpoint,
      KEYS.privateKey,
      clickPayload(BOB, message, buttons.get("red") ?? ""),
    );
    assert.equal(answer.body.type, 7);
    assert.deepEqual(await discord.settled(), ["answered"]);
    const answered = await client.get(asked.id);
    assert.equal(answered.status, "resolved");
    assert.equal(answered.response?.action, "text");
    assert.deepEqual(answered.response?.values, { text: "red" });
    await eventually("the message patched", () => /Answered by bob/.test(message.content));
  });

  it("a click after someone else answered tells the clicker who did, and nothing changes", async () => {
    const { fake, client, endpoint, discord, server } = await setup();
    const created = await client.create(approval);
    const message = await posted(fake);
    const firstSeen = structuredClone(message);
    const carol = await personClient(server, "carol");
    await carol.respond(created.id, { action: "decline", metadata: { via: "cli" } });
    await eventually("the message patched", () => /Declined by carol/.test(message.content));
    const answer = await postInteraction(
      endpoint,
      KEYS.privateKey,
      // The button the late clicker still sees: the message as first posted.
      clickPayload(ALICE, firstSeen, buttonsOf(firstSeen).get("Accept") ?? ""),
    );
    assert.deepEqual(answer.body, {
      type: 4,
      data: { content: "Your answer was not taken: Declined by carol.", flags: 64 },
    });
    assert.deepEqual(await discord.settled(), ["late"]);
    const now = await client.get(created.id);
    assert.equal(now.response?.action, "decline");
    assert.equal(now.response?.answeredBy, "carol");
    assert.match(message.content, /Declined by carol/);
    assert.deepEqual(message.components, []);
  });

  it("a request it cannot show in full: its raw JSON, only Decline and Interrupt; a forged Accept answers nothing", async () => {
    const { fake, client, endpoint, discord } = await setup();
    const created = await client.create({ ...approval, payload: { command: 42 } });
    const message = await posted(fake);
    assert.deepEqual([...buttonsOf(message).keys()], ["Decline", "Interrupt the turn"]);
    assert.match(message.content, /cannot show the request in full \(payload\.command is a number/);
    assert.match(message.content, /"command": 42/);
    // The Accept a message of this request never had (it would be :0), clicked anyway.
    const forged = await postInteraction(
      endpoint,
      KEYS.privateKey,
      clickPayload(ALICE, message, `${created.id}:0`),
    );
    assert.deepEqual(forged.body, {
      type: 4,
      data: {
        content: "This button does not answer this interaction; nothing was sent.",
        flags: 64,
      },
    });
    assert.deepEqual(await discord.settled(), ["invalid"]);
    assert.equal((await client.get(created.id)).status, "delivered");
    await assert.rejects(
      client.respond(created.id, { action: "accept", metadata: { via: "discord" } }),
      /the Discord message cannot show this approval_request in full/,
    );
    const declined = await postInteraction(
      endpoint,
      KEYS.privateKey,
      clickPayload(ALICE, message, buttonsOf(message).get("Decline") ?? ""),
    );
    assert.equal(declined.body.type, 7);
    assert.match(declined.body.data?.content ?? "", /Declined by alice/);
    assert.equal((await client.get(created.id)).response?.action, "decline");
  });

  it("a forged signature and a stale timestamp get 401 and answer nothing; PING gets PONG", async () => {
    const { fake, client, endpoint, discord } = await setup();
    const created = await client.create(approval);
    const message = await posted(fake);
    const click = clickPayload(ALICE, message, buttonsOf(message).get("Accept") ?? "");
    const forged = await postInteraction(endpoint, KEYS.privateKey, click, {
      signWith: applicationKeys().privateKey,
    });
    assert.equal(forged.status, 401);
    const stale = Math.floor(Date.now() / 1000) - 6 * 60;
    assert.equal(
      (await postInteraction(endpoint, KEYS.privateKey, click, { timestamp: stale })).status,
      401,
    );
    const unsigned = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(click),
    });
    assert.equal(unsigned.status, 401);
    await unsigned.body?.cancel();
    assert.equal(
      (
        await postInteraction(
          endpoint,
          KEYS.privateKey,
          { type: 1 },
          { signWith: applicationKeys().privateKey },
        )
      ).status,
      401,
    );
    assert.deepEqual(
      await postInteraction(endpoint, KEYS.privateKey, {
        type: 1,
        id: "1",
        application_id: "2",
        token: "t",
        version: 1,
      }),
      { status: 200, body: { type: 1 } },
    );
    assert.deepEqual(await discord.settled(), []);
    assert.equal((await client.get(created.id)).status, "delivered");
  });

  it("a Discord user linked to a person answers as them: a two-person rule's first accept updates the message with its progress and buttons, a refusal is told only to the clicker", async () => {
    const { fake, client, endpoint, discord, server } = await setup();
    const people = server.people;
    assert.ok(people);
    await people.add({ id: "dana", name: "Dana", groups: ["release"] });
    await people.add({ id: "erin", name: "Erin", groups: ["release"] });
    await people.link("dana", `discord:${MALLORY}`);
    await people.link("erin", "discord:80351110224678914");
    const created = await client.create({
      ...approval,
      routing: { answer: ["group:release"], approvals: 2 },
    });
    const message = await posted(fake);
    const accept = buttonsOf(message).get("Accept") ?? "";
    const click = (user: string) =>
      postInteraction(endpoint, KEYS.privateKey, clickPayload(user, message, accept));
    // Alice is on the allow-list, not in group release: the runtime refuses her.
    const alice = await click(ALICE);
    assert.equal(alice.body.type, 4);
    assert.match(
      JSON.stringify(alice.body),
      /Your answer was not taken: Only group:release may answer this request, and discord:80351110224678912 is not among them/,
    );
    // Mallory is not on it, but linked to Dana: her accept counts, and the message shows it.
    const dana = await click(MALLORY);
    assert.equal(dana.body.type, 7);
    const shown = JSON.stringify(dana.body);
    assert.match(shown, /1 of 2 approvals \(Dana\)/);
    assert.match(shown, /"label":"Accept"/, "the buttons are still there");
    const again = await click(MALLORY);
    assert.match(JSON.stringify(again.body), /dana has approved this request already/);
    const erin = await click("80351110224678914");
    assert.equal(erin.body.type, 7);
    assert.match(JSON.stringify(erin.body), /Accepted by Dana, Erin/);
    assert.deepEqual(await discord.settled(), ["refused", "answered", "refused", "answered"]);
    const done = await client.get(created.id);
    assert.equal(done.response?.answeredBy, "erin");
    assert.deepEqual(
      done.approvals?.map((approval) => approval.by),
      ["dana", "erin"],
    );
  });

  it("someone not on the allow-list is told so, and their click answers nothing", async () => {
    const { fake, client, endpoint, discord } = await setup();
    const created = await client.create(approval);
    const message = await posted(fake);
    const answer = await postInteraction(
      endpoint,
      KEYS.privateKey,
      clickPayload(MALLORY, message, buttonsOf(message).get("Accept") ?? ""),
    );
    assert.deepEqual(answer, {
      status: 200,
      body: { type: 4, data: { content: notAllowed("Discord", `discord:${MALLORY}`), flags: 64 } },
    });
    assert.deepEqual(await discord.settled(), ["refused"]);
    assert.equal((await client.get(created.id)).status, "delivered");
    assert.equal(fake.callsOf("PATCH").length, 0);
  });

  it("Discord down (500) and rate-limiting (429, retry_after) are retried with backoff; another backend is not held up", async () => {
    const fake = await startFake();
    fake.failNext({ method: "POST", status: 500 });
    fake.failNext(rateLimited(1));
    const other = recorder("quick");
    const { client, failures } = await setup({}, [other], fake);
    const started = Date.now();
    const created = await client.create(approval);
    await eventually("the other backend's delivery", () => other.seen.length > 0);
    assert.ok(Date.now() - started < 900, "the other backend got it before Discord's retry_after");
    const message = await posted(fake);
    assert.match(message.content, /make deploy/);
    const attempts = fake.calls.filter((call) => call.method === "POST");
    assert.deepEqual(
      attempts.map((call) => call.status),
      [500, 429, 200],
    );
    const waited = (attempts[2]?.at ?? 0) - (attempts[1]?.at ?? 0);
    assert.ok(waited >= 950, `waited ${waited} ms after the 429's retry_after: 1`);
    await eventually(
      "delivered",
      async () => (await client.get(created.id)).status === "delivered",
    );
    assert.deepEqual(failures, []);
  });

  it("an error names Discord's refusal and a hint but never the token", async () => {
    const fake = await startFake();
    const wrong = "MTIwMDAwMDAwMDAwMDAwMDAwMQ.Gx9999.wrong-discord-bot-token-value";
    const { client, failures } = await setup({ token: wrong }, [], fake);
    await client.create(approval);
    await eventually("the failure", () => failures.length > 0);
    const error = failures[0]?.error as CodexHarnessError;
    assert.equal(error.code, "discord_error");
    assert.match(
      error.message,
      /POST \/channels\/\{id\}\/messages with HTTP 401: 401: Unauthorized .*check DISCORD_BOT_TOKEN/,
    );
    assert.ok(
      !inspect(error, { depth: 10 }).includes(wrong),
      "not in the error, its cause or stack",
    );
    assert.equal(failures[0]?.attempts, 1, "a refusal is not retried");
  });

  it("names the package to install when discord.js is missing", async () => {
    const fake = await startFake();
    await assert.rejects(
      serveOnly(
        dataDir(),
        discordBackend({ ...discordOptions(fake), importer: withoutPackage("discord.js") }),
      ),
      {
        code: "missing_dependency",
        message:
          "The Discord backend needs the optional package discord.js: npm install discord.js",
      },
    );
  });
});
