// What a turn keeps for a reader that falls behind: the answer whole (joined while unread), program
// output within its budget (oldest dropped, said before the item completes), and nothing changed
// for a reader that keeps up.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import type { RpcNotification } from "../../src/protocol/messages.js";
import { ActiveTurn } from "../../src/turns/active-turn.js";

const THREAD = "thread-1";
const TURN = "turn-1";

const delta = (method: string, itemId: string, text: string): RpcNotification => ({
  method,
  params: { threadId: THREAD, turnId: TURN, itemId, delta: text },
});
const output = (itemId: string, text: string) =>
  delta("item/commandExecution/outputDelta", itemId, text);
const answer = (text: string) => delta("item/agentMessage/delta", "msg", text);
const reasoningText = (text: string) =>
  delta("item/reasoning/textDelta", "think", text) as RpcNotification & {
    params: { contentIndex: number };
  };
const completed = (item: Record<string, unknown>): RpcNotification => ({
  method: "item/completed",
  params: { threadId: THREAD, turnId: TURN, item },
});
const turnCompleted: RpcNotification = {
  method: "turn/completed",
  params: { threadId: THREAD, turn: { id: TURN, status: "completed" } },
};

async function eventsOf(turn: ActiveTurn): Promise<ExtendedThreadEvent[]> {
  const all: ExtendedThreadEvent[] = [];
  for await (const event of turn.events) all.push(event);
  return all;
}

const deltasOf = (events: ExtendedThreadEvent[], itemId: string) =>
  events.flatMap((e) => (e.type === "item.delta" && e.item_id === itemId ? [e.delta] : []));

/** `n` numbered deltas of 100 characters each. */
const numbered = (n: number) =>
  Array.from({ length: n }, (_, i) => `${String(i).padStart(8, "0")}${"x".repeat(92)}`);

