// The Slack backend's pure parts: Block Kit from an interaction, Slack's request signatures, how
// SDK failures become retries or give-ups, and the options it refuses (never echoing a secret).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RetryableError } from "../../src/channels/backends.js";
import { parsePeople } from "../../src/channels/chat/people.js";
import type { Interaction } from "../../src/channels/interaction-types.js";
import { TYPE_ANSWER_ACTION } from "../../src/channels/slack/answer-modal.js";
import { slackBackend } from "../../src/channels/slack/backend.js";
import { escapeMrkdwn, slackMessage, TYPE_ELSEWHERE } from "../../src/channels/slack/blocks.js";
import { slackFailure } from "../../src/channels/slack/errors.js";
import { signSlackRequest, verifySlackRequest } from "../../src/channels/slack/signature.js";
import { CodexHarnessError } from "../../src/errors.js";
import { interactionBase } from "../support/chat-fixtures.js";

const approval = {
  ...interactionBase,
  kind: "approval_request",
  title: "Run <rm -rf> & co",
  payload: { command: "echo a > b", cwd: "/work/app" },
  actions: ["accept", "decline", "cancel"],
} as unknown as Interaction;

describe("Slack messages", () => {
  it("an open approval: a section with escaped text and the shared buttons, styled", () => {
    const message = slackMessage(approval);
    assert.equal(message.text, "Run <rm -rf> & co");
    const [title, details, actions, ...rest] = message.blocks;
    assert.deepEqual(title, {
      type: "section",
      text: { type: "mrkdwn", text: "*Run &lt;rm -rf&gt; &amp; co*" },
    });
    assert.deepEqual(details, {
      type: "section",
      text: { type: "mrkdwn", text: "$ echo a &gt; b\nin /work/app" },
    });
    assert.equal(actions?.type, "actions");
    assert.deepEqual(rest, []);
    const buttons = actions?.type === "actions" ? actions.elements : [];
    assert.deepEqual(
      buttons.map((b) => [b.text.text, b.style, b.value === b.action_id]),
      [
        ["Accept", "primary", true],
        ["Accept for this session", undefined, true],
        ["Decline", "danger", true],
        ["Interrupt the turn", undefined, true],
      ],
    );
    assert.equal(buttons[0]?.value, `${approval.id}:0`);
  });

  it("an ended one: no buttons, and the outcome with who answered", () => {
    const answered = {
      ...approval,
      status: "resolved",
      response: {
        action: "accept",
        values: { scope: "session" },
        metadata: { answeredBy: "alice", via: "slack" },
        respondedAt: interactionBase.updatedAt,
      },
    } as Interaction;
    const message = slackMessage(answered);
    assert.equal(message.text, "Run <rm -rf> & co: Accepted for this session by alice");
    assert.ok(message.blocks.every((block) => block.type !== "actions"));
    assert.deepEqual(message.blocks.at(-1), {
      type: "context",
      elements: [{ type: "mrkdwn", text: "Accepted for this session by alice" }],
    });
    const expired = { ...approval, status: "errored", end: { reason: "timeout", at: "x" } };
    assert.match(slackMessage(expired as Interaction).text, /Expired: nobody answered in time$/);
  });

  it("a question without options gets a Type an answer button (a modal); one with options does not", () => {
    const question = (options?: { label: string }[]) =>
      ({
        ...interactionBase,
        kind: "user_input_request",
        title: "Which?",
        payload: { questions: [{ id: "q", question: "Which?", ...(options ? { options } : {}) }] },
        actions: ["text", "decline", "cancel"],
      }) as unknown as Interaction;
    const typeButton = (interaction: Interaction) =>
      slackMessage(interaction).blocks.some(
        (block) =>
          block.type === "actions" &&
          block.elements.some((button) => button.action_id === TYPE_ANSWER_ACTION),
      );
    const note = (interaction: Interaction) =>
      slackMessage(interaction).blocks.some(
        (block) => block.type === "context" && block.elements[0]?.text === TYPE_ELSEWHERE,
      );
    assert.equal(typeButton(question()), true);
    assert.equal(note(question()), false);
    assert.equal(typeButton(question([{ label: "a" }, { label: "b" }])), false);
    assert.equal(note(question([{ label: "a" }, { label: "b" }])), false);
    assert.equal(escapeMrkdwn("<@U1> & <!here>"), "&lt;@U1&gt; &amp; &lt;!here&gt;");
  });
});

