// Seeded fuzzing of what codex can send: thousands of lines — valid, malformed and hostile JSON-RPC
// — through the framing, the peer and a turn's router. Nothing may throw out of them, every server
// request with an id gets exactly one answer, and only a well-formed turn/completed ends the turn.
// FUZZ_SEED=n replays one seed.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { JsonRpcPeer } from "../../src/rpc/peer.js";
import { StreamTransport } from "../../src/rpc/stream-transport.js";
import { ActiveTurn, ActiveTurns } from "../../src/turns/active-turn.js";
import { fuzzSeeds, whatEscapes } from "../support/fuzz.js";
import { seededRandom } from "../support/seeded-random.js";

const THREAD = "thread-f";
const TURN = "turn-f";
const LINES = 3_000;

const METHODS = [
  "turn/started",
  "turn/completed",
  "item/started",
  "item/completed",
  "item/agentMessage/delta",
  "item/commandExecution/outputDelta",
  "item/fileChange/patchUpdated",
  "turn/plan/updated",
  "turn/diff/updated",
  "thread/tokenUsage/updated",
  "error",
  "serverRequest/resolved",
  "some/futureMethod",
];
const REQUESTS = [
  "item/commandExecution/requestApproval",
  "item/fileChange/requestApproval",
  "item/tool/requestUserInput",
  "item/tool/call",
  "no/suchRequest",
];
const ITEM_TYPES = ["agentMessage", "commandExecution", "fileChange", "reasoning", "mcpToolCall"];

/** Builds one fuzzed line; says whether it is a server request with an answerable id. */
function fuzzLine(next: () => number): { line: string; requestId?: string | number } {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
  const value = (depth = 0): unknown => {
    const kind = Math.floor(next() * (depth > 3 ? 5 : 8));
    switch (kind) {
      case 0:
        return null;
      case 1:
        return Math.floor(next() * 1e6) - 5e5;
      case 2:
        return pick(["", "x", THREAD, TURN, "__proto__", "constructor", "\u0000", "😀"]);
      case 3:
        return next() < 0.5;
      case 4:
        return pick([[], {}, [null], { id: TURN }]);
      case 5:
        return Array.from({ length: Math.floor(next() * 3) }, () => value(depth + 1));
      default:
        return Object.fromEntries(
          Array.from({ length: Math.floor(next() * 4) }, () => [
            pick([
              "id",
              "type",
              "status",
              "turn",
              "item",
              "threadId",
              "turnId",
              "delta",
              "__proto__",
            ]),
            value(depth + 1),
          ]),
        );
    }
  };
  const params = (): unknown => {
    if (next() < 0.15) return value();
    return {
      threadId: next() < 0.8 ? THREAD : value(),
      turnId: next() < 0.7 ? TURN : value(),
      ...(next() < 0.5
        ? { item: { type: pick(ITEM_TYPES), id: pick(["a", "b", 1]), ...(value(2) as object) } }
        : {}),
      ...(next() < 0.3
        ? { turn: next() < 0.5 ? value() : { id: TURN, status: pick(["completed", "failed", 7]) } }
        : {}),
      ...(next() < 0.3 ? { delta: value() } : {}),
    };
  };
  const roll = next();
  if (roll < 0.5) {
    return { line: JSON.stringify({ method: pick(METHODS), params: params() }) };
  }
  if (roll < 0.65) {
    const id = pick([Math.floor(next() * 1e9), `req-${Math.floor(next() * 1e9)}`, null, [], {}]);
    const line = JSON.stringify({ id, method: pick(REQUESTS), params: params() });
    return typeof id === "number" || typeof id === "string" ? { line, requestId: id } : { line };
  }
  if (roll < 0.75) return { line: JSON.stringify({ id: value(), result: value() }) };
  if (roll < 0.8) return { line: JSON.stringify({ id: value(), error: value() }) };
  if (roll < 0.85) return { line: `${"[".repeat(600 + Math.floor(next() * 5_000))}` };
  if (roll < 0.9) return { line: JSON.stringify(value()) };
  return { line: pick(["", "garbage", "{", "}", "null", "[]", '{"method":', "\u0000\u0001"]) };
}

