// What a long-running `serve` keeps on the dispatcher's lifetime signal: nothing per API call. Each
// chat backend makes 1,000 calls against its fake (the webhook backend 1,000 deliveries, the
// ChannelsClient 1,000 calls on one caller's signal), and the abort listeners on the signal it was
// given (and Node's references from `AbortSignal.any` composites) stay where they were.
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { createServer, type Server } from "node:http";
import { describe, it, type TestContext } from "node:test";
import type { BackendContext } from "../../src/channels/backends.js";
import { parsePeople } from "../../src/channels/chat/people.js";
import { ChannelsClient } from "../../src/channels/client.js";
import { discordBackend } from "../../src/channels/discord/backend.js";
import type { ModuleImporter } from "../../src/channels/drivers.js";
import type { Interaction, InteractionChange } from "../../src/channels/interaction-types.js";
import { withRequestSignal } from "../../src/channels/request-signal.js";
import { slackBackend } from "../../src/channels/slack/backend.js";
import { telegramBackend } from "../../src/channels/telegram/backend.js";
import { webhookBackend } from "../../src/channels/webhook-backend.js";
import { interactionBase } from "../support/chat-fixtures.js";
import { eventually } from "../support/eventually.js";
import { applicationKeys, FakeDiscord } from "../support/fake-discord.js";
import { closeServer, listenOnLoopback, readBody, sendJson } from "../support/fake-http.js";
import { FakeSlack } from "../support/fake-slack.js";
import { startFakeTelegram } from "../support/fake-telegram.js";

/** API calls per backend: half posts of new interactions, half edits when they end. */
const CALLS = 1_000;
const DISCORD_TOKEN = "MTIwMDAwMDAwMDAwMDAwMDAwMQ.Gx1234.secret-discord-bot-token-value";
const TELEGRAM_TOKEN = "987654321:AAE-fake-token-for-the-tests_abcdefgh";
const TELEGRAM_CHAT = -1001234567890;

/**
 * What hangs on `signal` per request: its abort listeners, plus the composites `AbortSignal.any`
 * made from it (Node 20 keeps a reference to each in the source, found by the symbol's name, until
 * the source aborts; 0 where Node keeps none).
 */
function attached(signal: AbortSignal): { listeners: number; dependants: number } {
  const key = Object.getOwnPropertySymbols(signal).find(
    (symbol) => symbol.description === "kDependantSignals",
  );
  const dependants = key ? (signal as unknown as Record<symbol, Set<unknown>>)[key] : undefined;
  return {
    listeners: getEventListeners(signal, "abort").length,
    dependants: dependants?.size ?? 0,
  };
}

/** A context as the dispatcher gives it: its lifetime signal, no answers expected. */
function contextOf(signal: AbortSignal): BackendContext {
  return {
    signal,
    respond: () => Promise.reject(new Error("no answers in this test")),
    get: () => Promise.reject(new Error("no reads in this test")),
    linkedPerson: async () => undefined,
  };
}

/** The two changes of interaction `n` that make a call each: it is new, then it was accepted. */
function changesOf(n: number): [InteractionChange, InteractionChange] {
  const open = {
    ...interactionBase,
    id: `int_${String(n).padStart(8, "0")}-4c1d-4a55-9a43-6f1f3c9b2a10`,
    kind: "approval_request",
    title: `Run job ${n}`,
    payload: { command: `make job-${n}`, cwd: "/work/app" },
    actions: ["accept", "decline", "cancel"],
  } as unknown as Interaction;
  const resolved = {
    ...open,
    status: "resolved",
    response: {
      action: "accept",
      values: {},
      metadata: { answeredBy: "alice" },
      respondedAt: interactionBase.updatedAt,
    },
  } as Interaction;
  return [
    { seq: 2 * n + 1, type: "approval_request", interaction: open },
    { seq: 2 * n + 2, type: "resolved", interaction: resolved },
  ];
}

/**
 * Delivers `CALLS` changes with a context on a fresh lifetime signal, as the dispatcher does; says
 * what was attached to the signal before and after.
 */
