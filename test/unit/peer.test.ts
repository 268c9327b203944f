import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RpcMessage } from "../../src/protocol/messages.js";
import { RpcLocalError, RpcWireError } from "../../src/rpc/errors.js";
import { JsonRpcPeer } from "../../src/rpc/peer.js";
import { InMemoryTransport } from "../../src/rpc/transport.js";

/** A peer wired to a scripted "server" side that records what it receives. */
async function connect(options: ConstructorParameters<typeof JsonRpcPeer>[1] = {}) {
  const [clientSide, serverSide] = InMemoryTransport.createPair();
  const peer = new JsonRpcPeer(clientSide, options);
  const received: Record<string, unknown>[] = [];
  const waiters: Array<() => void> = [];
  serverSide.onmessage = (message) => {
    received.push(message as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  };
  await serverSide.start();
  await peer.start();
  const nextMessage = async (index: number): Promise<Record<string, unknown>> => {
    while (received.length <= index) await new Promise<void>((resolve) => waiters.push(resolve));
    return received[index] as Record<string, unknown>;
  };
  const send = (message: RpcMessage) => serverSide.send(message);
  return { peer, received, nextMessage, send, serverSide };
}

describe("JsonRpcPeer", () => {
  it("sends integer ids without a jsonrpc field and resolves with the result", async () => {
    const { peer, nextMessage, send } = await connect();
    const answer = peer.request("model/list", { limit: 1 });
    const request = await nextMessage(0);
    assert.deepEqual(request, { id: 0, method: "model/list", params: { limit: 1 } });
    await send({ id: 0, result: { data: [] } });
    assert.deepEqual(await answer, { data: [] });
    const second = peer.request("thread/list");
    assert.deepEqual(await nextMessage(1), { id: 1, method: "thread/list" });
    await send({ id: 1, result: "ok" });
    assert.equal(await second, "ok");
  });

  it("sends the `trace` option as the request's W3C trace field, and no field without it", async () => {
    const { peer, nextMessage, send } = await connect();
    const trace = { traceparent: `00-${"a".repeat(32)}-${"b".repeat(16)}-01`, tracestate: "k=v" };
    const traced = peer.request("turn/start", { threadId: "t" }, { trace });
    assert.deepEqual(await nextMessage(0), {
      id: 0,
      method: "turn/start",
      params: { threadId: "t" },
      trace,
    });
    await send({ id: 0, result: {} });
    await traced;
    const plain = peer.request("turn/start", { threadId: "t" }, { trace: undefined });
    assert.equal("trace" in (await nextMessage(1)), false);
    await send({ id: 1, result: {} });
    await plain;
  });

  it("treats a server request whose id equals a pending id as a request, not a response", async () => {
    const { peer, nextMessage, send } = await connect();
    const seen: unknown[] = [];
    peer.setRequestHandler("item/commandExecution/requestApproval", (params) => {
      seen.push(params);
      return { decision: "decline" };
    });
    const pending = peer.request("turn/start", { threadId: "t" });
    assert.equal((await nextMessage(0)).id, 0);
    await send({ id: 0, method: "item/commandExecution/requestApproval", params: { itemId: "i" } });
    assert.deepEqual(await nextMessage(1), { id: 0, result: { decision: "decline" } });
    assert.deepEqual(seen, [{ itemId: "i" }]);
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, "our request must still be pending");
    await send({ id: 0, result: { turn: { id: "turn-1" } } });
    assert.deepEqual(await pending, { turn: { id: "turn-1" } });
  });

  it("answers an unhandled server request with -32601 and keeps going", async () => {
    const { peer, nextMessage, send } = await connect();
    await send({ id: "s-1", method: "item/tool/call", params: {} });
    const reply = await nextMessage(0);
    assert.equal(reply.id, "s-1");
    assert.equal((reply.error as { code: number }).code, -32601);
    const next = peer.request("model/list", {});
    await nextMessage(1);
    await send({ id: 0, result: 1 });
    assert.equal(await next, 1);
  });

  it("answers a throwing handler with -32603, reports the error, and keeps going", async () => {
    const { peer, nextMessage, send } = await connect();
    const errors: Error[] = [];
    peer.onError((error) => errors.push(error));
    peer.setRequestHandler("item/tool/call", async () => {
      throw new Error("tool exploded");
    });
    await send({ id: 9, method: "item/tool/call", params: {} });
    const reply = await nextMessage(0);
    assert.deepEqual(reply, { id: 9, error: { code: -32603, message: "tool exploded" } });
    assert.equal(errors[0]?.message, "tool exploded");
    const next = peer.request("model/list", {});
    await nextMessage(1);
    await send({ id: 0, result: true });
    assert.equal(await next, true);
  });

  it("times out a request, cleans it up, and reports a late answer as stray", async () => {
    const { peer, nextMessage, send } = await connect();
    const errors: Error[] = [];
    peer.onError((error) => errors.push(error));
    const started = Date.now();
    await assert.rejects(
      peer.request("thread/start", {}, { timeoutMs: 30 }),
      (error: unknown) =>
        error instanceof RpcLocalError &&
        error.code === "timeout" &&
        error.method === "thread/start",
    );
    assert.ok(Date.now() - started < 1_000);
    await nextMessage(0);
    await send({ id: 0, result: "late" });
    await new Promise((resolve) => setImmediate(resolve));
    assert.match(errors[0]?.message ?? "", /unknown request id 0/);
  });

  it("rejects at once when the signal aborts, before or during the wait", async () => {
    const { peer } = await connect();
    const controller = new AbortController();
    const pending = peer.request("thread/start", {}, { signal: controller.signal });
    controller.abort(new Error("user gave up"));
    await assert.rejects(
      pending,
      (error: unknown) => error instanceof RpcLocalError && error.code === "aborted",
    );
    await assert.rejects(
      peer.request("thread/start", {}, { signal: controller.signal }),
      (error: unknown) => error instanceof RpcLocalError && error.code === "aborted",
    );
  });

  it("rejects every pending request with the close reason and aborts running handlers", async () => {
    const { peer, nextMessage, send } = await connect();
    let handlerSignal: AbortSignal | undefined;
    peer.setRequestHandler("item/tool/requestUserInput", (_params, context) => {
      handlerSignal = context.signal;
      return new Promise(() => {});
    });
    const a = peer.request("thread/start", {});
    const b = peer.request("turn/start", {});
    await nextMessage(1);
    await send({ id: 77, method: "item/tool/requestUserInput", params: {} });
    await new Promise((resolve) => setImmediate(resolve));
    const reason = new RpcLocalError("process_exited", "codex died");
    const closed: Error[] = [];
    peer.onClose((error) => closed.push(error));
    await peer.close(reason);
    await assert.rejects(a, (error: unknown) => error === reason);
    await assert.rejects(b, (error: unknown) => error === reason);
    assert.equal(handlerSignal?.aborted, true);
    assert.deepEqual(closed, [reason]);
    await assert.rejects(peer.request("model/list", {}), (error: unknown) => error === reason);
  });

  it("closes when the transport closes and rejects pending requests with a closed error", async () => {
    const { peer, serverSide } = await connect();
    const pending = peer.request("thread/start", {});
    await serverSide.close();
    await assert.rejects(
      pending,
      (error: unknown) => error instanceof RpcLocalError && error.code === "closed",
    );
  });

  it("surfaces wire errors with code, message and data; -32001 is recognisable", async () => {
    const { peer, nextMessage, send } = await connect();
    const pending = peer.request("turn/start", {});
    await nextMessage(0);
    await send({
      id: 0,
      error: { code: -32001, message: "Server overloaded", data: { retryAfter: 1 } },
    });
    await assert.rejects(pending, (error: unknown) => {
      assert.ok(error instanceof RpcWireError);
      assert.equal(error.code, -32001);
      assert.equal(error.overloaded, true);
      assert.deepEqual(error.data, { retryAfter: 1 });
      assert.match(error.message, /turn\/start failed: Server overloaded/);
      return true;
    });
  });

  it("retries -32001 with backoff when asked, then succeeds", async () => {
    const { peer, received, nextMessage, send } = await connect();
    const pending = peer.request(
      "thread/start",
      {},
      {
        retry: { maxRetries: 3, initialDelayMs: 5, maxDelayMs: 20 },
      },
    );
    for (const index of [0, 1]) {
      const request = await nextMessage(index);
      await send({ id: request.id as number, error: { code: -32001, message: "busy" } });
    }
    const third = await nextMessage(2);
    await send({ id: third.id as number, result: "done" });
    assert.equal(await pending, "done");
    assert.equal(received.length, 3);
    assert.deepEqual(
      received.map((message) => message.method),
      ["thread/start", "thread/start", "thread/start"],
    );
  });

  it("gives up after maxRetries and does not retry other errors", async () => {
    const { peer, nextMessage, send } = await connect();
    const pending = peer.request(
      "thread/start",
      {},
      { retry: { maxRetries: 1, initialDelayMs: 1 } },
    );
    for (const index of [0, 1]) {
      const request = await nextMessage(index);
      await send({ id: request.id as number, error: { code: -32001, message: "busy" } });
    }
    await assert.rejects(
      pending,
      (error: unknown) => error instanceof RpcWireError && error.overloaded,
    );
    const other = peer.request("thread/start", {}, { retry: true });
    const request = await nextMessage(2);
    await send({ id: request.id as number, error: { code: -32600, message: "no rollout found" } });
    await assert.rejects(
      other,
      (error: unknown) => error instanceof RpcWireError && error.code === -32600,
    );
  });

  it("fans notifications out by method and to catch-all listeners, despite a throwing listener", async () => {
    const { peer, send } = await connect();
    const errors: Error[] = [];
    peer.onError((error) => errors.push(error));
    const byMethod: unknown[] = [];
    const all: string[] = [];
    peer.onNotification("turn/started", () => {
      throw new Error("bad listener");
    });
    const off = peer.onNotification("turn/started", (params) => byMethod.push(params));
    peer.onAnyNotification((notification) => all.push(notification.method));
    await send({ method: "turn/started", params: { n: 1 } });
    await send({ method: "some/futureMethod", params: {} });
    await new Promise((resolve) => setImmediate(resolve));
    off();
    await send({ method: "turn/started", params: { n: 2 } });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(byMethod, [{ n: 1 }]);
    assert.deepEqual(all, ["turn/started", "some/futureMethod", "turn/started"]);
    assert.equal(errors.filter((error) => error.message === "bad listener").length, 2);
  });

  it("hands the late answer of a request it gave up on to onLateAnswer, once", async () => {
    const { peer, nextMessage, send } = await connect();
    const errors: Error[] = [];
    peer.onError((error) => errors.push(error));
    const late: unknown[] = [];
    const onLateAnswer = (result: unknown) => late.push(result);
    await assert.rejects(peer.request("turn/start", {}, { timeoutMs: 20, onLateAnswer }), {
      code: "timeout",
    });
    const aborting = new AbortController();
    const aborted = peer.request("turn/start", {}, { signal: aborting.signal, onLateAnswer });
    await nextMessage(1);
    aborting.abort();
    await assert.rejects(aborted, { code: "aborted" });
    // A request refused by the other side needs no undo; a third one that succeeded in time neither.
    const answered = peer.request("turn/start", {}, { onLateAnswer });
    await nextMessage(2);
    await send({ id: 2, result: { turn: { id: "in-time" } } });
    await answered;
    await send({ id: 0, result: { turn: { id: "late" } } });
    await send({ id: 1, error: { code: -32600, message: "refused" } });
    await send({ id: 0, result: { turn: { id: "late again" } } });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(late, [{ turn: { id: "late" } }]);
    assert.equal(errors.length, 1, "only the repeated answer is a stray");
    assert.match(errors[0]?.message ?? "", /unknown request id 0/);
  });

  it("answers a handler whose error cannot even be read, with no unhandled rejection", async () => {
    const { peer, nextMessage, send } = await connect();
    const errors: Error[] = [];
    peer.onError((error) => errors.push(error));
    const unreadable = Object.create(Error.prototype, {
      message: {
        get() {
          throw new Error("getter exploded");
        },
      },
    });
    const hostile = {
      toString() {
        throw new Error("toString exploded");
      },
    };
    peer.setRequestHandler("item/tool/call", () => {
      throw unreadable;
    });
    peer.setRequestHandler("item/tool/requestUserInput", () => Promise.reject(hostile));
    await send({ id: 1, method: "item/tool/call", params: {} });
    await send({ id: 2, method: "item/tool/requestUserInput", params: {} });
    const replies = [await nextMessage(0), await nextMessage(1)];
    for (const reply of replies) {
      const error = (reply as { error?: { code: number; message: string } }).error;
      assert.equal(error?.code, -32603);
      assert.match(error?.message ?? "", /could not be read/);
    }
    assert.equal(errors.length, 2);
  });
});
