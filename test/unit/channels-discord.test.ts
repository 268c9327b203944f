// The Discord backend's pure parts: messages and buttons from an interaction, Discord's Ed25519
// request signatures, how discord.js's REST failures become retries or give-ups (never with the
// token), a click whose answer is slow, and the options it refuses.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { describe, it } from "node:test";
import { DiscordAPIError, HTTPError, RateLimitError } from "discord.js";
import { RetryableError } from "../../src/channels/backends.js";
import { TYPE_ELSEWHERE } from "../../src/channels/chat/message.js";
import { parsePeople } from "../../src/channels/chat/people.js";
import { discordBackend } from "../../src/channels/discord/backend.js";
import { handleClick } from "../../src/channels/discord/clicks.js";
import { discordFailure } from "../../src/channels/discord/errors.js";
import { discordMessage, escapeMarkdown } from "../../src/channels/discord/message.js";
import {
  discordPublicKey,
  discordPublicKeyHex,
  signDiscordRequest,
  verifyDiscordRequest,
} from "../../src/channels/discord/signature.js";
import type { Interaction } from "../../src/channels/interaction-types.js";
import { CodexHarnessError } from "../../src/errors.js";
import { interactionBase } from "../support/chat-fixtures.js";

const approval = {
  ...interactionBase,
  kind: "approval_request",
  title: "Run *everything* @everyone",
  payload: { command: "rm -rf build_dir", cwd: "/work/app" },
  actions: ["accept", "decline", "cancel"],
} as unknown as Interaction;

