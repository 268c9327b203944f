// The ACP agent's message gate: an invalid request with a readable id is answered with that id,
// in order with the connection's own messages; valid messages, responses and what has no readable
// id pass through to the SDK untouched.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type * as acp from "@agentclientprotocol/sdk";
import { gateMessages, refusalOf } from "../../src/acp/message-gate.js";

/** A stream whose incoming side plays `incoming`, and what was written to its outgoing side. */
function streamOf(incoming: unknown[]) {
  const written: unknown[] = [];
  const stream: acp.Stream = {
    readable: new ReadableStream<acp.AnyMessage>({
      start(controller) {
        // What arrives is unchecked JSON, whatever the SDK's type says.
        for (const message of incoming) controller.enqueue(message as acp.AnyMessage);
        controller.close();
      },
    }),
    writable: new WritableStream({
      write(message) {
        written.push(message);
      },
    }),
  };
  return { stream, written };
}

/** Everything `readable` gives until it ends. */
async function drain(readable: ReadableStream<acp.AnyMessage>): Promise<unknown[]> {
  const read: unknown[] = [];
  for await (const message of readable as unknown as AsyncIterable<acp.AnyMessage>) {
    read.push(message);
  }
  return read;
}

describe("refusalOf", () => {
  it("answers a readable id with -32600: wrong version, no method, a method that is no string", () => {
    const cases: [unknown, RegExp][] = [
      [{ jsonrpc: "1.0", id: 1, method: "initialize" }, /"jsonrpc" must be "2\.0", not "1\.0"/],
      [{ id: "a", method: "initialize" }, /"jsonrpc" must be "2\.0", not missing/],
      [{ jsonrpc: "2.0", id: 3, method: 7 }, /"method" must be a string, not 7/],
      [{ jsonrpc: "2.0", id: 0 }, /no "method"/],
      [{ jsonrpc: "2.0", id: 1.5, params: {} }, /no "method"/],
    ];
    for (const [message, reason] of cases) {
      const answer = refusalOf(message);
      assert.ok(answer && "error" in answer, JSON.stringify(message));
      assert.equal(answer.id, (message as { id: unknown }).id);
      assert.equal(answer.jsonrpc, "2.0");
      assert.equal(answer.error.code, -32600);
      assert.match(answer.error.message, reason);
    }
  });

  it("leaves valid messages, responses and unreadable ids to the SDK", () => {
    for (const message of [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: {} },
      { jsonrpc: "2.0", method: "session/cancel", params: {} },
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: "x", error: { code: 1, message: "no" } },
      { jsonrpc: "1.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: null, method: 5 },
      { jsonrpc: "2.0", id: { a: 1 }, method: "initialize" },
      { jsonrpc: "2.0", id: true },
      { jsonrpc: "1.0", method: "initialize" },
      [{ jsonrpc: "2.0", id: 1 }],
      "text",
      null,
    ]) {
      assert.equal(refusalOf(message), undefined, JSON.stringify(message));
    }
  });
});

describe("gateMessages", () => {
  it("answers refused messages on the output, in order with the connection's, and passes the rest", async () => {
    const valid = { jsonrpc: "2.0", id: 1, method: "initialize", params: {} };
    const response = { jsonrpc: "2.0", id: 7, result: {} };
    const { stream, written } = streamOf([
      valid,
      { jsonrpc: "2.0", id: 14 },
      response,
      { jsonrpc: "1.0", id: "b", method: "session/new" },
    ]);
    const gated = gateMessages(stream);
    const writer = gated.writable.getWriter();
    await writer.write({ jsonrpc: "2.0", method: "first", params: {} });
    assert.deepEqual(await drain(gated.readable), [valid, response]);
    await writer.write({ jsonrpc: "2.0", method: "last", params: {} });
    await writer.close();
    assert.deepEqual(
      written.map((message) => {
        const { id, method } = message as { id?: unknown; method?: string };
        return method ?? id;
      }),
      ["first", 14, "b", "last"],
    );
  });
});
