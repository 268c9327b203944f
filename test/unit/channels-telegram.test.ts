// The Telegram backend's parts that need no server: its message and keyboard, what a failed call
// means (retried or not, and never the token in words), its options, and grammy loaded only when a
// backend is made, with one clear error when it is not installed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inspect } from "node:util";
import { RetryableError } from "../../src/channels/backends.js";
import type { Interaction } from "../../src/channels/interaction-types.js";
import { callFailure, isNotModified } from "../../src/channels/telegram/api-errors.js";
import { telegramBackend } from "../../src/channels/telegram/backend.js";
import { escapeHtml, keyboardOf, messageText } from "../../src/channels/telegram/markup.js";
import { telegramBackendsOf } from "../../src/cli/serve-chat-telegram.js";
import { CodexHarnessError } from "../../src/errors.js";
import { interactionBase, withoutPackage } from "../support/chat-fixtures.js";
import { runWithHooks } from "../support/module-hooks.js";

const TOKEN = "123456789:AAF-secret-token-never-shown_0123456";
const people = new Map([["111", "alice"]]);

const approval: Interaction = {
  ...interactionBase,
  kind: "approval_request",
  title: "Run <script> & rm",
  payload: { command: "echo '<b>' && rm -rf build", cwd: "/work", reason: "a & b" },
  actions: ["accept", "decline", "cancel"],
};

describe("telegram message", () => {
  it("escapes HTML, puts the command in code, and offers the kind's buttons", () => {
    const text = messageText(approval);
    assert.equal(
      text,
      [
        "<b>Run &lt;script&gt; &amp; rm</b>",
        "<code>$ echo '&lt;b&gt;' &amp;&amp; rm -rf build</code>",
        "in /work",
        "why: a &amp; b",
      ].join("\n"),
    );
    const keyboard = keyboardOf(approval).inline_keyboard;
    assert.deepEqual(
      keyboard.map((row) => row.map((button) => button.text)),
      [["Accept"], ["Accept for this session"], ["Decline"], ["Interrupt the turn"]],
    );
    for (const button of keyboard.flat()) {
      const data = (button as { callback_data: string }).callback_data;
      assert.ok(Buffer.byteLength(data) <= 64, data);
    }
  });

  it("once ended: the outcome, no buttons; a huge command stays under Telegram's limit", () => {
    const ended: Interaction = {
      ...approval,
      status: "resolved",
      response: {
        action: "accept",
        metadata: { answeredBy: "alice", via: "telegram" },
        respondedAt: approval.updatedAt,
      },
    };
    assert.match(messageText(ended), /\n\n<b>Accepted by alice<\/b>$/);
    assert.deepEqual(keyboardOf(ended).inline_keyboard, []);
    const huge = {
      ...approval,
      payload: { command: "x".repeat(10_000), changes: Array(500).fill({ path: "a.txt" }) },
    };
    assert.ok(messageText(huge).length < 4096);
  });

  it("a single question says a reply answers it; a form says to use the inbox", () => {
    const question: Interaction = {
      ...approval,
      kind: "user_input_request",
      title: "Name?",
      payload: { questions: [{ id: "name", question: "Name?" }] },
      actions: ["text", "decline", "cancel"],
    };
    assert.match(messageText(question), /Reply to this message/);
    const form: Interaction = {
      ...question,
      kind: "elicitation_request",
      payload: { mode: "form", message: "Your details?" },
    };
    assert.match(messageText(form), /form in the inbox/);
  });

  it("a question it cannot show in full invites no typed reply", () => {
    const unshown: Interaction = {
      ...approval,
      kind: "user_input_request",
      title: "Name?",
      payload: { questions: [{ id: "name", question: 42 }] },
      actions: ["text", "decline", "cancel"],
    };
    assert.doesNotMatch(messageText(unshown), /Reply to this message|in the inbox/);
  });
});

describe("telegram message of a request that cannot be shown in full", () => {
  it("no Accept: its raw JSON (escaped) after a line saying why, only Decline and Interrupt", () => {
    for (const payload of [{ foo: "<b>bar</b>" }, { command: 42 }]) {
      const unshown: Interaction = { ...approval, payload };
      const label = JSON.stringify(payload);
      const [title, why, ...raw] = messageText(unshown).split("\n");
      assert.equal(title, "<b>Run &lt;script&gt; &amp; rm</b>", label);
      assert.match(
        why ?? "",
        /^This message cannot show the request in full \(.+\), so it can only be declined here/,
        label,
      );
      assert.equal(raw.join("\n"), escapeHtml(JSON.stringify(payload, null, 2)), label);
      const keyboard = keyboardOf(unshown).inline_keyboard.flat();
      assert.deepEqual(
        keyboard.map((button) => [
          button.text,
          (button as { callback_data: string }).callback_data,
        ]),
        [
          ["Decline", `${approval.id}:2`],
          ["Interrupt the turn", `${approval.id}:3`],
        ],
        label,
      );
    }
  });

  it("a long payload stays under Telegram's limit, the line saying why kept", () => {
    const long: Interaction = {
      ...approval,
      payload: { foo: "x".repeat(10_000), bar: Array(500).fill("y") },
    };
    const text = messageText(long);
    assert.ok(text.length < 4096, `${text.length}`);
    assert.match(text.split("\n")[1] ?? "", /cannot show the request in full/);
  });

  it("a question it cannot show: no option buttons", () => {
    const question: Interaction = {
      ...approval,
      kind: "user_input_request",
      title: "Which?",
      payload: {
        questions: [
          {
            id: "q",
            question: "Which?",
            options: [{ label: "yes" }, { label: "no", description: 5 }],
          },
        ],
      },
      actions: ["text", "decline", "cancel"],
    };
    assert.deepEqual(
      keyboardOf(question)
        .inline_keyboard.flat()
        .map((button) => button.text),
      ["Decline", "Interrupt the turn"],
    );
  });
});

