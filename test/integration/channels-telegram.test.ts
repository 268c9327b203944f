// The Telegram backend against a local fake of the Bot API (grammy pointed at it with `apiRoot`):
// a real codex approval and question answered from the chat, late clicks, strangers, buttons not
// ours, Telegram down or rate-limiting while another backend goes on, the token never shown, and
// `codex-harness serve --telegram`.
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { inspect } from "node:util";
import type { DeliveryFailure, InteractionBackend } from "../../src/channels/backends.js";
import { parsePeople } from "../../src/channels/chat/people.js";
import { ChannelsClient } from "../../src/channels/client.js";
import type { ChannelsServer } from "../../src/channels/http-server.js";
import {
  type TelegramBackendOptions,
  telegramBackend,
} from "../../src/channels/telegram/backend.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { channelsTestDirs } from "../support/channels-dirs.js";
import {
  askColor,
  personClient,
  recorder,
  runTurn,
  serveBackend,
  startCodexAsking,
} from "../support/chat-backends.js";
import { startCli, whileServing } from "../support/cli.js";
import type { CodexApiFixture } from "../support/codex-api-fixture.js";
import { eventually } from "../support/eventually.js";
import {
  apiError,
  type FakeMessage,
  type FakeTelegram,
  startFakeTelegram,
} from "../support/fake-telegram.js";

const TOKEN = "987654321:AAE-fake-token-for-the-tests_abcdefgh";
const CHAT = -1001234567890;
const ALICE = 1111;
const BOB = 2222;
const EVE = 6666;
const NOT_ALLOWED = /not on this codex-harness Telegram allow-list/;

let telegram: FakeTelegram | undefined;
let server: ChannelsServer | undefined;
let fixture: CodexApiFixture | undefined;
const { dataDir: tempDir } = channelsTestDirs("codex-harness-telegram-");

afterEach(async () => {
  await fixture?.close();
  await server?.close();
  await telegram?.close();
  fixture = undefined;
  server = undefined;
  telegram = undefined;
});

interface Started {
  telegram: FakeTelegram;
  server: ChannelsServer;
  client: ChannelsClient;
  errors: Error[];
  failures: DeliveryFailure[];
}

/** The fake Bot API, a runtime with the Telegram backend (and `others`) on it. */
async function start(
  options: {
    others?: InteractionBackend[];
    backend?: Partial<TelegramBackendOptions>;
    attempts?: number;
  } = {},
): Promise<Started> {
  const fake = await startFakeTelegram(TOKEN, [CHAT]);
  telegram = fake;
  const errors: Error[] = [];
  const served = await serveBackend(
    tempDir(),
    () =>
      telegramBackend({
        token: TOKEN,
        chatId: CHAT,
        people: parsePeople(`${ALICE}=alice,${BOB}=bob`, "test"),
        apiRoot: fake.url,
        pollTimeoutSeconds: 5,
        timeoutMs: 3_000,
        onError: (error) => errors.push(error),
        ...options.backend,
      }),
    {
      extra: options.others ?? [],
      retry: { initialDelayMs: 50, maxDelayMs: 3_000, attempts: options.attempts ?? 6 },
    },
  );
  server = served.server;
  return { telegram: fake, server, client: served.client, errors, failures: served.failures };
}

/** The data of the button labelled `label`. */
function button(message: FakeMessage, label: string): string {
  const found = message.keyboard.flat().find((b) => b.text === label);
  assert.ok(found?.callback_data, `a ${label} button in ${JSON.stringify(message.keyboard)}`);
  return found.callback_data;
}

const createApproval = (client: ChannelsClient, command = "ls") =>
  client.create({
    kind: "approval_request",
    source: { name: "test" },
    title: `Run ${command}`,
    payload: { command },
  });

