// Fail closed at every depth, in chat: a Slack, Telegram or Discord message that offers any answer
// but a refusal shows every field of the request, nested ones included; one that cannot offers only
// Decline and Interrupt, and the runtime refuses any other answer sent from that platform (the web
// inbox's side is test/integration/channels-inbox-depth.test.ts).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { CHAT_ROOMS } from "../../src/channels/chat/rooms.js";
import { discordMessage } from "../../src/channels/discord/message.js";
import type { Interaction } from "../../src/channels/interaction-types.js";
import { ChannelsRuntime } from "../../src/channels/runtime.js";
import { slackMessage } from "../../src/channels/slack/blocks.js";
import { SqliteInteractionStore } from "../../src/channels/sqlite-store.js";
import { answersByReply, keyboardOf, messageText } from "../../src/channels/telegram/markup.js";
import { interactionBase } from "../support/chat-fixtures.js";
import {
  type DeepRequest,
  EVERY_FIELD,
  MARK,
  NESTED_UNKNOWN,
  PROGRESS,
  textsOf,
} from "../support/deep-requests.js";

const REFUSALS = new Set(["Decline", "Interrupt the turn"]);

/** What a platform shows of an interaction (unescaped), and the answers it offers but refusals. */
interface Shown {
  text: string;
  accepts: string[];
}

