// What every chat backend shares: the message of an interaction, its buttons' answers, who may answer, secrets.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import {
  answerOf,
  chatMessage,
  interactionIdOf,
  needsTyping,
} from "../../src/channels/chat/message.js";
import {
  chatAnswerer,
  notAllowed,
  parsePeople,
  peopleOf,
  routingRefusal,
} from "../../src/channels/chat/people.js";
import { readSecret } from "../../src/channels/chat/secrets.js";
import { ChannelsError } from "../../src/channels/errors.js";
import type { Interaction } from "../../src/channels/interaction-types.js";
import { interactionBase } from "../support/chat-fixtures.js";

const approval = {
  ...interactionBase,
  kind: "approval_request",
  title: "Run npm test",
  payload: { command: "npm test", cwd: "/work/app", reason: "run the tests" },
  actions: ["accept", "decline", "cancel"],
} as unknown as Interaction;

describe("chat messages", () => {
  it("shows the approvals so far of a request that needs several, while it is open", () => {
    const routed = {
      ...approval,
      routing: { answer: ["group:release"], approvals: 2 },
      approvals: [{ by: "dana", name: "Dana", at: "2026-01-01T00:00:00.000Z" }],
    } as Interaction;
    const message = chatMessage(routed, "slack");
    assert.equal(message.progress, "1 of 2 approvals (Dana)");
    assert.equal(message.buttons.length, 4);
    assert.equal(chatMessage(approval, "slack").progress, undefined);
    const resolved = { ...routed, status: "resolved" } as Interaction;
    assert.equal(chatMessage(resolved, "slack").progress, undefined);
  });

  it("shows what is asked and one button per choice, each answering as the inbox does", () => {
    const message = chatMessage(approval, "slack");
    assert.equal(message.title, "Run npm test");
    assert.deepEqual(message.details, ["$ npm test", "in /work/app", "why: run the tests"]);
    assert.deepEqual(
      message.buttons.map((button) => button.label),
      ["Accept", "Accept for this session", "Decline", "Interrupt the turn"],
    );
    const [accept, session, decline, interrupt] = message.buttons.map((b) => b.data);
    assert.ok(message.buttons.every((b) => Buffer.byteLength(b.data) <= 64));
    assert.equal(interactionIdOf(accept ?? ""), approval.id);
    assert.deepEqual(answerOf(approval, accept ?? "", "slack"), { action: "accept", values: {} });
    assert.deepEqual(answerOf(approval, session ?? "", "slack"), {
      action: "accept",
      values: { scope: "session" },
    });
    assert.deepEqual(answerOf(approval, decline ?? "", "slack"), { action: "decline" });
    assert.deepEqual(answerOf(approval, interrupt ?? "", "slack"), { action: "cancel" });
    assert.equal(answerOf(approval, `${approval.id}:9`, "slack"), undefined);
    assert.equal(answerOf(approval, "int_other:0", "slack"), undefined);
    assert.equal(interactionIdOf("<script>"), undefined);
  });

  it("offers a single question's options as buttons, and says how it ended once it did", () => {
    const question = {
      ...interactionBase,
      kind: "user_input_request",
      title: "Which branch?",
      payload: {
        questions: [
          { id: "q", question: "Which branch?", options: [{ label: "main" }, { label: "dev" }] },
        ],
      },
      actions: ["text", "decline", "cancel"],
    } as unknown as Interaction;
    const message = chatMessage(question, "slack");
    assert.deepEqual(
      message.buttons.map((b) => b.label),
      ["main", "dev", "Decline", "Interrupt the turn"],
    );
    assert.deepEqual(answerOf(question, message.buttons[1]?.data ?? "", "slack"), {
      action: "text",
      values: { text: "dev" },
    });
    const answered = {
      ...approval,
      status: "resolved",
      response: {
        action: "decline",
        metadata: { answeredBy: "bob" },
        respondedAt: interactionBase.createdAt,
      },
    } as unknown as Interaction;
    assert.deepEqual(chatMessage(answered, "slack").buttons, []);
    assert.equal(chatMessage(answered, "slack").outcome, "Declined by bob");
  });
});