async function deliverMany(
  t: TestContext,
  deliver: (change: InteractionChange, context: BackendContext) => Promise<void>,
) {
  const lifetime = new AbortController();
  const context = contextOf(lifetime.signal);
  const before = attached(lifetime.signal);
  for (let n = 0; n < CALLS / 2; n++) {
    for (const change of changesOf(n)) await deliver(change, context);
  }
  const after = attached(lifetime.signal);
  t.diagnostic(
    `after ${CALLS} calls: ${after.listeners} abort listeners (${before.listeners} before), ${after.dependants} AbortSignal.any references (${before.dependants} before)`,
  );
  return { before, after };
}

/**
 * discord.js whose REST client allows more than its default 50 requests a second (a limit it keeps
 * on its own, and rejects beyond here, as the backend asks): 1,000 calls without waiting 20 s.
 */
const withoutGlobalLimit: ModuleImporter = async (specifier) => {
  const sdk = (await import(specifier)) as typeof import("discord.js");
  class REST extends sdk.REST {
    constructor(options: ConstructorParameters<typeof sdk.REST>[0]) {
      super({ ...options, globalRequestsPerSecond: 1_000_000 });
    }
  }
  return { ...sdk, REST };
};

describe("the lifetime signal over 1,000 API calls", () => {
  it("Discord: no listener left per call", async (t) => {
    const fake = await FakeDiscord.start(DISCORD_TOKEN);
    const backend = discordBackend({
      token: DISCORD_TOKEN,
      applicationPublicKey: applicationKeys().publicKeyHex,
      channelId: "1000000000000000042",
      people: parsePeople("80351110224678912=alice", "test"),
      apiUrl: fake.apiUrl,
      log: () => undefined,
      importer: withoutGlobalLimit,
    });
    try {
      const { before, after } = await deliverMany(t, (change, context) =>
        backend.deliver(change, context),
      );
      assert.equal(fake.callsOf("POST").length + fake.callsOf("PATCH").length, CALLS);
      assert.deepEqual(after, before);
    } finally {
      await backend.close?.();
      await fake.close();
    }
  });

  it("Slack: no listener left per call", async (t) => {
    const fake = await FakeSlack.start({
      botToken: "xoxb-1111-2222-secretbottoken",
      appToken: "xapp-1-A0FAKE-3333-secretapptoken",
    });
    const backend = slackBackend({
      token: fake.botToken,
      channel: "C0CODEX",
      people: parsePeople("U0ALICE=alice", "test"),
      signingSecret: "8f742231b10e8888abcd99yyyzzz85a5",
      apiUrl: fake.apiUrl,
      log: () => undefined,
    });
    try {
      const { before, after } = await deliverMany(t, (change, context) =>
        backend.deliver(change, context),
      );
      assert.equal(
        fake.callsOf("chat.postMessage").length + fake.callsOf("chat.update").length,
        CALLS,
      );
      assert.deepEqual(after, before);
    } finally {
      await backend.close?.();
      await fake.close();
    }
  });

  it("Telegram: no listener and no AbortSignal.any reference left per call", async (t) => {
    const fake = await startFakeTelegram(TELEGRAM_TOKEN, [TELEGRAM_CHAT]);
    const backend = await telegramBackend({
      token: TELEGRAM_TOKEN,
      chatId: TELEGRAM_CHAT,
      people: parsePeople("1111=alice", "test"),
      apiRoot: fake.url,
      pollTimeoutSeconds: 1,
      onError: () => undefined,
    });
    try {
      const { before, after } = await deliverMany(t, (change, context) =>
        backend.deliver(change, context),
      );
      const sent = fake.calls.filter(
        (call) => call.method === "sendMessage" || call.method === "editMessageText",
      );
      assert.equal(sent.length, CALLS);
      assert.deepEqual(after, before);
    } finally {
      await backend.close?.();
      await fake.close();
    }
  });
});