describe("telegram backend", () => {
  it("a real codex command approval answered with a button: the command runs, the message says who", async () => {
    const started = await start();
    fixture = await startCodexAsking({ url: started.server.url, token: started.server.token }, [
      execCommand("echo telegram > tg.txt", { escalated: true }),
      reply("done"),
    ]);
    const turn = runTurn(fixture, "go");
    const message = await eventually(
      "the approval in the chat",
      () => started.telegram.messages[0],
    );
    assert.equal(message.chatId, CHAT);
    assert.equal(message.parseMode, "HTML");
    assert.match(message.text, /tg\.txt/);
    assert.deepEqual(
      message.keyboard.map((row) => row[0]?.text),
      ["Accept", "Accept for this session", "Decline", "Interrupt the turn"],
    );
    const query = started.telegram.click({
      userId: ALICE,
      message,
      data: button(message, "Accept"),
    });

    const result = await turn;
    assert.equal(result.finalResponse, "done");
    assert.ok(existsSync(path.join(fixture.workdir, "tg.txt")));
    await eventually("the message edited", () => /Accepted by alice/.test(message.text));
    assert.deepEqual(message.keyboard, []);
    assert.deepEqual(started.telegram.callbackAnswers.get(query), {
      text: "Accepted by alice",
      show_alert: false,
    });
    const [stored] = await started.client.list();
    assert.equal(stored?.status, "resolved");
    // Who answered is the verified Telegram user, by the allow-list's name.
    assert.equal(stored?.response?.answeredBy, `telegram:${ALICE}`);
    assert.equal(stored?.response?.answeredByName, "alice");
    assert.equal(stored?.response?.metadata?.via, "telegram");
    assert.equal(stored?.response?.metadata?.telegramUserId, String(ALICE));
    assert.deepEqual(started.errors, []);
    assert.deepEqual(started.failures, []);
  });

  it("a real codex question answered with one of its options", async () => {
    const started = await start();
    fixture = await startCodexAsking({ url: started.server.url, token: started.server.token }, [
      askColor(),
      reply("Red it is."),
    ]);
    const turn = runTurn(fixture, "pick one");
    const message = await eventually(
      "the question in the chat",
      () => started.telegram.messages[0],
    );
    assert.match(message.text, /Which color\?/);
    assert.deepEqual(
      message.keyboard.map((row) => row[0]?.text),
      ["blue", "red", "Decline", "Interrupt the turn"],
    );
    started.telegram.click({ userId: BOB, message, data: button(message, "red") });
    assert.equal((await turn).finalResponse, "Red it is.");
    assert.match(fixture.model.toolOutput("q1")?.output ?? "", /red/);
    await eventually("the message edited", () => /Answered by bob/.test(message.text));
  });

  it("a reply answers a single question in words; a stranger's reply is refused", async () => {
    const { telegram, client } = await start();
    const created = await client.create({
      kind: "user_input_request",
      source: { name: "test" },
      title: "Name?",
      payload: { questions: [{ id: "name", question: "What name?" }] },
    });
    const message = await eventually("the question", () => telegram.messages[0]);
    assert.match(message.text, /Reply to this message/);
    telegram.reply({ userId: EVE, message, text: "Mallory" });
    const refusal = await eventually("the refusal", () => telegram.messages[1]);
    assert.match(refusal.text, NOT_ALLOWED);
    assert.equal((await client.get(created.id)).status, "delivered");

    telegram.reply({ userId: ALICE, message, text: "Ada" });
    await eventually(
      "the answer",
      async () => (await client.get(created.id)).status === "resolved",
    );
    const stored = await client.get(created.id);
    assert.deepEqual(stored.response?.values, { text: "Ada" });
    assert.equal(stored.response?.answeredBy, `telegram:${ALICE}`);
    await eventually("the message edited", () => /Answered by alice/.test(message.text));
  });

  it("a click after someone else answered says who did, and changes nothing", async () => {
    const { telegram, client, server } = await start();
    const created = await createApproval(client);
    const message = await eventually("the approval", () => telegram.messages[0]);
    const carol = await personClient(server, "carol");
    await carol.respond(created.id, { action: "decline", metadata: { via: "web-inbox" } });
    const query = telegram.click({ userId: ALICE, message, data: button(message, "Accept") });
    const answered = await eventually("the click answered", () =>
      telegram.callbackAnswers.get(query),
    );
    assert.equal(answered.show_alert, true);
    assert.match(answered.text ?? "", /Declined by carol/);
    const stored = await client.get(created.id);
    assert.equal(stored.response?.action, "decline");
    assert.equal(stored.response?.answeredBy, "carol");
    await eventually("the message edited", () => /Declined by carol/.test(message.text));
    assert.deepEqual(message.keyboard, []);

    // Again while the backend has not yet seen the answer (its deliveries wait behind a send that
    // Telegram rate-limits): the runtime refuses the click as a conflict, and the clicker is told
    // who answered once the backend hears of it.
    const second = await createApproval(client, "make");
    const secondMessage = await eventually("the second approval", () => telegram.messages[1]);
    telegram.failNext("sendMessage", 1, apiError(429, "Too Many Requests: retry after 1", 1));
    await createApproval(client, "held up");
    await eventually("the rate-limited send", () =>
      telegram.calls.some((call) => String(call.payload.text).includes("held up")),
    );
    await carol.respond(second.id, { action: "accept" });
    const late = telegram.click({
      userId: BOB,
      message: secondMessage,
      data: button(secondMessage, "Decline"),
    });
    const told = await eventually("the late click answered", () =>
      telegram.callbackAnswers.get(late),
    );
    assert.equal(told.show_alert, true);
    assert.match(told.text ?? "", /^Someone else answered first: Accepted by carol\./);
    assert.equal((await client.get(second.id)).response?.answeredBy, "carol");
    await eventually("the second message edited", () =>
      /Accepted by carol/.test(secondMessage.text),
    );
  });

  it("a Telegram user linked to a person answers as them without the allow-list; a two-person rule shows its progress, buttons kept, and refuses the same person twice", async () => {
    const { telegram, client, server: runtime } = await start({ backend: { people: undefined } });
    const people = runtime.people;
    assert.ok(people);
    await people.add({ id: "dana", name: "Dana", groups: ["release"] });
    await people.add({ id: "erin", name: "Erin", groups: ["release"] });
    await people.link("dana", `telegram:${ALICE}`);
    await people.link("erin", `telegram:${BOB}`);
    const created = await client.create({
      kind: "approval_request",
      source: { name: "test" },
      title: "Run npm publish",
      payload: { command: "npm publish" },
      routing: { answer: ["group:release"], approvals: 2 },
    });
    const message = await eventually("the approval", () => telegram.messages[0]);
    const accept = button(message, "Accept");
    // Eve is on no allow-list (there is none) and linked to nobody.
    const stranger = telegram.click({ userId: EVE, message, data: accept });
    await eventually("the stranger told", () => telegram.callbackAnswers.get(stranger));
    assert.match(telegram.callbackAnswers.get(stranger)?.text ?? "", NOT_ALLOWED);
    assert.match(
      telegram.callbackAnswers.get(stranger)?.text ?? "",
      /people link <person> telegram:6666$/,
    );

    const first = telegram.click({ userId: ALICE, message, data: accept });
    await eventually("the accept counted", () => telegram.callbackAnswers.get(first));
    assert.deepEqual(telegram.callbackAnswers.get(first), {
      text: "Your approval counts: 1 of 2 approvals (Dana).",
      show_alert: false,
    });
    await eventually("the message shows it", () => /1 of 2 approvals \(Dana\)/.test(message.text));
    assert.equal(button(message, "Accept"), accept, "the buttons are still there");
    const again = telegram.click({ userId: ALICE, message, data: accept });
    await eventually("the second accept refused", () => telegram.callbackAnswers.get(again));
    assert.equal(telegram.callbackAnswers.get(again)?.show_alert, true);
    assert.match(
      telegram.callbackAnswers.get(again)?.text ?? "",
      /^Your answer was not taken: dana has approved this request already/,
    );

    telegram.click({ userId: BOB, message, data: accept });
    await eventually("the message edited", () => /Accepted by Dana, Erin/.test(message.text));
    assert.deepEqual(message.keyboard, []);
    const done = await client.get(created.id);
    assert.equal(done.response?.answeredBy, "erin");
    assert.deepEqual(
      done.approvals?.map((approval) => approval.by),
      ["dana", "erin"],
    );
  });

  it("strangers, other chats and buttons not ours answer nothing", async () => {
    const { telegram, client } = await start();
    const created = await createApproval(client);
    const message = await eventually("the approval", () => telegram.messages[0]);
    const accept = button(message, "Accept");
    const clicks = {
      stranger: telegram.click({ userId: EVE, message, data: accept }),
      otherChat: telegram.click({ userId: ALICE, message, data: accept, chatId: -100999 }),
      notOurs: telegram.click({ userId: ALICE, message, data: "hello" }),
      unknown: telegram.click({
        userId: ALICE,
        message,
        data: "int_00000000-0000-4000-8000-000000000000:0",
      }),
      noSuchButton: telegram.click({ userId: ALICE, message, data: `${created.id}:9` }),
    };
    for (const [what, id] of Object.entries(clicks)) {
      const answer = await eventually(what, () => telegram.callbackAnswers.get(id));
      assert.equal(answer.show_alert, true, what);
      if (what === "stranger" || what === "otherChat") assert.match(answer.text ?? "", NOT_ALLOWED);
      else assert.doesNotMatch(answer.text ?? "", NOT_ALLOWED);
    }
    assert.equal((await client.get(created.id)).status, "delivered");
    assert.equal(message.edits, 0);
    // The same button, clicked by someone allowed, still works.
    telegram.click({ userId: BOB, message, data: accept });
    await eventually(
      "bob's answer",
      async () => (await client.get(created.id)).status === "resolved",
    );
  });

  it("a request it cannot show in full: its raw JSON, only Decline and Interrupt; a forged Accept or a reply is refused", async () => {
    const { telegram, client } = await start();
    const created = await client.create({
      kind: "approval_request",
      source: { name: "test" },
      title: "Run something",
      payload: { foo: "bar" },
    });
    const message = await eventually("the approval", () => telegram.messages[0]);
    assert.deepEqual(
      message.keyboard.map((row) => row[0]?.text),
      ["Decline", "Interrupt the turn"],
    );
    assert.match(message.text, /cannot show the request in full/);
    assert.match(message.text, /"foo": "bar"/);
    // The Accept a message of this request never had (it would be :0), clicked anyway.
    const forged = telegram.click({ userId: ALICE, message, data: `${created.id}:0` });
    const refused = await eventually("the refusal", () => telegram.callbackAnswers.get(forged));
    assert.equal(refused.show_alert, true);
    assert.match(refused.text ?? "", /nothing was answered/);
    assert.equal((await client.get(created.id)).status, "delivered");

    // A question it cannot show (an option's description is a number): a reply is refused too.
    const asked = await client.create({
      kind: "user_input_request",
      source: { name: "test" },
      title: "Name?",
      payload: {
        questions: [
          { id: "name", question: "What name?", options: [{ label: "Ada", description: 1 }] },
        ],
      },
    });
    const question = await eventually("the question", () => telegram.messages[1]);
    assert.deepEqual(
      question.keyboard.map((row) => row[0]?.text),
      ["Decline", "Interrupt the turn"],
    );
    telegram.reply({ userId: ALICE, message: question, text: "Ada" });
    const said = await eventually("the refusal", () => telegram.messages[2]);
    assert.match(
      said.text,
      /^Not taken: .*the Telegram message cannot show this user_input_request in full/,
    );
    assert.equal((await client.get(asked.id)).status, "delivered");

    telegram.click({ userId: BOB, message, data: button(message, "Decline") });
    await eventually(
      "bob's decline",
      async () => (await client.get(created.id)).response?.action === "decline",
    );
  });

  it("Telegram down (500) and rate-limiting (429 retry_after): retried with backoff, another backend not held up", async () => {
    const other = recorder();
    const { telegram, client, errors, failures } = await start({
      others: [other],
      backend: { pollTimeoutSeconds: 1 },
    });
    telegram.failNext("sendMessage", 2, apiError(500, "Internal Server Error"));
    telegram.failNext("sendMessage", 1, apiError(429, "Too Many Requests: retry after 1", 1));
    telegram.failNext("getUpdates", 1, apiError(502, "Bad Gateway"));
    const began = Date.now();
    const created = await createApproval(client);
    await eventually("the other backend's delivery", () =>
      other.seen.some((seen) => seen.change.interaction.id === created.id),
    );
    assert.ok(Date.now() - began < 1_000, "the other backend was not held up");
    const message = await eventually("the message, at last", () => telegram.messages[0]);
    const sends = telegram.calls.filter((call) => call.method === "sendMessage");
    assert.equal(sends.length, 4);
    const [, , limited, sent] = sends;
    assert.ok(limited && sent && sent.at - limited.at >= 950, "waited retry_after (1 s)");
    await eventually(
      "delivered",
      async () => (await client.get(created.id)).status === "delivered",
    );
    // The poller got over its 502 too: a click works.
    await eventually("the poller's report", () => errors.length > 0);
    assert.match(errors[0]?.message ?? "", /getUpdates answered 502/);
    telegram.failNext("editMessageText", 1, apiError(503, "Service Unavailable"));
    telegram.click({ userId: ALICE, message, data: button(message, "Accept") });
    await eventually("the edit, retried", () => /Accepted by alice/.test(message.text));
    assert.equal(telegram.calls.filter((call) => call.method === "editMessageText").length, 2);
    assert.deepEqual(failures, []);
  });

  it("never shows the token: a wrong one, or Telegram unreachable", async () => {
    const wrong = await start({ attempts: 2, backend: { token: `${TOKEN}x` } });
    await createApproval(wrong.client);
    await eventually("the refused send", () => wrong.failures.length === 1);
    await eventually("polling stopped", () =>
      /Polling stopped/.test(wrong.errors.at(-1)?.message ?? ""),
    );
    const refused = wrong.failures[0]?.error as Error & { code?: string };
    assert.equal(refused.code, "telegram_refused");
    assert.match(refused.message, /sendMessage answered 401/);
    await server?.close();
    await telegram?.close();
    server = undefined;

    const down = await start({ attempts: 2 });
    await down.telegram.close();
    telegram = undefined;
    await createApproval(down.client);
    await eventually("the failed sends", () => down.failures.length === 1);
    await eventually("a polling failure", () => down.errors.length > 0);
    const failure = down.failures[0]?.error as Error;
    assert.equal(failure.name, "RetryableError");
    assert.match(failure.message, /ECONNREFUSED/);
    for (const error of [...wrong.errors, ...down.errors, refused, failure]) {
      assert.ok(!inspect(error, { depth: 5 }).includes(TOKEN), inspect(error));
    }
  });

  it("codex-harness serve --telegram: the token from a file, never printed", async () => {
    const fake = await startFakeTelegram(TOKEN, [CHAT]);
    telegram = fake;
    const dir = tempDir();
    const tokenFile = path.join(dir, "bot-token");
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const flags = [
      "serve",
      "--port",
      "0",
      "--data-dir",
      path.join(dir, "data"),
      "--telegram",
      "--telegram-chat",
      String(CHAT),
      "--telegram-people",
      `${ALICE}=alice`,
      "--telegram-api-root",
      fake.url,
    ];
    const env = { PATH: process.env.PATH, HOME: dir };
    const missing = startCli(flags, env);
    missing.child.stdin.end();
    assert.equal(await missing.closed, 1);
    assert.match(missing.output.stderr, /needs TELEGRAM_BOT_TOKEN \(or TELEGRAM_BOT_TOKEN_FILE/);

    const output = await whileServing(
      flags,
      { ...env, TELEGRAM_BOT_TOKEN_FILE: tokenFile },
      async ({ url, token }) => {
        const client = new ChannelsClient({ url, token });
        await createApproval(client, "make deploy");
        const message = await eventually("the message", () => fake.messages[0]);
        assert.match(message.text, /make deploy/);
        fake.click({ userId: ALICE, message, data: button(message, "Decline") });
        await eventually("the edit", () => /Declined by alice/.test(message.text));
      },
    );
    assert.ok(!`${output.stdout}${output.stderr}`.includes(TOKEN));
  });
});