async function fuzz(seed: number): Promise<void> {
  const next = seededRandom(seed);
  const toPeer = new PassThrough();
  const fromPeer = new PassThrough();
  const peer = new JsonRpcPeer(new StreamTransport(toPeer, fromPeer));
  const answers = new Map<string, number>();
  let buffered = "";
  fromPeer.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      const message = JSON.parse(buffered.slice(0, newline)) as { id?: unknown; method?: unknown };
      buffered = buffered.slice(newline + 1);
      if (message.method === undefined) {
        const key = JSON.stringify(message.id);
        answers.set(key, (answers.get(key) ?? 0) + 1);
      }
      newline = buffered.indexOf("\n");
    }
  });
  const router = new ActiveTurns();
  const turn = new ActiveTurn(THREAD);
  turn.start(TURN);
  router.add(turn);
  peer.onAnyNotification((notification) => router.route(notification));
  peer.setRequestHandler("item/commandExecution/requestApproval", () => ({ decision: "decline" }));
  peer.setRequestHandler("item/fileChange/requestApproval", async () => {
    await sleep(0);
    return { decision: "decline" };
  });
  peer.setRequestHandler("item/tool/requestUserInput", () => {
    throw Object.create(null); // not even an Error
  });
  peer.setRequestHandler("item/tool/call", () => Promise.reject(new Error("tool failed")));
  await peer.start();

  const asked = new Map<string, number>();
  let endedWell = false;
  for (let index = 0; index < LINES; index++) {
    const { line, requestId } = fuzzLine(next);
    if (requestId !== undefined) {
      const key = JSON.stringify(requestId);
      asked.set(key, (asked.get(key) ?? 0) + 1);
    }
    const parsed = (() => {
      try {
        return JSON.parse(line) as {
          method?: unknown;
          params?: { turn?: unknown; threadId?: unknown };
        };
      } catch {
        return undefined;
      }
    })();
    const turnValue = parsed?.params?.turn as { id?: unknown; status?: unknown } | undefined;
    if (
      parsed?.method === "turn/completed" &&
      parsed.params?.threadId === THREAD &&
      typeof turnValue === "object" &&
      turnValue !== null &&
      !Array.isArray(turnValue) &&
      turnValue.id === TURN &&
      typeof turnValue.status === "string"
    ) {
      endedWell = true;
    }
    toPeer.write(`${line}\n`);
    if (index % 200 === 0) await sleep(0);
  }
  await sleep(50);
  // Still working: a request of ours gets its answer.
  const roundTrip = peer.request("model/list", {}, { timeoutMs: 2_000 });
  await sleep(10);
  // Ours is the peer's first request: id 0.
  toPeer.write(`${JSON.stringify({ id: 0, result: { data: [] } })}\n`);
  assert.deepEqual(await roundTrip, { data: [] }, `seed ${seed}: the peer still answers`);
  assert.ok(asked.size > 100, `seed ${seed}: the fuzz asked ${asked.size} requests`);
  for (const [id, times] of asked) {
    assert.equal(answers.get(id), times, `seed ${seed}: request ${id} answered once per ask`);
  }
  assert.equal(
    turn.mapper.outcome !== undefined,
    endedWell,
    `seed ${seed}: the turn ended ${turn.mapper.outcome ? "" : "not "}yet a well-formed end was ${endedWell ? "" : "not "}sent`,
  );
  await peer.close();
}

describe("fuzzed wire input (framing, peer, router)", () => {
  const seeds = fuzzSeeds([1, 2, 3, 4]);
  for (const seed of seeds) {
    it(`survives ${LINES} fuzzed lines, seed ${seed}`, async () => {
      const problems = await whatEscapes(async () => {
        await fuzz(seed);
        await sleep(20);
      });
      assert.deepEqual(problems, [], `seed ${seed}: nothing escapes`);
    });
  }
});
