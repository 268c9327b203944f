// The Slack backend against a local fake Slack (the real @slack/web-api and @slack/socket-mode
// pointed at it): a real codex approval answered by a click, a free-text question answered in a
// modal, an option answered over socket mode, a Slack user linked to a person answering as them
// under routing (and a two-person rule's progress in the message), a late click, forged and stale
// signatures, an unknown user, Slack down or rate-limiting.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import type { AuditRecord } from "../../src/channels/audit-types.js";
import type { InteractionBackend } from "../../src/channels/backends.js";
import { notAllowed, parsePeople } from "../../src/channels/chat/people.js";
import { ChannelsClient } from "../../src/channels/client.js";
import { type answerModal, TYPE_ANSWER_ACTION } from "../../src/channels/slack/answer-modal.js";
import {
  type SlackBackend,
  type SlackBackendOptions,
  slackBackend,
} from "../../src/channels/slack/backend.js";
import { SLACK_INTERACTIONS_PATH } from "../../src/channels/slack/interactivity.js";
import { SqliteInteractionStore } from "../../src/channels/sqlite-store.js";
import type { CodexHarnessError } from "../../src/errors.js";
import { execCommand, reply, requestUserInput } from "../../src/testing/script.js";
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
import { buttonsOf, clickPayload, FakeSlack, postClick } from "../support/fake-slack.js";

const BOT_TOKEN = "xoxb-1111-2222-secretbottoken";
const APP_TOKEN = "xapp-1-A0FAKE-3333-secretapptoken";
const SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const CHANNEL = "C0CODEX";
const PEOPLE = parsePeople("U0ALICE=alice,U0BOB=bob", "--slack-people");

const { dataDir, servers } = channelsTestDirs("codex-harness-slack-");
const fakes: FakeSlack[] = [];
let fixture: CodexApiFixture | undefined;
after(async () => {
  await fixture?.close();
  for (const fake of fakes.splice(0)) await fake.close();
});

async function startFake(): Promise<FakeSlack> {
  const fake = await FakeSlack.start({ botToken: BOT_TOKEN, appToken: APP_TOKEN });
  fakes.push(fake);
  return fake;
}

/** The options every Slack backend here has: the bot token, the channel, who may answer, the fake. */
function slackOptions(fake: FakeSlack): SlackBackendOptions {
  return { token: BOT_TOKEN, channel: CHANNEL, people: PEOPLE, apiUrl: fake.apiUrl };
}

interface Setup extends ServedBackend<SlackBackend> {
  fake: FakeSlack;
  slack: SlackBackend;
  clickUrl: string;
}

async function setup(
  options: Partial<SlackBackendOptions> = {},
  extra: InteractionBackend[] = [],
  fake?: FakeSlack,
): Promise<Setup> {
  const slackFake = fake ?? (await startFake());
  const served = await serveBackend(
    dataDir(),
    (log) =>
      slackBackend({ ...slackOptions(slackFake), signingSecret: SIGNING_SECRET, log, ...options }),
    { extra },
  );
  servers.push(served.server);
  return {
    ...served,
    fake: slackFake,
    slack: served.backend,
    clickUrl: `${served.server.url}${SLACK_INTERACTIONS_PATH}`,
  };
}

/** The audit log of a server on the embedded store (read through a second connection). */
async function auditOf(server: { tokenFile: string }): Promise<AuditRecord[]> {
  const file = path.join(path.dirname(server.tokenFile), "interactions.db");
  const store = await SqliteInteractionStore.open(file);
  try {
    const rows = await store.audit.rows({ limit: 1_000 });
    return rows.map((row) => JSON.parse(row.body) as AuditRecord);
  } finally {
    await store.close();
  }
}

/** Adds a person in group release and links a Slack user (on no allow-list) to them. */
async function linkedPerson(setup: Setup, id: string, name: string, slackUser: string) {
  const people = setup.server.people;
  assert.ok(people, "the embedded store keeps people");
  await people.add({ id, name, groups: ["release"] });
  await people.link(id, `slack:${slackUser}`);
}