describe("chat messages of a request that cannot be shown in full", () => {
  const unshown = (payload: Record<string, unknown>, kind = "approval_request") =>
    ({ ...approval, kind, title: "Run something", payload }) as unknown as Interaction;

  it("offer only Decline and Interrupt, show the raw JSON after a line saying why", () => {
    for (const payload of [{ foo: "bar" }, { command: 42 }, { command: "ls", cwd: 7 }]) {
      const message = chatMessage(unshown(payload), "slack");
      const label = JSON.stringify(payload);
      assert.deepEqual(
        message.buttons.map((b) => b.label),
        ["Decline", "Interrupt the turn"],
        label,
      );
      // The buttons keep their places among the kind's choices: Decline is still :2.
      assert.deepEqual(
        message.buttons.map((b) => b.data),
        [`${approval.id}:2`, `${approval.id}:3`],
        label,
      );
      assert.match(
        message.details[0] ?? "",
        /^This message cannot show the request in full \(.+\), so it can only be declined here; this is what was sent:$/,
        label,
      );
      assert.deepEqual(JSON.parse(message.details.slice(1).join("\n")), payload, label);
    }
    assert.match(
      chatMessage(unshown({ command: 42 }), "slack").details[0] ?? "",
      /payload\.command is a number, not a string/,
    );
  });

  it("take no Accept for it, stale or forged; its refusals still answer", () => {
    const request = unshown({ foo: "bar" });
    assert.equal(answerOf(request, `${approval.id}:0`, "slack"), undefined, "Accept");
    assert.equal(
      answerOf(request, `${approval.id}:1`, "slack"),
      undefined,
      "Accept for this session",
    );
    assert.deepEqual(answerOf(request, `${approval.id}:2`, "slack"), { action: "decline" });
    assert.deepEqual(answerOf(request, `${approval.id}:3`, "slack"), { action: "cancel" });
  });

  it("a question whose options are mistyped: no option buttons, nothing to type", () => {
    const question = {
      ...unshown({
        questions: [
          {
            id: "q",
            question: "Which?",
            options: [{ label: "yes" }, { label: "no", description: 5 }],
          },
        ],
      }),
      kind: "user_input_request",
      actions: ["text", "decline", "cancel"],
    } as unknown as Interaction;
    const message = chatMessage(question, "slack");
    assert.deepEqual(
      message.buttons.map((b) => b.label),
      ["Decline", "Interrupt the turn"],
    );
    assert.equal(needsTyping(question, message.buttons.length, "slack"), false);
    assert.match(message.details[0] ?? "", /options\[1\]\.description is a number/);
    assert.equal(answerOf(question, `${approval.id}:0`, "slack"), undefined, "the option yes");
  });

  it("keeps a long payload's JSON under what any platform shows, cut with …", () => {
    const message = chatMessage(unshown({ foo: "x".repeat(10_000) }), "slack");
    const raw = message.details.slice(1).join("\n");
    assert.equal(raw.length, 3_000);
    assert.ok(raw.endsWith("…"));
  });
});

describe("who may answer", () => {
  it("reads id=name pairs and refuses what is not one", () => {
    assert.deepEqual(
      [...parsePeople("U1=alice, 42=bob", "--slack-people")],
      [
        ["U1", "alice"],
        ["42", "bob"],
      ],
    );
    assert.throws(
      () => parsePeople("alice", "--slack-people"),
      /--slack-people: "alice" is not id=name/,
    );
    assert.throws(() => parsePeople(" , ", "X"), /names nobody/);
  });

  it("needs an allow-list unless people are linked to the platform's users", async () => {
    const names = {
      chat: "--slack",
      flag: "--slack-people",
      envName: "CODEX_HARNESS_SLACK_PEOPLE",
      example: "U…=name,…",
      platform: "slack",
    };
    let asked = 0;
    const linked = async () => {
      asked++;
      return true;
    };
    assert.deepEqual([...(await peopleOf("U1=a", {}, names, linked))], [["U1", "a"]]);
    assert.deepEqual(
      [...(await peopleOf(undefined, { CODEX_HARNESS_SLACK_PEOPLE: "U2=b" }, names, linked))],
      [["U2", "b"]],
    );
    assert.equal(asked, 0, "the store is asked only without an allow-list");
    assert.equal((await peopleOf(undefined, {}, names, linked)).size, 0);
    await assert.rejects(
      peopleOf(undefined, {}, names, async () => false),
      /--slack needs --slack-people U…=name,… \(or \$CODEX_HARNESS_SLACK_PEOPLE\), or people linked to Slack users \(codex-harness people link <person> slack:<user id>\): who may answer\./,
    );
  });

  it("lets answer who is on the allow-list, else whom a link names; tells others how to be linked", async () => {
    const people = parsePeople("U1=alice", "test");
    const asked: string[] = [];
    const linkedPerson = async (platformUser: string) => {
      asked.push(platformUser);
      return platformUser === "slack:U2"
        ? { id: "bob", kind: "person" as const, name: "Bob", groups: [], createdAt: "" }
        : undefined;
    };
    assert.deepEqual(await chatAnswerer(people, "slack", "U1", linkedPerson), {
      id: "slack:U1",
      name: "alice",
    });
    assert.deepEqual(await chatAnswerer(people, "slack", "U2", linkedPerson), {
      id: "slack:U2",
      name: "Bob",
      linked: true,
    });
    assert.equal(await chatAnswerer(people, "slack", "U3", linkedPerson), undefined);
    assert.deepEqual(asked, ["slack:U2", "slack:U3"]);
    const told = notAllowed("Telegram", "telegram:1234567890123456");
    assert.match(told, /people link <person> telegram:1234567890123456$/);
    assert.ok(told.length <= 200, "fits a Telegram alert");
    assert.match(notAllowed("Slack"), /people link <person> slack:<your id>$/);
  });

  it("words the routing's refusals for the clicker, and nothing else", () => {
    assert.equal(
      routingRefusal(new ChannelsError("not_allowed", 403, "Only group:release may answer.")),
      "Your answer was not taken: Only group:release may answer.",
    );
    assert.match(
      routingRefusal(new ChannelsError("already_approved", 409, "bob has approved it.")) ?? "",
      /bob has approved it/,
    );
    assert.equal(routingRefusal(new ChannelsError("conflict", 409, "first won")), undefined);
    assert.equal(routingRefusal(new Error("boom")), undefined);
  });
});

describe("secrets", () => {
  it("come from the environment or a file it names, and a missing one names both variables", () => {
    assert.equal(readSecret({ TOKEN: "abc" }, "TOKEN", "Slack"), "abc");
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "codex-harness-secret-")), "token");
    writeFileSync(file, "from-file\n");
    assert.equal(readSecret({ TOKEN_FILE: file }, "TOKEN", "Slack"), "from-file");
    assert.throws(() => readSecret({}, "TOKEN", "Slack"), /Slack needs TOKEN \(or TOKEN_FILE/);
  });
});
