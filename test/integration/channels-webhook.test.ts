import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import type { DeliveryFailure } from "../../src/channels/backends.js";
import { channelsApprovals } from "../../src/channels/bridge.js";
import { ChannelsClient } from "../../src/channels/client.js";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import type { InteractionChange } from "../../src/channels/interaction-types.js";
import {
  SIGNATURE_HEADER,
  signWebhook,
  TIMESTAMP_HEADER,
  verifyWebhook,
  webhookBackend,
} from "../../src/channels/webhook-backend.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { type CodexApiFixture, startCodexApi } from "../support/codex-api-fixture.js";
import { eventually } from "../support/eventually.js";

const SECRET = "a-shared-secret-of-some-length";

interface Received {
  change: InteractionChange;
  headers: IncomingMessage["headers"];
  verified: boolean;
}

let fixture: CodexApiFixture | undefined;
let runtime: ChannelsServer | undefined;
let receiver: Server | undefined;
const dirs: string[] = [];

afterEach(async () => {
  await fixture?.close();
  await runtime?.close();
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  fixture = undefined;
  runtime = undefined;
  receiver = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A webhook receiver: checks signatures, answers with `statusFor(n)` for the n-th request (1-based). */
async function startReceiver(
  statusFor: (n: number) => number,
  onChange?: (received: Received) => void,
): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  receiver = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const verified = verifyWebhook(
      SECRET,
      {
        signature: request.headers[SIGNATURE_HEADER] as string | undefined,
        timestamp: request.headers[TIMESTAMP_HEADER] as string | undefined,
      },
      body,
    );
    const entry = {
      change: JSON.parse(body) as InteractionChange,
      headers: request.headers,
      verified,
    };
    received.push(entry);
    response.writeHead(statusFor(received.length)).end();
    onChange?.(entry);
  });
  await new Promise<void>((resolve) => receiver?.listen(0, "127.0.0.1", resolve));
  const { port } = receiver.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, received };
}

async function startRuntime(
  hookUrl: string,
  failures: DeliveryFailure[] = [],
): Promise<ChannelsServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "codex-harness-webhook-"));
  dirs.push(dir);
  runtime = await startChannelsServer({
    dataDir: dir,
    port: 0,
    backends: [webhookBackend({ url: hookUrl, secret: SECRET })],
    backendRetry: { initialDelayMs: 20, maxDelayMs: 50 },
    onBackendFailure: (failure) => failures.push(failure),
  });
  return runtime;
}

describe("webhook backend", () => {
  it("a signed webhook answered through the API approves a real codex command", async () => {
    let client: ChannelsClient | undefined;
    const hook = await startReceiver(
      () => 200,
      (entry) => {
        if (entry.verified && entry.change.type === "approval_request") {
          void client?.respond(entry.change.interaction.id, {
            action: "accept",
            metadata: { via: "webhook" },
          });
        }
      },
    );
    const server = await startRuntime(hook.url);
    client = new ChannelsClient({ url: server.url, token: server.token });
    fixture = await startCodexApi(
      "app-server",
      [execCommand("echo hooked > hook.txt", { escalated: true }), reply("ok")],
      {
        config: {},
        codex: { approvals: channelsApprovals({ url: server.url, token: server.token }) },
      },
    );
    await fixture.codex
      .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
      .run("go");
    assert.ok(existsSync(path.join(fixture.workdir, "hook.txt")));
    await eventually("the resolved change at the receiver", () =>
      hook.received.some((entry) => entry.change.type === "resolved"),
    );
    const [first] = hook.received;
    assert.equal(first?.verified, true);
    assert.equal(first?.headers["x-codex-harness-event"], "approval_request");
    assert.equal(first?.headers["x-codex-harness-delivery"], String(first?.change.seq));
    assert.match(String(first?.change.interaction.payload.command), /hook\.txt/);
    const types = hook.received.map((entry) => entry.change.type);
    assert.deepEqual(types.slice(0, 1), ["approval_request"]);
    assert.ok(types.includes("resolved"), types.join(", "));
  });

  it("retries 5xx with backoff, then marks the interaction delivered", async () => {
    const hook = await startReceiver((n) => (n <= 2 ? 503 : 200));
    const failures: DeliveryFailure[] = [];
    const server = await startRuntime(hook.url, failures);
    const client = new ChannelsClient({ url: server.url, token: server.token });
    const created = await client.create({
      kind: "approval_request",
      source: { name: "test" },
      title: "Run ls",
      payload: { command: "ls" },
    });
    await eventually(
      "delivered",
      async () => (await client.get(created.id)).status === "delivered",
    );
    // The creation was POSTed three times (503, 503, 200), then the `delivered` change once.
    const creations = hook.received.filter((entry) => entry.change.type === "approval_request");
    assert.equal(creations.length, 3);
    assert.ok(creations.every((entry) => entry.change.seq === creations[0]?.change.seq));
    assert.deepEqual(failures, []);
  });

  it("gives up on a 4xx at once and reports it; the interaction stays pending", async () => {
    const hook = await startReceiver(() => 400);
    const failures: DeliveryFailure[] = [];
    const server = await startRuntime(hook.url, failures);
    const client = new ChannelsClient({ url: server.url, token: server.token });
    const created = await client.create({
      kind: "user_input_request",
      source: { name: "test" },
      title: "Which?",
      payload: {},
    });
    await eventually("the reported failure", () => failures.length === 1);
    assert.equal(failures[0]?.attempts, 1);
    assert.match(
      String((failures[0]?.error as Error | undefined)?.message),
      /answered 400; not retried/,
    );
    assert.equal(hook.received.length, 1);
    assert.equal((await client.get(created.id)).status, "pending");
  });

  it("signatures fail for a wrong secret, a changed body or a stale timestamp", () => {
    const body = '{"type":"approval_request"}';
    const now = Date.now();
    const timestamp = String(Math.floor(now / 1000));
    const signature = signWebhook(SECRET, timestamp, body);
    assert.equal(verifyWebhook(SECRET, { signature, timestamp }, body, { now }), true);
    assert.equal(
      verifyWebhook("another-secret-entirely", { signature, timestamp }, body, { now }),
      false,
    );
    assert.equal(verifyWebhook(SECRET, { signature, timestamp }, `${body} `, { now }), false);
    assert.equal(
      verifyWebhook(SECRET, { signature, timestamp }, body, { now: now + 3_600_000 }),
      false,
    );
    assert.equal(verifyWebhook(SECRET, { signature: undefined, timestamp }, body, { now }), false);
    assert.throws(() => webhookBackend({ url: "http://x", secret: "short" }), /at least 16/);
  });
});