const PLATFORMS: Record<"slack" | "telegram" | "discord", (i: Interaction) => Shown> = {
  slack: (interaction) => {
    const message = slackMessage(interaction);
    const text = message.blocks
      .flatMap((block) =>
        block.type === "section" ? [block.text.text] : block.type === "context" ? [] : [],
      )
      .join("\n")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
    const buttons = message.blocks.flatMap((block) =>
      block.type === "actions" ? block.elements.map((button) => button.text.text) : [],
    );
    return {
      text: [text, ...buttons].join("\n"),
      accepts: buttons.filter((label) => !REFUSALS.has(label)),
    };
  },
  telegram: (interaction) => {
    const text = messageText(interaction)
      .replace(/<[^>]+>/g, "")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
    const buttons = keyboardOf(interaction)
      .inline_keyboard.flat()
      .map((button) => button.text);
    const accepts = buttons.filter((label) => !REFUSALS.has(label));
    if (answersByReply(interaction)) accepts.push("a reply");
    return { text: [text, ...buttons].join("\n"), accepts };
  },
  discord: (interaction) => {
    const message = discordMessage(interaction);
    const text = message.content.replace(/\\([\\*_~`|>#-])/g, "$1");
    const buttons = message.components.flatMap((row) => row.components.map((b) => b.label));
    return {
      text: [text, ...buttons].join("\n"),
      accepts: buttons.filter((label) => !REFUSALS.has(label)),
    };
  },
};

const actionsOf: Record<string, Interaction["actions"]> = {
  approval_request: ["accept", "decline", "cancel"],
  permissions_request: ["accept", "decline"],
  user_input_request: ["text", "decline", "cancel"],
  elicitation_request: ["accept", "decline", "cancel"],
  progress_update: ["accept"],
};

function interactionOf(request: DeepRequest): Interaction {
  return {
    ...interactionBase,
    kind: request.kind,
    title: request.name,
    payload: request.payload,
    actions: actionsOf[request.kind],
  } as unknown as Interaction;
}

let runtime: ChannelsRuntime;
let dir: string;
before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "channels-depth-"));
  runtime = new ChannelsRuntime({ store: await SqliteInteractionStore.open(path.join(dir, "db")) });
});
after(async () => {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The words of a message that cannot show a request in full. */
const CANNOT = /cannot show the request in full/;

/**
 * Checks one request on one platform: a message that does not say it cannot show the request in
 * full shows every field of it, and the runtime takes an accepting answer from there; one that says
 * so offers nothing but refusals, and the runtime refuses the accepting answer sent from there.
 */
async function holds(request: DeepRequest, platform: keyof typeof PLATFORMS): Promise<void> {
  const label = `${request.name} on ${platform}`;
  const shown = PLATFORMS[platform](interactionOf(request));
  const created = await runtime.create({
    kind: request.kind,
    source: { name: "t" },
    title: request.name,
    payload: request.payload,
  });
  const answer = { ...request.accept, metadata: { via: platform, answeredBy: "alice" } };
  if (!CANNOT.test(shown.text)) {
    for (const text of textsOf(request)) {
      assert.ok(shown.text.includes(text), `${label} hides ${JSON.stringify(text)}`);
    }
    await runtime.respond(created.id, answer);
  } else {
    assert.deepEqual(shown.accepts, [], label);
    await assert.rejects(runtime.respond(created.id, answer), { code: "invalid_response" }, label);
    assert.equal((await runtime.get(created.id)).status, "pending", label);
  }
}

describe("chat messages fail closed at every depth", () => {
  for (const request of NESTED_UNKNOWN) {
    it(`a field nobody knows ${request.name} is shown, or nothing but a refusal is taken`, async () => {
      assert.ok(textsOf(request).includes(MARK), "the fixture hides its mark");
      for (const platform of Object.keys(PLATFORMS) as (keyof typeof PLATFORMS)[]) {
        await holds(request, platform);
      }
    });
  }

  it("every field of a progress update is shown, under Sent:", async () => {
    for (const platform of Object.keys(PLATFORMS) as (keyof typeof PLATFORMS)[]) {
      const shown = PLATFORMS[platform](interactionOf(PROGRESS));
      assert.match(shown.text, /\nSent:\n/, platform);
      assert.deepEqual(shown.accepts, ["Acknowledge"], platform);
      await holds(PROGRESS, platform);
    }
  });

  for (const request of EVERY_FIELD) {
    it(`every field of ${request.name} is shown, or nothing but a refusal is taken`, async () => {
      for (const platform of Object.keys(PLATFORMS) as (keyof typeof PLATFORMS)[]) {
        await holds(request, platform);
      }
    });
  }
});

describe("the runtime refuses an accept from a platform that could not show the request", () => {
  const longDiff = Array.from({ length: 200 }, (_, n) => `+line ${n} of the new file`).join("\n");
  const long: DeepRequest = {
    name: "a file change too long for a chat message",
    kind: "approval_request",
    payload: { kind: "fileChange", changes: [{ path: "big.txt", kind: "add", diff: longDiff }] },
    accept: { action: "accept" },
  };
  const forged: DeepRequest = {
    name: "an MCP form whose params say another thing",
    kind: "elicitation_request",
    payload: {
      server_name: "gh",
      mode: "form",
      message: "Pick a repo",
      params: { serverName: "gh", mode: "form", message: "Delete every repo?" },
    },
    accept: { action: "accept", values: { content: {} } },
  };

  for (const request of [long, forged]) {
    it(`${request.name}: only refusals offered, said why, and an accept from there refused`, async () => {
      for (const platform of Object.keys(PLATFORMS) as (keyof typeof PLATFORMS)[]) {
        const shown = PLATFORMS[platform](interactionOf(request));
        assert.match(shown.text, CANNOT, `${request.name} on ${platform}`);
        await holds(request, platform);
      }
    });
  }

  it("the web inbox shows the long one in full, so an accept from it is taken", async () => {
    const created = await runtime.create({
      kind: long.kind,
      source: { name: "t" },
      title: long.name,
      payload: long.payload,
    });
    const done = await runtime.respond(created.id, {
      action: "accept",
      metadata: { via: "web-inbox" },
    });
    assert.equal(done.status, "resolved");
  });

  it("the form with other params cannot be shown anywhere: the inbox's accept is refused", async () => {
    const created = await runtime.create({
      kind: forged.kind,
      source: { name: "t" },
      title: forged.name,
      payload: forged.payload,
    });
    await assert.rejects(
      runtime.respond(created.id, { ...forged.accept, metadata: { via: "web-inbox" } }),
      {
        code: "invalid_response",
        message:
          /web inbox cannot show this elicitation_request in full \(payload\.params\.message is not the same as payload\.message\)/,
      },
    );
  });
});

describe("what fits a platform's message is all there", () => {
  it("a change as long as the room is shown uncut with Accept; one character more is not", () => {
    for (const platform of Object.keys(PLATFORMS) as (keyof typeof PLATFORMS)[]) {
      const room = CHAT_ROOMS[platform];
      const length = room.max - (room.size("add f.txt") + 1) - (room.size("  +") + 1);
      const change = (n: number) =>
        interactionOf({
          name: "Change f.txt",
          kind: "approval_request",
          payload: { changes: [{ path: "f.txt", kind: "add", diff: `+${"x".repeat(n)}` }] },
          accept: { action: "accept" },
        });
      const fits = PLATFORMS[platform](change(length));
      assert.doesNotMatch(fits.text, CANNOT, platform);
      assert.ok(fits.text.includes(`+${"x".repeat(length)}\n`), platform);
      assert.deepEqual(fits.accepts, ["Accept", "Accept for this session"], platform);
      const over = PLATFORMS[platform](change(length + 1));
      assert.match(over.text, /too long for a \w+ message/, platform);
      assert.deepEqual(over.accepts, [], platform);
    }
  });
});