describe("a paused reader", () => {
  it("gets every character of the answer, in order, in far fewer events, and no drop", async () => {
    const turn = new ActiveTurn(THREAD, undefined, false, 1_000);
    turn.start(TURN);
    const texts = numbered(20_000); // 2 MB of answer, 2,000 times the output budget
    for (const text of texts) turn.receive(answer(text));
    turn.receive(completed({ type: "agentMessage", id: "msg", text: texts.join("") }));
    turn.receive(turnCompleted);
    const events = await eventsOf(turn);
    const got = deltasOf(events, "msg");
    assert.equal(got.join(""), texts.join(""), "whole and in order");
    // The first 128 KiB come as sent; past them, unread deltas are joined (64 KiB a buffer), and
    // the reader gets the joined text 16 KiB an event, a buffer's last piece shorter.
    const joinedFrom = got.findIndex((text) => text.length !== 100);
    assert.ok(joinedFrom > 1_000 && joinedFrom * 100 <= 128 * 1024 + 100, `as sent: ${joinedFrom}`);
    const joined = got.slice(joinedFrom);
    const joinedChars = joined.join("").length;
    assert.ok(
      joined.length <= Math.ceil(joinedChars / 16_384) + Math.ceil(joinedChars / 65_536),
      `joined while unread: ${joined.length} events for ${joinedChars} characters`,
    );
    assert.ok(joined.every((text) => text.length <= 16 * 1024));
    assert.ok(
      got.slice(0, 100).every((text, i) => text === texts[i]),
      "the first come as sent",
    );
    assert.equal(events.filter((e) => e.type === "notice").length, 0);
  });

  it("keeps reasoning whole too, and never joins across items, streams or content parts", async () => {
    const turn = new ActiveTurn(THREAD, undefined, false, 10);
    turn.start(TURN);
    const texts = numbered(5_000);
    for (const [i, text] of texts.entries()) {
      const part = reasoningText(text);
      part.params.contentIndex = i < 4_000 ? 0 : 1;
      turn.receive(part);
      if (i % 1_000 === 999) turn.receive(answer(`[${i}]`));
    }
    turn.receive(turnCompleted);
    const events = await eventsOf(turn);
    const reasoning = events.filter(
      (e): e is Extract<ExtendedThreadEvent, { type: "item.delta" }> =>
        e.type === "item.delta" && e.stream === "reasoning",
    );
    assert.equal(reasoning.map((e) => e.delta).join(""), texts.join(""));
    const partText = (index: number) =>
      reasoning.flatMap((e) => (e.content_index === index ? [e.delta] : [])).join("");
    assert.equal(partText(0), texts.slice(0, 4_000).join(""), "a part never spans two indexes");
    assert.equal(partText(1), texts.slice(4_000).join(""));
    assert.deepEqual(deltasOf(events, "msg"), ["[999]", "[1999]", "[2999]", "[3999]", "[4999]"]);
  });

  it("has its oldest unread output dropped past the budget, said once before the item completes", async () => {
    const budget = 500_000;
    const turn = new ActiveTurn(THREAD, undefined, false, budget);
    turn.start(TURN);
    const texts = numbered(20_000); // 2 MB of output
    for (const text of texts) turn.receive(output("cmd", text));
    turn.receive(
      completed({
        type: "commandExecution",
        id: "cmd",
        command: "yes",
        status: "completed",
        aggregatedOutput: "all",
      }),
    );
    turn.receive(turnCompleted);
    const events = await eventsOf(turn);
    const got = deltasOf(events, "cmd").join("");
    const all = texts.join("");
    assert.equal(got.length, budget, "what is kept is the budget");
    assert.equal(got, all.slice(all.length - budget), "the newest output, in order");
    const noticeAt = events.findIndex((e) => e.type === "notice");
    const completedAt = events.findIndex((e) => e.type === "item.completed");
    assert.ok(noticeAt >= 0 && noticeAt < completedAt, "the notice precedes the completed item");
    const notice = events[noticeAt];
    assert.ok(notice?.type === "notice" && notice.code === "deltas_dropped");
    assert.equal(notice.item_id, "cmd");
    assert.equal(notice.dropped_bytes, all.length - budget);
    assert.match(notice.message, /oldest 1500000 unread bytes of item cmd's output/);
    assert.equal(events.filter((e) => e.type === "notice").length, 1);
  });

  it("drops whole characters only: what is kept of multi-byte output decodes cleanly", async () => {
    const turn = new ActiveTurn(THREAD, undefined, false, 1_001);
    turn.start(TURN);
    const text = "é€😀a".repeat(40_000); // 2, 3, 4 and 1 UTF-8 bytes
    for (let at = 0; at < text.length; at += 100)
      turn.receive(output("cmd", text.slice(at, at + 100)));
    turn.receive(turnCompleted);
    const got = deltasOf(await eventsOf(turn), "cmd").join("");
    assert.ok(!got.includes("\uFFFD"), "no broken character");
    assert.ok(text.endsWith(got), "the newest output, in order");
    assert.ok(Buffer.byteLength(got) <= 1_001 && Buffer.byteLength(got) > 990);
  });

  it("hands joined text over in whole characters, at most 16 KiB of UTF-8 an event", async () => {
    const turn = new ActiveTurn(THREAD, undefined, false, 1_000);
    turn.start(TURN);
    const text = "é€😀a".repeat(50_000); // 2, 3, 4 and 1 UTF-8 bytes
    for (let at = 0; at < text.length; at += 100) turn.receive(answer(text.slice(at, at + 100)));
    turn.receive(turnCompleted);
    const got = deltasOf(await eventsOf(turn), "msg");
    assert.equal(got.join(""), text, "every character, in order");
    assert.ok(
      got.every((part) => Buffer.byteLength(part) <= 16 * 1024 && !part.includes("\uFFFD")),
    );
    assert.ok(
      got.some((part) => Buffer.byteLength(part) > 16 * 1024 - 4),
      "joined, then cut",
    );
  });

  it("with a budget of 0 keeps no output, yet every character of the answer between it", async () => {
    const turn = new ActiveTurn(THREAD, undefined, false, 0);
    turn.start(TURN);
    const texts = numbered(3_000);
    for (const text of texts) {
      turn.receive(output("cmd", text));
      turn.receive(answer(text));
    }
    turn.receive(
      completed({ type: "commandExecution", id: "cmd", command: "yes", status: "completed" }),
    );
    turn.receive(turnCompleted);
    const events = await eventsOf(turn);
    assert.deepEqual(deltasOf(events, "cmd"), []);
    assert.equal(deltasOf(events, "msg").join(""), texts.join(""));
    const notice = events.find((e) => e.type === "notice");
    assert.ok(notice?.type === "notice" && notice.dropped_bytes === 300_000);
  });

  it("frees the budget as it reads: output taken in time is never dropped", async () => {
    const turn = new ActiveTurn(THREAD, undefined, false, 35);
    turn.start(TURN);
    for (let n = 0; n < 3; n++) turn.receive(output("cmd", `${n}`.padStart(10, "0")));
    const first = await turn.events.next();
    assert.ok(!first.done && first.value.type === "item.delta");
    turn.receive(output("cmd", "3".padStart(10, "0")));
    turn.receive(turnCompleted);
    const rest = await eventsOf(turn);
    assert.deepEqual(deltasOf(rest, "cmd"), ["0000000001", "0000000002", "0000000003"]);
    assert.equal(rest.filter((e) => e.type === "notice").length, 0);
  });
});

describe("a reader that keeps up", () => {
  it("sees every delta as codex sent it, far past the budget: nothing joined, nothing dropped", async () => {
    const turn = new ActiveTurn(THREAD, undefined, false, 25);
    turn.start(TURN);
    const got: string[] = [];
    const reading = (async () => {
      for await (const event of turn.events) if (event.type === "item.delta") got.push(event.delta);
    })();
    for (let n = 0; n < 50; n++) {
      await new Promise((resolve) => setImmediate(resolve));
      turn.receive(output("cmd", "0123456789"));
      turn.receive(answer("abcdefghij"));
    }
    turn.receive(turnCompleted);
    await reading;
    assert.equal(got.length, 100);
    assert.ok(got.every((text, i) => text === (i % 2 === 0 ? "0123456789" : "abcdefghij")));
  });
});