describe("Discord messages", () => {
  it("an open approval: escaped markdown, no mentions, the shared buttons styled in one row", () => {
    const message = discordMessage(approval);
    assert.equal(
      message.content,
      "**Run \\*everything\\* @everyone**\n$ rm -rf build\\_dir\nin /work/app",
    );
    assert.deepEqual(message.allowed_mentions, { parse: [] });
    assert.equal(message.components.length, 1);
    assert.deepEqual(
      message.components[0]?.components.map((b) => [b.type, b.label, b.style, b.custom_id]),
      [
        [2, "Accept", 1, `${approval.id}:0`],
        [2, "Accept for this session", 2, `${approval.id}:1`],
        [2, "Decline", 4, `${approval.id}:2`],
        [2, "Interrupt the turn", 2, `${approval.id}:3`],
      ],
    );
  });

  it("an ended one: no buttons, the outcome with who answered", () => {
    const answered = {
      ...approval,
      status: "resolved",
      response: {
        action: "accept",
        values: {},
        metadata: { answeredBy: "alice", via: "discord" },
        respondedAt: interactionBase.updatedAt,
      },
    } as Interaction;
    const message = discordMessage(answered);
    assert.deepEqual(message.components, []);
    assert.match(message.content, /\n\*\*Accepted by alice\*\*$/);
  });

  it("many options: rows of five, at most five rows; long text within Discord's limits", () => {
    // A long label is cut on its button; the line listing the options has it whole.
    const options = Array.from({ length: 30 }, (_, i) => ({
      label: i < 5 ? `option ${i} ${"x".repeat(90)}` : `option ${i}`,
    }));
    const question = {
      ...interactionBase,
      kind: "user_input_request",
      title: "t".repeat(400),
      payload: { questions: [{ id: "q", question: "Which?", options }] },
      actions: ["text", "decline", "cancel"],
    } as unknown as Interaction;
    const message = discordMessage(question);
    assert.equal(message.components.length, 5);
    assert.ok(message.components.every((row) => row.components.length === 5));
    assert.ok(
      message.components.flatMap((row) => row.components).every((b) => b.label.length <= 80),
    );
    assert.ok(message.content.length <= 2_000, `${message.content.length} characters`);
    assert.ok(message.content.startsWith(`**${"t".repeat(255)}…**`));
    assert.ok(message.content.includes(`option 0 ${"x".repeat(90)}`));
    // Too long for the message: said so, cut to its 2,000 characters, Decline and Interrupt only.
    const long = {
      ...question,
      payload: { questions: [{ id: "q", question: "q".repeat(3_000) }] },
    };
    const cut = discordMessage(long as Interaction);
    assert.ok(cut.content.length <= 2_000, `${cut.content.length} characters`);
    assert.match(cut.content, /cannot show the request in full \(it is too long for a Discord/);
    assert.deepEqual(
      cut.components.flatMap((row) => row.components.map((b) => b.label)),
      ["Decline", "Interrupt the turn"],
    );
  });

  it("details that fit are never cut, whatever the title and the line on typing", () => {
    const form = {
      ...interactionBase,
      kind: "elicitation_request",
      title: "*".repeat(400),
      payload: { server_name: "s", mode: "form", message: "_".repeat(600) },
      actions: ["accept", "decline", "cancel"],
    } as unknown as Interaction;
    const message = discordMessage(form);
    assert.match(message.content, /To type an answer/);
    assert.ok(message.content.includes("\\_".repeat(600)), "the message whole, escaped");
    assert.ok(message.content.length <= 2_000, `${message.content.length} characters`);
  });

  it("a question without options says where to type the answer", () => {
    const open = {
      ...interactionBase,
      kind: "user_input_request",
      title: "Name?",
      payload: { questions: [{ id: "q", question: "Your name?" }] },
      actions: ["text", "decline", "cancel"],
    } as unknown as Interaction;
    assert.ok(discordMessage(open).content.includes(TYPE_ELSEWHERE));
  });

  it("escapes markdown at line starts and inline", () => {
    assert.equal(
      escapeMarkdown("# head\n> quote\n- item\na|b~c`d"),
      "\\# head\n\\> quote\n\\- item\na\\|b\\~c\\`d",
    );
  });
});

describe("Discord messages of a request that cannot be shown in full", () => {
  it("no Accept: its raw JSON after a line saying why, only Decline and Interrupt", () => {
    for (const payload of [{ foo: "bar" }, { command: 42 }]) {
      const message = discordMessage({ ...approval, payload } as Interaction);
      const label = JSON.stringify(payload);
      const [title, why, ...raw] = message.content.split("\n");
      assert.equal(title, "**Run \\*everything\\* @everyone**", label);
      assert.match(
        why ?? "",
        /^This message cannot show the request in full \(.+\), so it can only be declined here/,
        label,
      );
      assert.equal(raw.join("\n"), escapeMarkdown(JSON.stringify(payload, null, 2)), label);
      assert.deepEqual(
        message.components.flatMap((row) => row.components.map((b) => [b.label, b.custom_id])),
        [
          ["Decline", `${approval.id}:2`],
          ["Interrupt the turn", `${approval.id}:3`],
        ],
        label,
      );
    }
  });

  it("a long payload is cut to Discord's 2,000 characters, the line saying why kept", () => {
    const message = discordMessage({
      ...approval,
      payload: { foo: "x".repeat(10_000) },
    } as Interaction);
    assert.ok(message.content.length <= 2_000, `${message.content.length}`);
    assert.match(message.content.split("\n")[1] ?? "", /cannot show the request in full/);
    assert.ok(message.content.endsWith("…"));
  });

  it("a stale or forged Accept is refused to the clicker, and nothing is sent", async () => {
    const unshown = { ...approval, payload: { foo: "bar" } } as Interaction;
    const sent: unknown[] = [];
    const result = await handleClick(
      {
        type: 3,
        data: { custom_id: `${approval.id}:0` },
        user: { id: "42" },
        channel_id: "7",
        message: { id: "9" },
      },
      {
        people: parsePeople("42=alice", "test"),
        linkedPerson: async () => undefined,
        get: async () => unshown,
        respond: async (_id, answer) => {
          sent.push(answer);
          return unshown;
        },
        remember: () => undefined,
        refresh: () => undefined,
        answerWithinMs: 20,
      },
    );
    assert.equal(result.reply.type, 4);
    assert.equal(await result.outcome, "invalid");
    assert.deepEqual(sent, []);
  });
});

describe("Discord signatures", () => {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const key = discordPublicKey(discordPublicKeyHex(publicKey));
  assert.ok(key);
  const now = 1_800_000_000_000;
  const timestamp = String(now / 1000);
  const body = '{"type":1}';
  const signature = signDiscordRequest(privateKey, timestamp, body);

  it("accepts Discord's signature of timestamp + body", () => {
    assert.equal(verifyDiscordRequest(key, { signature, timestamp }, body, { now }), "ok");
  });

  it("refuses another body, another key, a stale or missing timestamp, a malformed signature", () => {
    assert.equal(
      verifyDiscordRequest(key, { signature, timestamp }, '{"type":2}', { now }),
      "mismatch",
    );
    const other = generateKeyPairSync("ed25519").privateKey;
    const forged = signDiscordRequest(other, timestamp, body);
    assert.equal(
      verifyDiscordRequest(key, { signature: forged, timestamp }, body, { now }),
      "mismatch",
    );
    assert.equal(
      verifyDiscordRequest(key, { signature, timestamp }, body, { now: now + 301_000 }),
      "stale",
    );
    assert.equal(
      verifyDiscordRequest(key, { signature, timestamp: undefined }, body, { now }),
      "missing",
    );
    assert.equal(
      verifyDiscordRequest(key, { signature: "zz", timestamp }, body, { now }),
      "mismatch",
    );
  });

  it("a public key is 64 hex characters", () => {
    assert.equal(discordPublicKey("abc"), undefined);
    assert.equal(discordPublicKey("g".repeat(64)), undefined);
  });
});

describe("Discord failures", () => {
  const token = "MTIw.secret-token-in-a-message";
  const request = { body: { content: "x" } };

  it("a rate limit is retried after Discord's retry_after", () => {
    const limited = new RateLimitError({
      timeToReset: 900,
      limit: 5,
      method: "POST",
      hash: "h",
      url: "http://x",
      route: "/channels/:id/messages",
      majorParameter: "1",
      global: false,
      retryAfter: 2_050,
      sublimitTimeout: 0,
      scope: "user",
    });
    const error = discordFailure("POST /channels/{id}/messages", limited, token);
    assert.ok(error instanceof RetryableError);
    assert.equal(error.retryAfterMs, 2_050);
  });

  it("5xx is retried; a 4xx refusal is given up with a hint", () => {
    const down = discordFailure(
      "PATCH x",
      new HTTPError(502, "Bad Gateway", "PATCH", "u", request),
      token,
    );
    assert.ok(down instanceof RetryableError);
    const refused = discordFailure(
      "POST x",
      new DiscordAPIError(
        { message: "Missing Permissions", code: 50013 },
        50013,
        403,
        "POST",
        "u",
        request,
      ),
      token,
    );
    assert.ok(refused instanceof CodexHarnessError && !(refused instanceof RetryableError));
    assert.equal((refused as CodexHarnessError).code, "discord_error");
    assert.match(refused.message, /HTTP 403: Missing Permissions \(code 50013\) \(invite the bot/);
  });

  it("network errors and timeouts are retried; the token never shows", () => {
    const network = Object.assign(new TypeError(`fetch failed for ${token}`), {
      cause: { code: "ECONNREFUSED" },
    });
    const error = discordFailure("POST x", network, token);
    assert.ok(error instanceof RetryableError);
    assert.match(error.message, /could not be reached .*ECONNREFUSED/);
    assert.ok(!error.message.includes(token));
    const aborted = Object.assign(new Error("This operation was aborted"), { name: "AbortError" });
    assert.ok(discordFailure("POST x", aborted, token) instanceof RetryableError);
  });
});

describe("Discord clicks", () => {
  it("an answer slower than answerWithinMs is acknowledged with a deferred update", async () => {
    let finish: (value: Interaction) => void = () => undefined;
    const result = await handleClick(
      {
        type: 3,
        data: { custom_id: `${approval.id}:0` },
        user: { id: "42" },
        channel_id: "7",
        message: { id: "9" },
      },
      {
        people: parsePeople("42=alice", "test"),
        linkedPerson: async () => undefined,
        get: async () => approval,
        respond: () => new Promise((resolve) => (finish = resolve)),
        remember: () => undefined,
        refresh: () => undefined,
        answerWithinMs: 20,
      },
    );
    assert.deepEqual(result.reply, { type: 6 });
    finish({ ...approval, status: "resolved" } as Interaction);
    assert.equal(await result.outcome, "answered");
  });
});

describe("discordBackend options", () => {
  const good = {
    token: "MTIwMDAwMDAwMDAwMDAwMDAwMQ.Gx1234.abcdef",
    applicationPublicKey: "a".repeat(64),
    channelId: "1000000000000000042",
    people: parsePeople("1=a", "test"),
  };
  it("refuses what is missing or malformed, naming the option and never the token", () => {
    for (const [change, pattern] of [
      [{ token: "short secret" }, /`token` must be the bot token/],
      [{ applicationPublicKey: "nothex" }, /`applicationPublicKey` must be .* 64 hex/],
      [{ channelId: "#general" }, /`channelId` must be a channel id/],
      [{ people: "80351110224678912=alice" }, /`people` must map Discord user ids/],
      [{ path: "v1/x" }, /`path` must start with \//],
    ] as const) {
      assert.throws(
        () => discordBackend({ ...good, ...change } as never),
        (error: CodexHarnessError) => {
          assert.equal(error.code, "invalid_option");
          assert.match(error.message, pattern);
          assert.ok(!error.message.includes("short secret"));
          return true;
        },
      );
    }
    assert.equal(discordBackend(good).route?.path, "/v1/discord/interactions");
    // Without an allow-list, the people linked to Discord users answer.
    const { people: _, ...noAllowList } = good;
    assert.equal(discordBackend(noAllowList).name, "discord");
  });
});
