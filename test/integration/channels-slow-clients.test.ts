// SSE clients that stop reading: each is cut off once its bounded buffer is full, the runtime's
// memory stays bounded, and a cut-off client resumes with Last-Event-ID without missing a change.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import v8 from "node:v8";
import vm from "node:vm";
import { ChannelsClient } from "../../src/channels/client.js";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import type { InteractionChange } from "../../src/channels/interaction-types.js";
import { DEFAULT_SSE_BUFFER_BYTES } from "../../src/channels/sse.js";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

const CLIENTS = 10;
const INTERACTIONS = 200;
const PAYLOAD = 200 * 1024;
const MiB = 1024 * 1024;

const dirs: string[] = [];
after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Opens `/v1/events` on a raw socket, waits for the stream's first bytes, then stops reading. */
function slowClient(server: ChannelsServer): Promise<{ socket: Socket; received: Buffer[] }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    const timer = setTimeout(() => reject(new Error("no stream head in 5 s")), 5_000);
    socket.once("error", reject);
    socket.on("data", (chunk: Buffer) => {
      received.push(chunk);
      if (Buffer.concat(received).includes(": codex-harness channels\n\n")) {
        clearTimeout(timer);
        socket.pause();
        resolve({ socket, received });
      }
    });
    socket.write(
      `GET /v1/events HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${server.token}\r\n\r\n`,
    );
  });
}

/** Reads the rest of what `socket` was sent, until the server ends it (or 20 s pass). */
function drain(client: { socket: Socket; received: Buffer[] }): Promise<{
  bytes: number;
  ended: boolean;
  lastId: number;
}> {
  return new Promise((resolve) => {
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      const text = Buffer.concat(client.received).toString("utf8");
      // The last complete event's id.
      const ids = [...text.matchAll(/id: (\d+)\nevent: [^\n]+\ndata: [^\n]*\n\n/g)].map((match) =>
        Number(match[1]),
      );
      resolve({ bytes: text.length, ended, lastId: ids.at(-1) ?? 0 });
    };
    const timer = setTimeout(() => {
      client.socket.destroy();
      finish(false);
    }, 20_000);
    client.socket.on("close", () => finish(true));
    client.socket.resume();
  });
}

const held = () => {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
};

describe("channels SSE: clients that do not read", () => {
  it(`cuts off ${CLIENTS} non-reading clients under ${INTERACTIONS} interactions of 200 KiB; memory stays bounded; resume misses nothing`, async (t) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "channels-slow-"));
    dirs.push(dir);
    const server = await startChannelsServer({ dataDir: dir, port: 0 });
    try {
      const clients = await Promise.all(Array.from({ length: CLIENTS }, () => slowClient(server)));
      gc();
      const baseline = held();
      const baselineRss = process.memoryUsage().rss;
      let peak = 0;
      let peakRss = 0;
      const blob = "x".repeat(PAYLOAD);
      for (let i = 0; i < INTERACTIONS; i += 1) {
        await server.runtime.create({
          kind: "progress_update",
          source: { name: "tests" },
          title: `big ${i}`,
          payload: { blob },
        });
        if (i % 10 === 9) {
          gc();
          peak = Math.max(peak, held() - baseline);
          peakRss = Math.max(peakRss, process.memoryUsage().rss - baselineRss);
        }
      }
      gc();
      const growth = held() - baseline;
      t.diagnostic(
        `after gc: heap+external grew ${(peak / MiB).toFixed(1)} MiB at peak, ${(growth / MiB).toFixed(1)} MiB at the end; rss +${(peakRss / MiB).toFixed(1)} MiB at peak (buffer bound ${DEFAULT_SSE_BUFFER_BYTES / MiB} MiB per client)`,
      );
      // Without the bound each client holds the whole 40 MB stream: ~400 MB.
      assert.ok(peak < 64 * MiB, `heap+external grew ${(peak / MiB).toFixed(1)} MiB`);

      const results = await Promise.all(clients.map(drain));
      const full = INTERACTIONS * PAYLOAD;
      for (const result of results) {
        assert.equal(result.ended, true, "the runtime ended the stream");
        assert.ok(result.bytes < full, `got ${result.bytes} bytes of ${full}`);
        assert.ok(result.lastId < INTERACTIONS);
      }

      // A cut-off client resumes from its last complete event and gets every later change.
      const from = results[0]?.lastId ?? 0;
      const client = new ChannelsClient({ url: server.url, token: server.token });
      const controller = new AbortController();
      const seqs: number[] = [];
      const deadline = setTimeout(() => controller.abort(), 30_000);
      try {
        for await (const change of client.events({ since: from, signal: controller.signal })) {
          seqs.push((change as InteractionChange).seq);
          if (change.seq >= INTERACTIONS) break;
        }
      } finally {
        clearTimeout(deadline);
        controller.abort();
      }
      assert.deepEqual(
        seqs,
        Array.from({ length: INTERACTIONS - from }, (_, i) => from + 1 + i),
      );
    } finally {
      await server.close();
    }
  });
});