describe("Slack backend", () => {
  it("a real codex command approval answered by a signed click runs the command; the message says who", async () => {
    const { fake, server, clickUrl } = await setup();
    fixture = await startCodexAsking({ url: server.url, token: server.token }, [
      execCommand("echo slacked > slack.txt", { escalated: true }),
      reply("done"),
    ]);
    const turn = runTurn(fixture, "go");
    const message = await posted(fake);
    assert.equal(message.channel, CHANNEL);
    assert.match(message.text, /slack\.txt/);
    const buttons = buttonsOf(message);
    assert.deepEqual(
      [...buttons.keys()],
      ["Accept", "Accept for this session", "Decline", "Interrupt the turn"],
    );
    const accept = buttons.get("Accept");
    assert.ok(accept);
    assert.equal(
      await postClick(clickUrl, SIGNING_SECRET, clickPayload("U0ALICE", message, accept)),
      200,
    );
    await turn;
    assert.ok(existsSync(path.join(fixture.workdir, "slack.txt")));
    await eventually("the message updated", () => /Accepted by alice/.test(message.text));
    assert.ok(
      message.blocks.every((block) => block.type !== "actions"),
      "no buttons once answered",
    );
    const client = new ChannelsClient({ url: server.url, token: server.token });
    const [answered] = await client.list({ status: ["resolved"] });
    // Who answered is the verified Slack user, by the allow-list's name.
    assert.equal(answered?.response?.answeredBy, "slack:U0ALICE");
    assert.equal(answered?.response?.answeredByName, "alice");
    assert.deepEqual(answered?.response?.metadata, { via: "slack", slackUser: "U0ALICE" });
    await fixture.close();
    fixture = undefined;
  });

  it("a Slack user mapped to a person answers under that identity: routing to group:release takes the linked user's click, and refuses an allow-listed one outside it", async () => {
    const served = await setup();
    const { fake, server, clickUrl, slack, client } = served;
    // Dana is on no allow-list, but linked; Alice is on the allow-list, in no group.
    await linkedPerson(served, "dana", "Dana Scully", "U0DANA");
    fixture = await startCodexAsking(
      { url: server.url, token: server.token, routing: { answer: ["group:release"] } },
      [execCommand("echo linked > linked.txt", { escalated: true }), reply("done")],
    );
    const turn = runTurn(fixture, "go");
    const message = await posted(fake);
    const accept = buttonsOf(message).get("Accept") ?? "";
    assert.equal(
      await postClick(clickUrl, SIGNING_SECRET, clickPayload("U0ALICE", message, accept)),
      200,
    );
    assert.deepEqual(await slack.settled(), ["refused"]);
    const [told] = fake.callsOf("chat.postEphemeral");
    assert.equal(told?.args.user, "U0ALICE");
    assert.equal(
      told?.args.text,
      "Your answer was not taken: Only group:release may answer this request, and slack:U0ALICE is not among them.",
    );
    const [waiting] = await client.list({ status: ["pending", "delivered"] });
    assert.ok(waiting, "still waiting after the refusal");
    assert.equal(
      await postClick(clickUrl, SIGNING_SECRET, clickPayload("U0DANA", message, accept)),
      200,
    );
    await turn;
    assert.ok(existsSync(path.join(fixture.workdir, "linked.txt")));
    assert.deepEqual(await slack.settled(), ["refused", "answered"]);
    await eventually("the message updated", () => /Accepted by Dana Scully/.test(message.text));
    const answered = await client.get(waiting.id);
    assert.equal(answered.response?.answeredBy, "dana");
    assert.equal(answered.response?.answeredByName, "Dana Scully");
    assert.deepEqual(answered.response?.metadata, { via: "slack", slackUser: "U0DANA" });
    const records = (await auditOf(server)).filter((record) => record.subject === waiting.id);
    assert.deepEqual(
      records.map((record) => [record.action, record.surface, record.reason ?? record.decision]),
      [
        ["interaction.created", "api", "created"],
        ["answer.refused", "slack", "not_allowed"],
        ["interaction.answered", "slack", "accept"],
      ],
    );
    assert.deepEqual(records[1]?.actor, { kind: "person", id: "slack:U0ALICE", name: "alice" });
    assert.deepEqual(records[2]?.actor, {
      kind: "person",
      id: "dana",
      name: "Dana Scully",
      platformUser: "slack:U0DANA",
    });
    await fixture.close();
    fixture = undefined;
  });

  it("a two-person rule from Slack: one accept shows 1 of 2 approvals with the buttons kept, the same person again is told, another person's accept resolves it", async () => {
    const served = await setup();
    const { fake, client, clickUrl, slack } = served;
    await linkedPerson(served, "dana", "Dana Scully", "U0DANA");
    await linkedPerson(served, "erin", "Erin", "U0ERIN");
    const created = await client.create({
      ...approval,
      routing: { answer: ["group:release"], approvals: 2 },
    });
    const message = await posted(fake);
    const accept = buttonsOf(message).get("Accept") ?? "";
    const click = (user: string) =>
      postClick(clickUrl, SIGNING_SECRET, clickPayload(user, message, accept));
    assert.equal(await click("U0DANA"), 200);
    assert.deepEqual(await slack.settled(), ["answered"]);
    await eventually("the message shows the approval", () =>
      JSON.stringify(message.blocks).includes("1 of 2 approvals (Dana Scully)"),
    );
    assert.equal(buttonsOf(message).get("Accept"), accept, "the buttons are still there");
    const once = await client.get(created.id);
    assert.equal(once.status, "delivered");
    assert.deepEqual(
      once.approvals?.map((approval) => approval.by),
      ["dana"],
    );

    assert.equal(await click("U0DANA"), 200);
    assert.deepEqual(await slack.settled(), ["answered", "refused"]);
    const [told] = fake.callsOf("chat.postEphemeral");
    assert.equal(told?.args.user, "U0DANA");
    assert.match(
      String(told?.args.text),
      /^Your answer was not taken: dana has approved this request already; it needs 2 approvals from different people \(1 of 2 so far\)\.$/,
    );

    assert.equal(await click("U0ERIN"), 200);
    assert.deepEqual(await slack.settled(), ["answered", "refused", "answered"]);
    await eventually("the message updated", () =>
      /Accepted by Dana Scully, Erin/.test(message.text),
    );
    assert.ok(
      message.blocks.every((block) => block.type !== "actions"),
      "no buttons once done",
    );
    const done = await client.get(created.id);
    assert.equal(done.status, "resolved");
    assert.deepEqual(
      done.approvals?.map((approval) => approval.by),
      ["dana", "erin"],
    );
  });

  it("a real codex question answered in a modal with words of one's own: Type an answer, then submit", async () => {
    const { fake, server, clickUrl, client } = await setup();
    fixture = await startCodexAsking({ url: server.url, token: server.token }, [
      requestUserInput(
        [
          {
            id: "branch",
            header: "Branch",
            question: "Which branch?",
            options: [
              { label: "main", description: "" },
              { label: "dev", description: "" },
            ],
          },
        ],
        { callId: "q2" },
      ),
      reply("On it."),
    ]);
    const turn = runTurn(fixture, "go");
    const message = await posted(fake);
    const buttons = buttonsOf(message);
    // codex lets every question be answered besides its options (is_other): the modal takes that.
    assert.deepEqual(
      [...buttons.keys()],
      ["main", "dev", "Type an answer", "Decline", "Interrupt the turn"],
    );
    const [waiting] = await client.list({ status: ["pending", "delivered"] });
    assert.ok(waiting);
    assert.equal(buttons.get("Type an answer"), waiting.id);
    const open = clickPayload("U0ALICE", message, waiting.id, TYPE_ANSWER_ACTION);
    assert.equal(await postClick(clickUrl, SIGNING_SECRET, open), 200);
    const opened = await eventually("the modal opened", () => fake.callsOf("views.open")[0]);
    const view = opened.args.view as ReturnType<typeof answerModal>;
    assert.equal(opened.args.trigger_id, "1.2.3");
    assert.deepEqual(
      view.blocks.map((block) => [block.label.text, block.hint?.text]),
      [["Which branch?", "Your own answer, or one of: main, dev"]],
    );
    const submission = {
      type: "view_submission",
      user: { id: "U0ALICE" },
      view: {
        id: "V1",
        callback_id: view.callback_id,
        private_metadata: view.private_metadata,
        state: {
          values: { "q:branch": { answer: { type: "plain_text_input", value: "release/2.0" } } },
        },
      },
    };
    assert.equal(await postClick(clickUrl, SIGNING_SECRET, submission), 200);
    await turn;
    assert.match(fixture.model.toolOutput("q2")?.output ?? "", /release\/2\.0/);
    await eventually("the message updated", () => /Answered by alice/.test(message.text));
    await fixture.close();
    fixture = undefined;
  });

  it("a question is answered with an option button over socket mode", async () => {
    const fake = await startFake();
    const { client, slack } = await setup(
      { signingSecret: undefined, appToken: APP_TOKEN },
      [],
      fake,
    );
    assert.equal(fake.connections, 1, "socket mode connected on start");
    assert.equal(fake.callsOf("apps.connections.open").length, 1);
    const asked = await client.create(colorRequest);
    const message = await posted(fake);
    const buttons = buttonsOf(message);
    assert.deepEqual([...buttons.keys()], ["blue", "red", "Decline", "Interrupt the turn"]);
    await fake.sendInteractive(clickPayload("U0BOB", message, buttons.get("red") ?? ""));
    assert.deepEqual(await slack.settled(), ["answered"]);
    const answered = await client.get(asked.id);
    assert.equal(answered.status, "resolved");
    assert.equal(answered.response?.action, "text");
    assert.deepEqual(answered.response?.values, { text: "red" });
    await eventually("the message updated", () => /Answered by bob/.test(message.text));
  });

  it("a click after someone else answered tells the clicker who did, and nothing changes", async () => {
    const { fake, client, clickUrl, slack, server } = await setup();
    const created = await client.create(approval);
    const message = await posted(fake);
    const carol = await personClient(server, "carol");
    await carol.respond(created.id, { action: "decline", metadata: { via: "cli" } });
    await eventually("the message updated", () => /Declined by carol/.test(message.text));
    const accept = buttonsOf(
      // The button the late clicker still sees: the message as first posted.
      { ...message, blocks: (fake.callsOf("chat.postMessage")[0]?.args.blocks ?? []) as never },
    ).get("Accept");
    assert.ok(accept);
    assert.equal(
      await postClick(clickUrl, SIGNING_SECRET, clickPayload("U0ALICE", message, accept)),
      200,
    );
    assert.deepEqual(await slack.settled(), ["late"]);
    const told = fake.callsOf("chat.postEphemeral");
    assert.equal(told.length, 1);
    assert.equal(told[0]?.args.user, "U0ALICE");
    assert.equal(told[0]?.args.text, "Your answer was not taken: Declined by carol.");
    const now = await client.get(created.id);
    assert.equal(now.response?.action, "decline");
    assert.equal(now.response?.answeredBy, "carol");
    assert.match(message.text, /Declined by carol/);
  });

  it("a request it cannot show in full: its raw JSON, only Decline and Interrupt; a forged Accept answers nothing", async () => {
    const { fake, client, clickUrl, slack } = await setup();
    const created = await client.create({ ...approval, payload: { foo: "bar" } });
    const message = await posted(fake);
    assert.deepEqual([...buttonsOf(message).keys()], ["Decline", "Interrupt the turn"]);
    const section = JSON.stringify(message.blocks[1]);
    assert.match(section, /cannot show the request in full/);
    assert.match(section, /\\"foo\\": \\"bar\\"/);
    // The Accept a message of this request never had (it would be :0), clicked anyway.
    const forged = clickPayload("U0ALICE", message, `${created.id}:0`);
    assert.equal(await postClick(clickUrl, SIGNING_SECRET, forged), 200);
    assert.deepEqual(await slack.settled(), ["invalid"]);
    const [told] = fake.callsOf("chat.postEphemeral");
    assert.equal(told?.args.user, "U0ALICE");
    assert.equal(
      told?.args.text,
      "This button does not answer this interaction; nothing was sent.",
    );
    assert.equal((await client.get(created.id)).status, "delivered");
    // Nor does the runtime take an accept said to come from Slack.
    await assert.rejects(
      client.respond(created.id, { action: "accept", metadata: { via: "slack" } }),
      /the Slack message cannot show this approval_request in full/,
    );
    const decline = buttonsOf(message).get("Decline") ?? "";
    assert.equal(
      await postClick(clickUrl, SIGNING_SECRET, clickPayload("U0ALICE", message, decline)),
      200,
    );
    assert.deepEqual(await slack.settled(), ["invalid", "answered"]);
    assert.equal((await client.get(created.id)).response?.action, "decline");
    await eventually("the message updated", () => /Declined by alice/.test(message.text));
  });

  it("a forged signature and a stale timestamp get 401 and answer nothing", async () => {
    const { fake, client, clickUrl, slack } = await setup();
    const created = await client.create(approval);
    const message = await posted(fake);
    const accept = buttonsOf(message).get("Accept") ?? "";
    const click = clickPayload("U0ALICE", message, accept);
    assert.equal(
      await postClick(clickUrl, SIGNING_SECRET, click, { signWith: "not-the-secret" }),
      401,
    );
    const stale = Math.floor(Date.now() / 1000) - 6 * 60;
    assert.equal(await postClick(clickUrl, SIGNING_SECRET, click, { timestamp: stale }), 401);
    const unsigned = await fetch(clickUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ payload: JSON.stringify(click) }).toString(),
    });
    assert.equal(unsigned.status, 401);
    await unsigned.body?.cancel();
    assert.deepEqual(await slack.settled(), []);
    assert.equal((await client.get(created.id)).status, "delivered");
    assert.equal(fake.callsOf("chat.postEphemeral").length, 0);
  });

  it("someone not on the allow-list is told so, and their click answers nothing", async () => {
    const { fake, client, clickUrl, slack } = await setup();
    const created = await client.create(approval);
    const message = await posted(fake);
    const accept = buttonsOf(message).get("Accept") ?? "";
    assert.equal(
      await postClick(clickUrl, SIGNING_SECRET, clickPayload("U0MALLORY", message, accept)),
      200,
    );
    assert.deepEqual(await slack.settled(), ["refused"]);
    const [told] = fake.callsOf("chat.postEphemeral");
    assert.equal(told?.args.user, "U0MALLORY");
    assert.equal(told?.args.text, notAllowed("Slack", "slack:U0MALLORY"));
    assert.equal((await client.get(created.id)).status, "delivered");
  });

  it("Slack down (500) and rate-limiting (429, Retry-After) are retried with backoff; another backend is not held up", async () => {
    const fake = await startFake();
    fake.failNext({ method: "chat.postMessage", status: 500, body: "upstream down" });
    fake.failNext({ method: "chat.postMessage", status: 429, headers: { "retry-after": "1" } });
    const other = recorder("quick");
    const { client, failures } = await setup({}, [other], fake);
    const started = Date.now();
    const created = await client.create(approval);
    await eventually("the other backend's delivery", () => other.seen.length > 0);
    assert.ok(Date.now() - started < 900, "the other backend got it before Slack's retry-after");
    const message = await posted(fake);
    assert.match(message.text, /make deploy/);
    const attempts = fake.calls.filter((call) => call.method === "chat.postMessage");
    assert.deepEqual(
      attempts.map((call) => call.status),
      [500, 429, 200],
    );
    const waited = (attempts[2]?.at ?? 0) - (attempts[1]?.at ?? 0);
    assert.ok(waited >= 950, `waited ${waited} ms after the 429's Retry-After: 1`);
    await eventually(
      "delivered",
      async () => (await client.get(created.id)).status === "delivered",
    );
    assert.deepEqual(failures, []);
  });

  it("an error names Slack's code but never the token; a bad app token fails the start", async () => {
    const fake = await startFake();
    const { client, failures } = await setup({ token: "xoxb-wrong-token-value" }, [], fake);
    await client.create(approval);
    await eventually("the failure", () => failures.length > 0);
    const error = failures[0]?.error as CodexHarnessError;
    assert.equal(error.code, "slack_error");
    assert.match(error.message, /chat\.postMessage: invalid_auth \(check SLACK_BOT_TOKEN/);
    assert.ok(!error.message.includes("xoxb-wrong-token-value"));
    await assert.rejects(
      serveOnly(
        dataDir(),
        slackBackend({
          ...slackOptions(fake),
          appToken: "xapp-not-the-right-one",
          log: () => {},
        }),
      ),
      (thrown: CodexHarnessError) => {
        assert.equal(thrown.code, "slack_socket_failed");
        assert.match(thrown.message, /invalid_auth/);
        assert.ok(!thrown.message.includes("xapp-not-the-right-one"));
        return true;
      },
    );
  });

  it("names the package to install when a Slack SDK is missing", async () => {
    const fake = await startFake();
    for (const [name, neededBy, extra] of [
      ["@slack/web-api", "The Slack backend", {}],
      ["@slack/socket-mode", "The Slack backend's socket mode", { appToken: APP_TOKEN }],
    ] as const) {
      await assert.rejects(
        serveOnly(
          dataDir(),
          slackBackend({
            ...slackOptions(fake),
            signingSecret: SIGNING_SECRET,
            importer: withoutPackage(name),
            ...extra,
          }),
        ),
        {
          code: "missing_dependency",
          message: `${neededBy} needs the optional package ${name}: npm install ${name}`,
        },
      );
    }
  });
});
