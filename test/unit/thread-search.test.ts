// searchThreads over thread/search/stream, against an in-memory server that plays codex: provisional
// lists from thread/search/partial (only its own request's), the final page, and the cancel codex
// gets when the loop stops early or the signal aborts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppServerClient } from "../../src/app-server/client.js";
import { AppServerAccess } from "../../src/app-server-access.js";
import { CodexHarnessError } from "../../src/errors.js";
import type { RpcMessage } from "../../src/protocol/messages.js";
import { InMemoryTransport } from "../../src/rpc/transport.js";
import {
  MAX_SEARCH_QUERY_BYTES,
  searchSavedThreads,
  type ThreadSearchUpdate,
} from "../../src/thread-search.js";

const INITIALIZED = {
  userAgent: "codex_harness/0.171.0 (test)",
  codexHome: "/tmp/h",
  platformFamily: "unix",
  platformOs: "linux",
};

/** A search result for thread `id` (only the fields the test reads matter). */
const hit = (id: string) => ({ thread: { id } as never, snippet: `…${id}…` });

/** A client on an in-memory codex that records what it is sent and lets the test answer. */
async function fakeCodex() {
  const [clientSide, serverSide] = InMemoryTransport.createPair();
  const received: Record<string, unknown>[] = [];
  let arrived: (() => void) | undefined;
  serverSide.onmessage = (message) => {
    const record = message as Record<string, unknown>;
    if (record.method === "initialize") {
      void serverSide.send({ id: record.id as number, result: INITIALIZED });
      return;
    }
    if (record.method === "initialized") return;
    received.push(record);
    if (record.method === "thread/search/stream/cancel") {
      void serverSide.send({ id: record.id as number, result: {} });
    }
    arrived?.();
  };
  await serverSide.start();
  const client = await AppServerClient.connect(clientSide, {});
  const send = (message: RpcMessage) => serverSide.send(message);
  /** The next request of `method` codex gets. */
  const request = async (method: string) => {
    for (;;) {
      const found = received.find((r) => r.method === method);
      if (found) return found as { id: number; params: Record<string, unknown> };
      await new Promise<void>((resolve) => {
        arrived = resolve;
      });
    }
  };
  return { client, access: new AppServerAccess(async () => client), received, send, request };
}

describe("searchThreads (thread/search/stream)", () => {
  it("yields provisional lists from its own partials, then the final page, and sends no cancel", async () => {
    const codex = await fakeCodex();
    const updates: ThreadSearchUpdate[] = [];
    const done = (async () => {
      for await (const update of searchSavedThreads(codex.access, "zebra", { pageSize: 5 })) {
        updates.push(update);
      }
    })();
    const { id, params } = await codex.request("thread/search/stream");
    assert.deepEqual(params, { searchTerm: "zebra", limit: 5 });
    await codex.send({
      method: "thread/search/partial",
      params: { requestId: id, data: [hit("a")] },
    });
    // Another search's partial is not this one's.
    await codex.send({
      method: "thread/search/partial",
      params: { requestId: id + 100, data: [hit("x")] },
    });
    await codex.send({
      method: "thread/search/partial",
      params: { requestId: id, data: [hit("b")] },
    });
    await codex.send({
      id,
      result: { data: [hit("b"), hit("a")], nextCursor: "next", backwardsCursor: null },
    });
    await done;
    assert.deepEqual(updates, [
      { final: false, results: [hit("a")] },
      { final: false, results: [hit("a"), hit("b")] },
      { final: true, results: [hit("b"), hit("a")], nextCursor: "next", backwardsCursor: null },
    ]);
    assert.equal(
      codex.received.filter((r) => r.method === "thread/search/stream/cancel").length,
      0,
    );
    await codex.client.close();
  });

  it("a loop that stops at a provisional list cancels the search in codex", async () => {
    const codex = await fakeCodex();
    const search = searchSavedThreads(codex.access, "zebra");
    const first = search.next();
    const { id } = await codex.request("thread/search/stream");
    await codex.send({
      method: "thread/search/partial",
      params: { requestId: id, data: [hit("a")] },
    });
    assert.deepEqual((await first).value, { final: false, results: [hit("a")] });
    await search.return(undefined); // what `break` does
    const cancel = await codex.request("thread/search/stream/cancel");
    assert.deepEqual(cancel.params, { requestId: id });
    await codex.client.close();
  });

  it("an aborted signal ends the loop with its reason and cancels the search in codex", async () => {
    const codex = await fakeCodex();
    const controller = new AbortController();
    const iteration = (async () => {
      for await (const _ of searchSavedThreads(codex.access, "zebra", {
        signal: controller.signal,
      })) {
        // nothing comes before the abort
      }
    })();
    const { id } = await codex.request("thread/search/stream");
    const reason = new Error("user left");
    controller.abort(reason);
    await assert.rejects(iteration, (error) => error === reason);
    const cancel = await codex.request("thread/search/stream/cancel");
    assert.deepEqual(cancel.params, { requestId: id });
    // A signal aborted before the loop starts sends nothing at all.
    const before = codex.received.length;
    await assert.rejects(
      searchSavedThreads(codex.access, "zebra", { signal: controller.signal }).next(),
      (error) => error === reason,
    );
    assert.equal(codex.received.length, before);
    await codex.client.close();
  });

  it("codex's error ends the loop with it, and no cancel follows", async () => {
    const codex = await fakeCodex();
    const next = searchSavedThreads(codex.access, "zebra").next();
    const { id } = await codex.request("thread/search/stream");
    await codex.send({ id, error: { code: -32600, message: "thread search cancelled" } });
    await assert.rejects(next, /thread search cancelled/);
    assert.equal(
      codex.received.filter((r) => r.method === "thread/search/stream/cancel").length,
      0,
    );
    await codex.client.close();
  });

  it("refuses an empty query, one over codex's size limit and a bad pageSize before asking codex", async () => {
    const codex = await fakeCodex();
    const refused = async (query: string, options = {}, code = "invalid_input") =>
      assert.rejects(searchSavedThreads(codex.access, query, options).next(), (error) => {
        assert.ok(error instanceof CodexHarnessError);
        assert.equal(error.code, code);
        return true;
      });
    await refused("   ");
    await refused("é".repeat(MAX_SEARCH_QUERY_BYTES / 2 + 1));
    await refused("zebra", { pageSize: 0 }, "invalid_option");
    assert.deepEqual(codex.received, []);
    await codex.client.close();
  });
});