describe("Slack messages of a request that cannot be shown in full", () => {
  it("no Accept: its raw JSON after a line saying why, only Decline and Interrupt", () => {
    for (const payload of [{ foo: "bar" }, { command: 42 }]) {
      const message = slackMessage({ ...approval, payload } as Interaction);
      const label = JSON.stringify(payload);
      const [title, details, actions, ...rest] = message.blocks;
      assert.deepEqual(rest, [], label);
      assert.equal(title?.type === "section" && title.text.text, "*Run &lt;rm -rf&gt; &amp; co*");
      const text = details?.type === "section" ? details.text.text : "";
      assert.match(text, /^This message cannot show the request in full \(/, label);
      assert.ok(text.includes(JSON.stringify(payload, null, 2)), label);
      assert.deepEqual(
        actions?.type === "actions" ? actions.elements.map((b) => [b.text.text, b.value]) : [],
        [
          ["Decline", `${approval.id}:2`],
          ["Interrupt the turn", `${approval.id}:3`],
        ],
        label,
      );
    }
  });

  it("a long payload is cut to Slack's section, the line saying why kept", () => {
    const message = slackMessage({
      ...approval,
      payload: { foo: "x".repeat(10_000) },
    } as Interaction);
    const [, section] = message.blocks;
    const text = section?.type === "section" ? section.text.text : "";
    assert.ok(text.length <= 3_000, `${text.length}`);
    assert.match(text, /cannot show the request in full \(.+\)[^\n]*\n\{\n {2}"foo": "x+/);
    assert.ok(text.endsWith("…"));
  });
});

describe("Slack signatures", () => {
  const secret = "8f742231b10e8888abcd99yyyzzz85a5";
  const body = "payload=%7B%22type%22%3A%22block_actions%22%7D";
  const now = 1_700_000_000_000;
  const timestamp = String(now / 1000);

  it("match Slack's documented example", () => {
    // From Slack's "Verifying requests from Slack" page.
    const example =
      "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    assert.equal(
      signSlackRequest(secret, "1531420618", example),
      "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
    );
  });

  it("accept the right signature and refuse a forged, changed, stale or missing one", () => {
    const signature = signSlackRequest(secret, timestamp, body);
    const check = (headers: { signature?: string; timestamp?: string }, text = body, at = now) =>
      verifySlackRequest(
        secret,
        { signature: headers.signature, timestamp: headers.timestamp },
        text,
        { now: at },
      );
    assert.equal(check({ signature, timestamp }), "ok");
    assert.equal(check({ signature, timestamp }, Buffer.from(body) as unknown as string), "ok");
    assert.equal(
      check({ signature: signSlackRequest("other", timestamp, body), timestamp }),
      "mismatch",
    );
    assert.equal(check({ signature, timestamp }, `${body}x`), "mismatch");
    assert.equal(check({ signature: "v0=short", timestamp }), "mismatch");
    assert.equal(check({ signature, timestamp }, body, now + 301_000), "stale");
    assert.equal(check({ signature, timestamp }, body, now - 301_000), "stale");
    assert.equal(check({ timestamp }), "missing");
    assert.equal(check({ signature, timestamp: "soon" }), "missing");
  });
});

describe("Slack failures", () => {
  it("429, 5xx, network and transient platform errors are retried; the rest are given up", () => {
    const limited = slackFailure("chat.postMessage", {
      code: "slack_webapi_rate_limited_error",
      retryAfter: 7,
    });
    assert.ok(limited instanceof RetryableError);
    assert.equal(limited.retryAfterMs, 7_000);
    assert.match(limited.message, /rate-limited chat\.postMessage; retry after 7 s/);
    const down = slackFailure("chat.update", { code: "slack_webapi_http_error", statusCode: 503 });
    assert.ok(down instanceof RetryableError);
    const network = slackFailure("chat.update", {
      code: "slack_webapi_request_error",
      original: { message: "connect ECONNREFUSED" },
    });
    assert.ok(network instanceof RetryableError);
    assert.match(network.message, /ECONNREFUSED/);
    const transient = slackFailure("chat.update", {
      code: "slack_webapi_platform_error",
      data: { ok: false, error: "service_unavailable" },
    });
    assert.ok(transient instanceof RetryableError);
    const refused = slackFailure("chat.postMessage", {
      code: "slack_webapi_platform_error",
      data: { ok: false, error: "not_in_channel" },
    });
    assert.ok(refused instanceof CodexHarnessError && !(refused instanceof RetryableError));
    assert.equal((refused as CodexHarnessError).code, "slack_error");
    assert.match(refused.message, /not_in_channel \(invite the app/);
    const bad = slackFailure("chat.update", { code: "slack_webapi_http_error", statusCode: 400 });
    assert.equal((bad as CodexHarnessError).code, "slack_error");
  });
});

describe("slackBackend options", () => {
  const people = parsePeople("U1=alice", "test");
  const good = { token: "xoxb-secret-token-1", channel: "C1", people, signingSecret: "s" };

  it("refuses what cannot work, naming the option but never its value", () => {
    const refused: [Record<string, unknown>, RegExp][] = [
      [{ token: "secret-not-a-bot-token" }, /`token` must be a bot token \(xoxb-…\)/],
      [{ channel: " " }, /`channel` must be a channel id/],
      [{ people: "U1=alice" }, /`people` must map Slack user ids/],
      [{ signingSecret: undefined }, /clicks need a way in/],
      [{ appToken: "xoxb-secret-app" }, /`appToken` must be an app-level token/],
      [{ path: "v1/x" }, /`path` must start with \//],
    ];
    for (const [change, message] of refused) {
      assert.throws(
        () => slackBackend({ ...good, ...change } as never),
        (error: CodexHarnessError) => {
          assert.equal(error.code, "invalid_option");
          assert.match(error.message, message);
          assert.ok(!/secret/.test(error.message), error.message);
          return true;
        },
      );
    }
    const backend = slackBackend(good);
    assert.equal(backend.name, "slack");
    // Without an allow-list, the people linked to Slack users answer.
    const { people: _, ...noAllowList } = good;
    assert.equal(slackBackend(noAllowList).name, "slack");
    assert.equal(backend.route?.path, "/v1/slack/interactions");
    assert.equal(
      slackBackend({ ...good, signingSecret: undefined, appToken: "xapp-1" }).route,
      undefined,
    );
  });
});
