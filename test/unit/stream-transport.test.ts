import assert from "node:assert/strict";
import { PassThrough, Writable } from "node:stream";
import { describe, it } from "node:test";
import { JsonRpcPeer } from "../../src/rpc/peer.js";
import { StreamTransport } from "../../src/rpc/stream-transport.js";

describe("StreamTransport", () => {
  it("frames split and merged chunks, skips garbage and oversized lines, and keeps the connection", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const transport = new StreamTransport(input, output, { maxLineBytes: 64 });
    const peer = new JsonRpcPeer(transport);
    const errors: string[] = [];
    peer.onError((error) =>
      errors.push((error as Error & { code?: string }).code ?? error.message),
    );
    await peer.start();
    const a = peer.request("a", {});
    const b = peer.request("b", {});
    input.write('not json at all\n{"id":0,"res');
    input.write(`ult":"A"}\n{"x":"${"y".repeat(100)}"}\n{"id":1,"result":"B"}\r\n`);
    assert.equal(await a, "A");
    assert.equal(await b, "B");
    assert.deepEqual(errors, ["invalid_json", "line_too_long"]);
    const written = output.read()?.toString() ?? "";
    assert.equal(written, '{"id":0,"method":"a","params":{}}\n{"id":1,"method":"b","params":{}}\n');
  });

  it("waits for drain when the writer applies backpressure", async () => {
    const chunks: string[] = [];
    let release: (() => void) | undefined;
    const slow = new Writable({
      highWaterMark: 8,
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk.toString());
        release = callback;
      },
    });
    const transport = new StreamTransport(new PassThrough(), slow);
    await transport.start();
    let sent = false;
    const sending = transport.send({ method: "initialized" }).then(() => {
      sent = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(sent, false, "send must wait while the pipe is full");
    release?.();
    await sending;
    assert.equal(sent, true);
    assert.deepEqual(chunks, ['{"method":"initialized"}\n']);
  });

  it("reports the end of input as a close", async () => {
    const input = new PassThrough();
    const transport = new StreamTransport(input, new PassThrough());
    const peer = new JsonRpcPeer(transport);
    await peer.start();
    const pending = peer.request("x", {});
    input.end();
    await assert.rejects(pending, /closed/);
  });
});