/** A loopback server answering every request with `answer`'s JSON; `requests` counts them. */
async function answeringServer(answer: (method: string, body: string) => unknown): Promise<{
  url: string;
  requests: () => number;
  close(): Promise<void>;
}> {
  let requests = 0;
  const server: Server = createServer(async (request, response) => {
    requests++;
    const body = await readBody(request);
    sendJson(response, 200, answer(request.method ?? "GET", body));
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () => closeServer(server),
  };
}

describe("the lifetime signal over 1,000 deliveries or client calls", () => {
  it("webhook: no listener and no AbortSignal.any reference left per delivery", async (t) => {
    const receiver = await answeringServer(() => ({ ok: true }));
    const backend = webhookBackend({
      url: `${receiver.url}/hooks/codex`,
      secret: "a-shared-secret-of-enough-length",
      timeoutMs: 60_000,
    });
    try {
      const { before, after } = await deliverMany(t, (change, context) =>
        backend.deliver(change, context),
      );
      assert.equal(receiver.requests(), CALLS);
      assert.deepEqual(after, before);
    } finally {
      await backend.close?.();
      await receiver.close();
    }
  });

  it("ChannelsClient: no listener and no AbortSignal.any reference left per call", async (t) => {
    const [open] = changesOf(0);
    const runtime = await answeringServer(() => open.interaction);
    const client = new ChannelsClient({ url: runtime.url, token: "a-runtime-token" });
    const caller = new AbortController();
    try {
      const before = attached(caller.signal);
      for (let n = 0; n < CALLS / 2; n++) {
        const created = await client.create(
          { kind: "approval_request", title: `Run job ${n}`, payload: {} } as never,
          caller.signal,
        );
        assert.equal(created.id, open.interaction.id);
        await client.get(created.id, { signal: caller.signal });
      }
      const after = attached(caller.signal);
      t.diagnostic(
        `after ${CALLS} calls: ${after.listeners} abort listeners (${before.listeners} before), ${after.dependants} AbortSignal.any references (${before.dependants} before)`,
      );
      assert.equal(runtime.requests(), CALLS);
      assert.deepEqual(after, before);
    } finally {
      await runtime.close();
    }
  });
});

/** A server that takes requests and never answers them; `held` counts the requests it holds. */
async function silentServer(): Promise<{
  url: string;
  held: () => number;
  close(): Promise<void>;
}> {
  const server = createServer();
  let held = 0;
  server.on("request", () => held++);
  const port = await listenOnLoopback(server);
  return { url: `http://127.0.0.1:${port}`, held: () => held, close: () => closeServer(server) };
}

describe("a call in flight still ends when the lifetime signal aborts", () => {
  it("Discord", async () => {
    const silent = await silentServer();
    const backend = discordBackend({
      token: DISCORD_TOKEN,
      applicationPublicKey: applicationKeys().publicKeyHex,
      channelId: "1000000000000000042",
      people: parsePeople("80351110224678912=alice", "test"),
      apiUrl: `${silent.url}/api`,
      timeoutMs: 60_000,
      log: () => undefined,
    });
    const lifetime = new AbortController();
    try {
      const delivery = backend.deliver(changesOf(0)[0], contextOf(lifetime.signal));
      await eventually("the call to reach the server", () => silent.held() === 1 || undefined);
      const startedAt = Date.now();
      lifetime.abort();
      await assert.rejects(delivery, /Discord did not answer POST \/channels\/\{id\}\/messages/);
      assert.ok(Date.now() - startedAt < 5_000);
      assert.equal(getEventListeners(lifetime.signal, "abort").length, 0);
    } finally {
      await backend.close?.();
      await silent.close();
    }
  });

  it("Telegram", async () => {
    const silent = await silentServer();
    const backend = await telegramBackend({
      token: TELEGRAM_TOKEN,
      chatId: TELEGRAM_CHAT,
      people: parsePeople("1111=alice", "test"),
      apiRoot: silent.url,
      timeoutMs: 60_000,
      onError: () => undefined,
    });
    const lifetime = new AbortController();
    try {
      const delivery = backend.deliver(changesOf(0)[0], contextOf(lifetime.signal));
      // The poller's deleteWebhook and the sendMessage.
      await eventually("the call to reach the server", () => silent.held() === 2 || undefined);
      const startedAt = Date.now();
      lifetime.abort();
      await assert.rejects(delivery, /Telegram sendMessage failed/);
      assert.ok(Date.now() - startedAt < 5_000);
      assert.equal(getEventListeners(lifetime.signal, "abort").length, 0);
    } finally {
      await backend.close?.();
      await silent.close();
    }
  });
});

describe("a webhook delivery or client call in flight still ends", () => {
  it("webhook: when the lifetime signal aborts", async () => {
    const silent = await silentServer();
    const backend = webhookBackend({
      url: `${silent.url}/hooks/codex`,
      secret: "a-shared-secret-of-enough-length",
      timeoutMs: 60_000,
    });
    const lifetime = new AbortController();
    try {
      const delivery = backend.deliver(changesOf(0)[0], contextOf(lifetime.signal));
      await eventually("the delivery to reach the server", () => silent.held() === 1 || undefined);
      const startedAt = Date.now();
      lifetime.abort();
      await assert.rejects(delivery, /POST http:\/\/127\.0\.0\.1:\d+\/hooks\/codex failed/);
      assert.ok(Date.now() - startedAt < 5_000);
      assert.deepEqual(attached(lifetime.signal), { listeners: 0, dependants: 0 });
    } finally {
      await silent.close();
    }
  });

  it("ChannelsClient: when the caller's signal aborts (with its reason), or at its timeout", async () => {
    const silent = await silentServer();
    const caller = new AbortController();
    try {
      const patient = new ChannelsClient({ url: silent.url, token: "a-runtime-token" });
      const call = patient.get("int_1", { signal: caller.signal });
      await eventually("the call to reach the server", () => silent.held() === 1 || undefined);
      const reason = new Error("the caller gave up");
      caller.abort(reason);
      await assert.rejects(call, (error) => error === reason);
      assert.deepEqual(attached(caller.signal), { listeners: 0, dependants: 0 });

      const hasty = new ChannelsClient({
        url: silent.url,
        token: "a-runtime-token",
        timeoutMs: 50,
      });
      const lifetime = new AbortController();
      await assert.rejects(hasty.get("int_1", { signal: lifetime.signal }), {
        name: "TimeoutError",
      });
      assert.deepEqual(attached(lifetime.signal), { listeners: 0, dependants: 0 });
    } finally {
      await silent.close();
    }
  });
});

describe("withRequestSignal", () => {
  it("aborts the request's signal with the reason of the signal it is tied to, then unties", async () => {
    const lifetime = new AbortController();
    const reason = new Error("runtime closing");
    const seen = await withRequestSignal([undefined, lifetime.signal], async (signal) => {
      assert.equal(getEventListeners(lifetime.signal, "abort").length, 1);
      lifetime.abort(reason);
      return signal;
    });
    assert.equal(seen.aborted, true);
    assert.equal(seen.reason, reason);
  });

  it("removes its listeners when the request fails, and adds nothing over many requests", async () => {
    const lifetime = new AbortController();
    const closing = new AbortController();
    for (let n = 0; n < CALLS; n++) {
      await assert.rejects(
        withRequestSignal([lifetime.signal, closing.signal], async () => {
          throw new Error("refused");
        }),
        /refused/,
      );
      await withRequestSignal([lifetime.signal, closing.signal], async () => n, 60_000);
    }
    assert.deepEqual(attached(lifetime.signal), { listeners: 0, dependants: 0 });
    assert.deepEqual(attached(closing.signal), { listeners: 0, dependants: 0 });
  });

  it("a signal already aborted aborts the request's at once", async () => {
    const reason = new Error("closed");
    const aborted = await withRequestSignal([AbortSignal.abort(reason)], async (signal) => signal);
    assert.equal(aborted.reason, reason);
  });

  it("times out with a TimeoutError; a request done in time is never aborted later", async () => {
    const late = await withRequestSignal(
      [],
      (signal) =>
        new Promise<AbortSignal>((resolve) =>
          signal.addEventListener("abort", () => resolve(signal), { once: true }),
        ),
      20,
    );
    assert.equal((late.reason as DOMException).name, "TimeoutError");
    const quick = await withRequestSignal([], async (signal) => signal, 20);
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(quick.aborted, false);
  });
});