describe("telegram call failures", () => {
  it("429 is retried after retry_after; 5xx and network errors are retried; 4xx is not", () => {
    const limited = callFailure(
      "sendMessage",
      {
        error_code: 429,
        description: "Too Many Requests: retry after 3",
        parameters: { retry_after: 3 },
      },
      TOKEN,
    );
    assert.ok(limited instanceof RetryableError);
    assert.equal(limited.retryAfterMs, 3_000);
    assert.match(limited.message, /sendMessage answered 429/);
    assert.ok(
      callFailure("sendMessage", { error_code: 502, description: "Bad Gateway" }, TOKEN) instanceof
        RetryableError,
    );
    const refused = callFailure(
      "sendMessage",
      { error_code: 400, description: "Bad Request: chat not found" },
      TOKEN,
    );
    assert.ok(refused instanceof CodexHarnessError);
    assert.equal(refused.code, "telegram_refused");
    assert.equal(
      isNotModified({ error_code: 400, description: "Bad Request: message is not modified: x" }),
      true,
    );
    assert.equal(isNotModified(new Error("message is not modified")), false);
  });

  it("never says the token, though grammy's network errors wrap a URL holding it", () => {
    const inner = new Error(
      `request to http://127.0.0.1:1/bot${TOKEN}/sendMessage failed, reason: connect ECONNREFUSED`,
    );
    const httpError = Object.assign(new Error("Network request for 'sendMessage' failed!"), {
      error: inner,
    });
    const failure = callFailure("sendMessage", httpError, TOKEN);
    assert.ok(failure instanceof RetryableError);
    assert.match(failure.message, /ECONNREFUSED/);
    assert.match(failure.message, /bot<token>\/sendMessage/);
    assert.ok(!inspect(failure, { depth: 5 }).includes(TOKEN));
    const echoed = callFailure(
      "getUpdates",
      { error_code: 401, description: `bad ${TOKEN}` },
      TOKEN,
    );
    assert.ok(!echoed.message.includes(TOKEN));
    assert.match(echoed.message, /TELEGRAM_BOT_TOKEN/);
  });
});

describe("telegram backend options", () => {
  it("refuses a chat that is not a numeric id, a bad token, nobody allowed; never echoing the token", async () => {
    const base = { token: TOKEN, chatId: -100123, people };
    await assert.rejects(telegramBackend({ ...base, chatId: "@mychannel" }), /numeric id/);
    await assert.rejects(telegramBackend({ ...base, token: "has space" }), (error: Error) => {
      assert.equal((error as CodexHarnessError).code, "invalid_option");
      assert.ok(!error.message.includes("has space"));
      return true;
    });
    await assert.rejects(telegramBackend({ ...base, people: "111=alice" as never }), /people/);
  });

  it("serve's flags: --telegram needs a chat, people and a token from the environment", async () => {
    assert.deepEqual(await telegramBackendsOf({}, {}), []);
    await assert.rejects(telegramBackendsOf({ telegramChat: "-1" }, {}), /need --telegram\./);
    await assert.rejects(telegramBackendsOf({ telegram: true }, {}), /--telegram-chat <id>/);
    await assert.rejects(
      telegramBackendsOf({ telegram: true, telegramChat: "-1" }, {}),
      /--telegram-people/,
    );
    await assert.rejects(
      telegramBackendsOf({ telegram: true, telegramChat: "-1", telegramPeople: "1=a" }, {}),
      { code: "missing_secret" },
    );
    await assert.rejects(
      telegramBackendsOf({ telegram: true, telegramChat: "-1", telegramPeople: "bad" }, {}),
      { code: "invalid_option" },
    );
  });

  it("names the package to install when grammy is missing", async () => {
    await assert.rejects(
      telegramBackend({
        token: TOKEN,
        chatId: -100123,
        people,
        importer: withoutPackage("grammy"),
      }),
      (error: unknown) => {
        assert.ok(error instanceof CodexHarnessError);
        assert.equal(error.code, "missing_dependency");
        assert.equal(
          error.message,
          "The Telegram backend needs the optional package grammy: npm install grammy",
        );
        return true;
      },
    );
  });

  it("codex-harness, codex-harness/channels and codex-harness/channels/telegram load no grammy; without it, a backend says what to install", () => {
    const run = runWithHooks(
      `
      await import("codex-harness");
      await import("codex-harness/channels");
      const telegram = await import("codex-harness/channels/telegram");
      let made;
      try {
        await telegram.telegramBackend({ token: "1:abcdefgh", chatId: 1, people: new Map([["1", "a"]]) });
        made = "made";
      } catch (error) {
        made = { code: error.code, message: error.message };
      }
      console.log(JSON.stringify(made));
    `,
      { hide: ["grammy"] },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), {
      code: "missing_dependency",
      message: "The Telegram backend needs the optional package grammy: npm install grammy",
    });
    const loaded = runWithHooks(`
      await import("codex-harness");
      await import("codex-harness/channels");
      await import("codex-harness/channels/telegram");
    `);
    assert.equal(loaded.status, 0, loaded.stderr);
    assert.ok(loaded.resolved.some((url) => url.endsWith("/channels/telegram/index.js")));
    assert.deepEqual(
      loaded.resolved.filter((url) => /\/node_modules\/grammy\//.test(url)),
      [],
    );
  });
});
