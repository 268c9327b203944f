// Integration tests of the channels runtime's HTTP API: a real server on a free port, raw fetch.
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { ChannelsClient } from "../../src/channels/client.js";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import type {
  Interaction,
  InteractionChange,
  InteractionInput,
} from "../../src/channels/interaction-types.js";
import { interactionFor } from "../../src/channels/normalize.js";
import type { UserInputRequest } from "../../src/events/approval-types.js";
import { channelsTestDirs } from "../support/channels-dirs.js";

const { dataDir, servers } = channelsTestDirs("channels-api-test-");

async function start(dir = dataDir()): Promise<ChannelsServer> {
  const server = await startChannelsServer({ dataDir: dir, port: 0 });
  servers.push(server);
  return server;
}

/** Closes a server started with {@link start} before the test ends. */
async function stop(server: ChannelsServer): Promise<void> {
  servers.splice(servers.indexOf(server), 1);
  await server.close();
}

interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

interface ErrorBody {
  error: { code: string; message: string };
}

async function call<T = Interaction>(
  server: ChannelsServer,
  method: string,
  route: string,
  options: {
    body?: unknown;
    raw?: string;
    token?: string | null;
    headers?: Record<string, string>;
  } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? server.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | undefined = options.raw;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text === "" ? undefined : JSON.parse(text)) as T,
  };
}

function assertError(reply: Reply<unknown>, status: number, code: string, pattern?: RegExp) {
  assert.equal(reply.status, status, JSON.stringify(reply.body));
  assert.match(reply.headers.get("content-type") ?? "", /^application\/json/);
  const body = reply.body as ErrorBody;
  assert.equal(typeof body?.error, "object", JSON.stringify(reply.body));
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, "string");
  assert.ok(body.error.message.length > 0);
  if (pattern) assert.match(body.error.message, pattern);
}

const approval = (over: Partial<InteractionInput> = {}): InteractionInput => ({
  kind: "approval_request",
  source: { name: "tests" },
  codex: { threadId: "thr_a", requestId: "1" },
  title: "Run ls",
  payload: { command: "ls" },
  ...over,
});

const create = (server: ChannelsServer, input: InteractionInput = approval()) =>
  call(server, "POST", "/v1/interactions", { body: input });

async function created(server: ChannelsServer, input?: InteractionInput): Promise<Interaction> {
  const reply = await create(server, input);
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  return reply.body;
}

const respond = (server: ChannelsServer, id: string, body: unknown) =>
  call(server, "POST", `/v1/interactions/${id}/respond`, { body });

const twoQuestions: UserInputRequest = {
  kind: "userInput",
  request_id: 42,
  method: "item/tool/requestUserInput",
  thread_id: "thr_q",
  turn_id: "turn_q",
  item_id: "item_q",
  questions: [
    {
      id: "color",
      header: "Color",
      question: "Which color?",
      is_other: false,
      is_secret: false,
      options: [
        { label: "red", description: "" },
        { label: "blue", description: "" },
      ],
    },
    {
      id: "size",
      header: "Size",
      question: "Which size?",
      is_other: true,
      is_secret: false,
      options: null,
    },
  ],
  is_blocking: true,
};

describe("channels API: access", () => {
  it("refuses requests without a token, or with a wrong one (401, JSON error, www-authenticate)", async () => {
    const server = await start();
    for (const token of [null, "wrong", `${server.token}x`, ""]) {
      const reply = await call(server, "GET", "/v1/interactions", { token });
      assertError(reply, 401, "unauthorized", /Bearer/);
      assert.match(reply.headers.get("www-authenticate") ?? "", /^Bearer /, `token ${token}`);
    }
    const noScheme = await call(server, "GET", "/v1/interactions", {
      token: null,
      headers: { authorization: server.token },
    });
    assertError(noScheme, 401, "unauthorized");
    // Refused before anything is done: nothing was created.
    const refused = await call(server, "POST", "/v1/interactions", {
      token: "wrong",
      body: approval(),
    });
    assertError(refused, 401, "unauthorized");
    const listed = await call<{ interactions: Interaction[] }>(server, "GET", "/v1/interactions");
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.interactions, []);
  });

  it("answers GET /healthz without a token", async () => {
    const server = await start();
    const reply = await call(server, "GET", "/healthz", { token: null });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, { ok: true });
  });

  it("refuses foreign origins (403) and accepts its own origin and none", async () => {
    const server = await start();
    const evil = await call(server, "GET", "/v1/interactions", {
      headers: { origin: "http://evil.example" },
    });
    assertError(evil, 403, "forbidden_origin", /evil\.example/);
    const evilPost = await call(server, "POST", "/v1/interactions", {
      body: approval(),
      headers: { origin: "http://evil.example" },
    });
    assertError(evilPost, 403, "forbidden_origin");
    const evilHealth = await call(server, "GET", "/healthz", {
      token: null,
      headers: { origin: "http://evil.example" },
    });
    assertError(evilHealth, 403, "forbidden_origin");
    // Another port of the same host is another origin.
    const port = Number(new URL(server.url).port);
    const otherPort = await call(server, "GET", "/v1/interactions", {
      headers: { origin: `http://127.0.0.1:${port + 1}` },
    });
    assertError(otherPort, 403, "forbidden_origin");

    const own = await call(server, "POST", "/v1/interactions", {
      body: approval(),
      headers: { origin: server.url },
    });
    assert.equal(own.status, 201);
    const localhost = await call(server, "GET", "/v1/interactions", {
      headers: { origin: `http://localhost:${port}` },
    });
    assert.equal(localhost.status, 200);
    const none = await call<{ interactions: Interaction[] }>(server, "GET", "/v1/interactions");
    assert.equal(none.status, 200);
    assert.equal(none.body.interactions.length, 1, "only the own-origin request created one");
  });

  it("refuses a body over 256 KiB with 413", async () => {
    const server = await start();
    const big = approval({ payload: { blob: "x".repeat(300 * 1024) } });
    const reply = await create(server, big);
    assertError(reply, 413, "too_large");
    // Just under the limit is fine.
    const fits = approval({ payload: { blob: "x".repeat(250 * 1024) } });
    const ok = await create(server, fits);
    assert.equal(ok.status, 201);
  });

  it("refuses an oversized body sent without a length (chunked) with 413", async () => {
    const server = await start();
    const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 8) return controller.close();
        sent += 1;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${server.url}/v1/interactions`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    assert.equal(response.status, 413);
    const error = (await response.json()) as ErrorBody;
    assert.equal(error.error.code, "too_large");
  });

  it("refuses bad JSON and missing bodies with 400", async () => {
    const server = await start();
    assertError(
      await call(server, "POST", "/v1/interactions", { raw: "{not json" }),
      400,
      "invalid_request",
      /not JSON/,
    );
    assertError(
      await call(server, "POST", "/v1/interactions", { raw: "" }),
      400,
      "invalid_request",
      /JSON body/,
    );
    const item = await created(server);
    assertError(
      await call(server, "POST", `/v1/interactions/${item.id}/respond`, { raw: "[" }),
      400,
      "invalid_request",
    );
  });

  it("names the bad fields of a body that does not fit the schema (400)", async () => {
    const server = await start();
    assertError(
      await call(server, "POST", "/v1/interactions", { body: { ...approval(), title: "" } }),
      400,
      "invalid_request",
      /\btitle\b/,
    );
    assertError(
      await call(server, "POST", "/v1/interactions", {
        body: { ...approval(), codex: { requestId: { id: 1 } } },
      }),
      400,
      "invalid_request",
      /\bcodex\.requestId\b/,
    );
    assertError(
      await create(server, approval({ timeoutMs: "soon" as unknown as number })),
      400,
      "invalid_request",
      /\btimeoutMs\b/,
    );
    assertError(
      await create(server, approval({ kind: "question" as never })),
      400,
      "invalid_request",
      /\bkind\b/,
    );
    assertError(
      await call(server, "POST", "/v1/interactions", { body: { ...approval(), extra: 1 } }),
      400,
      "invalid_request",
      /extra/,
    );
    const item = await created(server);
    assertError(
      await respond(server, item.id, { action: "maybe" }),
      400,
      "invalid_request",
      /\baction\b/,
    );
    const listed = await call<{ interactions: Interaction[] }>(server, "GET", "/v1/interactions");
    assert.equal(listed.body.interactions.length, 1, "no invalid body created anything");
  });

  it("answers unknown paths with 404", async () => {
    const server = await start();
    assertError(await call(server, "GET", "/v1/nothing"), 404, "not_found");
    assertError(await call(server, "GET", "/elsewhere"), 404, "not_found");
  });

  it("answers a malformed percent-encoded id as a client error, not a 500", async () => {
    const server = await start();
    const reply = await call<ErrorBody>(server, "GET", "/v1/interactions/%ZZ");
    assert.ok(
      reply.status === 400 || reply.status === 404,
      `status ${reply.status}: ${JSON.stringify(reply.body)}`,
    );
    assert.notEqual(reply.body.error.code, "internal_error");
  });
});

describe("channels API: interactions", () => {
  it("creates an interaction (201) with an int_ id, pending, its actions and a deadline", async () => {
    const server = await start();
    const before = Date.now();
    const reply = await create(
      server,
      approval({ routing: { channel: "#ops" }, source: { name: "tests", host: "ci" } }),
    );
    assert.equal(reply.status, 201);
    const item = reply.body;
    assert.match(item.id, /^int_[0-9a-f-]{36}$/);
    assert.equal(item.status, "pending");
    assert.equal(item.kind, "approval_request");
    assert.equal(item.title, "Run ls");
    assert.deepEqual(item.actions, ["accept", "decline", "cancel"]);
    assert.deepEqual(item.payload, { command: "ls" });
    assert.deepEqual(item.routing, { channel: "#ops" });
    assert.deepEqual(item.source, { name: "tests", host: "ci" });
    assert.deepEqual(item.codex, { threadId: "thr_a", requestId: "1" });
    assert.equal("timeoutMs" in item, false);
    const expires = Date.parse(item.expiresAt);
    const createdAt = Date.parse(item.createdAt);
    assert.ok(createdAt >= before - 1_000 && createdAt <= Date.now() + 1_000, item.createdAt);
    assert.equal(expires - createdAt, 10 * 60_000, "the default deadline is 10 minutes");

    const timed = await created(server, approval({ timeoutMs: 90_000, actions: ["accept"] }));
    assert.equal(Date.parse(timed.expiresAt) - Date.parse(timed.createdAt), 90_000);
    assert.deepEqual(timed.actions, ["accept"]);
    assert.notEqual(timed.id, item.id);

    const fetched = await call(server, "GET", `/v1/interactions/${item.id}`);
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body, item);
  });

  it("lists with status, kind and threadId filters, and refuses unknown filters", async () => {
    const server = await start();
    const a = await created(server, approval({ codex: { threadId: "thr_a" } }));
    const b = await created(
      server,
      approval({ kind: "permissions_request", codex: { threadId: "thr_b" } }),
    );
    const c = await created(server, approval({ codex: { threadId: "thr_b" } }));
    assert.equal((await respond(server, c.id, { action: "accept" })).status, 200);

    const ids = async (query: string) => {
      const reply = await call<{ interactions: Interaction[] }>(
        server,
        "GET",
        `/v1/interactions${query}`,
      );
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      return reply.body.interactions.map((item) => item.id);
    };
    assert.deepEqual(await ids(""), [c.id, b.id, a.id]);
    assert.deepEqual(await ids("?status=pending"), [b.id, a.id]);
    assert.deepEqual(await ids("?status=resolved"), [c.id]);
    assert.deepEqual(await ids("?status=resolved,pending"), [c.id, b.id, a.id]);
    assert.deepEqual(await ids("?status=resolved&status=cancelled"), [c.id]);
    assert.deepEqual(await ids("?kind=permissions_request"), [b.id]);
    assert.deepEqual(await ids("?kind=approval_request&status=pending"), [a.id]);
    assert.deepEqual(await ids("?threadId=thr_b"), [c.id, b.id]);
    assert.deepEqual(await ids("?threadId=thr_b&status=pending"), [b.id]);
    assert.deepEqual(await ids("?threadId=thr_none"), []);
    assert.deepEqual(await ids("?limit=2"), [c.id, b.id]);

    assertError(
      await call(server, "GET", "/v1/interactions?status=bogus"),
      400,
      "invalid_request",
      /"bogus"/,
    );
    assertError(
      await call(server, "GET", "/v1/interactions?status=pending,bogus"),
      400,
      "invalid_request",
      /"bogus"/,
    );
    assertError(
      await call(server, "GET", "/v1/interactions?kind=question"),
      400,
      "invalid_request",
      /"question"/,
    );

    const client = new ChannelsClient({ url: server.url, token: server.token });
    assert.deepEqual(
      (await client.list({ status: ["pending"], threadId: "thr_a" })).map((item) => item.id),
      [a.id],
    );
  });

  it("answers 404 for an unknown id", async () => {
    const server = await start();
    assertError(
      await call(server, "GET", "/v1/interactions/int_nope"),
      404,
      "not_found",
      /int_nope/,
    );
    assertError(
      await respond(server, "int_nope", { action: "accept" }),
      404,
      "not_found",
      /int_nope/,
    );
    assertError(await call(server, "POST", "/v1/interactions/int_nope/cancel"), 404, "not_found");
    assertError(
      await call(server, "POST", "/v1/interactions/int_nope/delivered", { body: {} }),
      404,
      "not_found",
    );
  });

  it("takes the first response (200 resolved) and refuses the second (409)", async () => {
    const server = await start();
    const item = await created(server);
    const first = await respond(server, item.id, {
      action: "accept",
      values: { scope: "session" },
      metadata: { by: "alice" },
    });
    assert.equal(first.status, 200);
    assert.equal(first.body.status, "resolved");
    assert.equal(first.body.response?.action, "accept");
    assert.deepEqual(first.body.response?.values, { scope: "session" });
    assert.deepEqual(first.body.response?.metadata, { by: "alice" });
    assert.ok(!Number.isNaN(Date.parse(first.body.response?.respondedAt ?? "")));

    const second = await respond(server, item.id, { action: "decline" });
    assertError(second, 409, "conflict", /resolved/);
    const stored = await call(server, "GET", `/v1/interactions/${item.id}`);
    assert.equal(stored.body.response?.action, "accept", "the first answer stays");
    assert.deepEqual(stored.body, first.body);
  });

  it("lets exactly one of two concurrent responses win", async () => {
    const server = await start();
    for (let round = 0; round < 10; round += 1) {
      const item = await created(server);
      const replies = await Promise.all([
        respond(server, item.id, { action: "accept" }),
        respond(server, item.id, { action: "decline" }),
      ]);
      const statuses = replies.map((reply) => reply.status).sort();
      assert.deepEqual(statuses, [200, 409], `round ${round}`);
      const winner = replies.find((reply) => reply.status === 200);
      const stored = await call(server, "GET", `/v1/interactions/${item.id}`);
      assert.equal(stored.body.status, "resolved");
      assert.equal(stored.body.response?.action, winner?.body.response?.action);
    }
  });

  it("refuses (422) a response whose action the interaction does not take", async () => {
    const server = await start();
    const item = await created(server, approval({ actions: ["accept", "decline"] }));
    assertError(
      await respond(server, item.id, { action: "text", values: { text: "hi" } }),
      422,
      "invalid_response",
      /"text"/,
    );
    assertError(await respond(server, item.id, { action: "cancel" }), 422, "invalid_response");
    const stored = await call(server, "GET", `/v1/interactions/${item.id}`);
    assert.equal(stored.body.status, "pending", "a refused response changes nothing");
    assert.equal((await respond(server, item.id, { action: "decline" })).status, 200);
  });

  it("refuses (422) an answer to a codex user-input request that misses a question", async () => {
    const server = await start();
    const input = interactionFor(twoQuestions);
    const item = await created(server, input);
    assert.equal(item.kind, "user_input_request");
    assert.deepEqual(item.codex, {
      threadId: "thr_q",
      turnId: "turn_q",
      requestId: 42,
      itemId: "item_q",
    });
    assertError(
      await respond(server, item.id, { action: "text", values: { answers: { color: "red" } } }),
      422,
      "invalid_response",
      /"size"/,
    );
    assertError(
      await respond(server, item.id, { action: "text", values: { text: "red" } }),
      422,
      "invalid_response",
      /"color", "size"/,
    );
    assertError(await respond(server, item.id, { action: "accept" }), 422, "invalid_response");
    const ok = await respond(server, item.id, {
      action: "text",
      values: { answers: { color: "red", size: ["L", "XL"] } },
    });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.status, "resolved");
    assert.deepEqual(ok.body.response?.values, { answers: { color: "red", size: ["L", "XL"] } });
  });

  it("cancels an open interaction once (then 409)", async () => {
    const server = await start();
    const item = await created(server);
    const cancelled = await call(server, "POST", `/v1/interactions/${item.id}/cancel`);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.status, "cancelled");
    assert.equal(cancelled.body.end?.reason, "cancelled");
    assert.equal(cancelled.body.response, undefined);
    assertError(
      await call(server, "POST", `/v1/interactions/${item.id}/cancel`),
      409,
      "conflict",
      /cancelled/,
    );
    assertError(await respond(server, item.id, { action: "accept" }), 409, "conflict");

    const other = await created(server);
    const withReason = await call(server, "POST", `/v1/interactions/${other.id}/cancel`, {
      body: { reason: "cleared", message: "codex withdrew it" },
    });
    assert.equal(withReason.status, 200);
    assert.equal(withReason.body.end?.reason, "cleared");
    assert.equal(withReason.body.end?.message, "codex withdrew it");
    const answered = await created(server);
    await respond(server, answered.id, { action: "accept" });
    assertError(
      await call(server, "POST", `/v1/interactions/${answered.id}/cancel`),
      409,
      "conflict",
    );
  });

  it("marks an interaction delivered, and it can still be answered", async () => {
    const server = await start();
    const item = await created(server);
    const delivered = await call(server, "POST", `/v1/interactions/${item.id}/delivered`, {
      body: {},
    });
    assert.equal(delivered.status, 200);
    assert.equal(delivered.body.status, "delivered");
    const again = await call(server, "POST", `/v1/interactions/${item.id}/delivered`, { body: {} });
    assert.equal(again.status, 200);
    assert.equal(again.body.status, "delivered");
    const answered = await respond(server, item.id, { action: "decline" });
    assert.equal(answered.status, 200);
    assert.equal(answered.body.status, "resolved");
    const late = await call(server, "POST", `/v1/interactions/${item.id}/delivered`, { body: {} });
    assert.equal(late.status, 200);
    assert.equal(late.body.status, "resolved", "delivered does not reopen an answered one");
  });

  it("ends an interaction errored (timeout) after timeoutMs", async () => {
    const server = await start();
    const item = await created(server, approval({ timeoutMs: 50 }));
    const started = Date.now();
    let current = item;
    while (current.status !== "errored" && Date.now() - started < 3_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      current = (await call(server, "GET", `/v1/interactions/${item.id}`)).body;
    }
    const elapsed = Date.now() - started;
    assert.equal(current.status, "errored");
    assert.ok(elapsed < 2_000, `ended after ${elapsed} ms`);
    assert.equal(current.end?.reason, "timeout");
    assertError(await respond(server, item.id, { action: "accept" }), 409, "conflict");
  });

  it("answers a waiting GET (?waitMs) as soon as someone responds", async () => {
    const server = await start();
    const item = await created(server);
    const started = Date.now();
    const waiting = call(server, "GET", `/v1/interactions/${item.id}?waitMs=5000`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const answered = await respond(server, item.id, { action: "accept" });
    assert.equal(answered.status, 200);
    const reply = await waiting;
    const elapsed = Date.now() - started;
    assert.equal(reply.status, 200);
    assert.equal(reply.body.status, "resolved");
    assert.equal(reply.body.response?.action, "accept");
    assert.ok(elapsed >= 250, `waited for the answer (${elapsed} ms)`);
    assert.ok(elapsed < 2_000, `returned at once, after ${elapsed} ms`);
  });

  it("answers a waiting GET with the interaction as it is when waitMs passes", async () => {
    const server = await start();
    const item = await created(server);
    const started = Date.now();
    const reply = await call(server, "GET", `/v1/interactions/${item.id}?waitMs=300`);
    const elapsed = Date.now() - started;
    assert.equal(reply.status, 200);
    assert.equal(reply.body.status, "pending");
    assert.ok(elapsed >= 250 && elapsed < 3_000, `after ${elapsed} ms`);
    const client = new ChannelsClient({ url: server.url, token: server.token });
    await client.respond(item.id, { action: "decline" });
    const ended = Date.now();
    const done = await client.get(item.id, { waitMs: 5_000 });
    assert.equal(done.status, "resolved");
    assert.ok(Date.now() - ended < 1_000, "an ended interaction is returned at once");
  });
});

describe("channels API: events", () => {
  /** Resolves once the server's runtime has a new subscriber (the SSE stream is live). */
  function subscribed(server: ChannelsServer): Promise<void> {
    const runtime = server.runtime;
    const original = runtime.subscribe.bind(runtime);
    return new Promise((resolve) => {
      runtime.subscribe = (listener) => {
        const off = original(listener);
        runtime.subscribe = original;
        resolve();
        return off;
      };
    });
  }

  async function take(
    events: AsyncGenerator<InteractionChange>,
    count: number,
  ): Promise<InteractionChange[]> {
    const taken: InteractionChange[] = [];
    const deadline = AbortSignal.timeout(5_000);
    while (taken.length < count) {
      const next = await Promise.race([
        events.next(),
        new Promise<never>((_, reject) =>
          deadline.addEventListener("abort", () => reject(new Error("no event in 5 s")), {
            once: true,
          }),
        ),
      ]);
      if (next.done) break;
      taken.push(next.value);
    }
    return taken;
  }

  it("streams creations (by kind) and resolutions with increasing ids, and resumes after one", async () => {
    const server = await start();
    const client = new ChannelsClient({ url: server.url, token: server.token });
    const controller = new AbortController();
    const live = client.events({ signal: controller.signal });
    const ready = subscribed(server);
    const firstEvent = live.next();
    await ready;

    const item = await client.create(approval());
    const question = await client.create(interactionFor(twoQuestions));
    await client.respond(item.id, { action: "accept" });
    const first = await firstEvent;
    assert.equal(first.done, false);
    const rest = await take(live, 2);
    const seen = [first.value as InteractionChange, ...rest];
    assert.deepEqual(
      seen.map((change) => [change.type, change.interaction.id]),
      [
        ["approval_request", item.id],
        ["user_input_request", question.id],
        ["resolved", item.id],
      ],
    );
    assert.equal(seen[0]?.interaction.status, "pending");
    assert.equal(seen[2]?.interaction.status, "resolved");
    assert.equal(seen[2]?.interaction.response?.action, "accept");
    for (let i = 1; i < seen.length; i += 1) {
      assert.ok((seen[i]?.seq ?? 0) > (seen[i - 1]?.seq ?? 0), "ids increase");
    }
    await live.return(undefined);
    controller.abort();

    // Resuming after the first change replays only the later ones, then goes on live.
    const resumed = client.events({ since: seen[0]?.seq ?? 0 });
    const replayed = await take(resumed, 2);
    assert.deepEqual(
      replayed.map((change) => change.seq),
      [seen[1]?.seq, seen[2]?.seq],
    );
    const cancelled = await client.cancel(question.id);
    assert.equal(cancelled.status, "cancelled");
    const [after] = await take(resumed, 1);
    assert.equal(after?.type, "cancelled");
    assert.equal(after?.interaction.id, question.id);
    assert.ok((after?.seq ?? 0) > (seen[2]?.seq ?? 0));
    await resumed.return(undefined);

    // Resuming after the last change replays nothing.
    const fromLast = client.events({ since: after?.seq ?? 0 });
    const next = fromLast.next();
    const latest = await client.create(approval({ title: "later" }));
    const only = await next;
    assert.equal(only.done, false);
    assert.equal((only.value as InteractionChange).interaction.id, latest.id);
    assert.equal((only.value as InteractionChange).type, "approval_request");
    await fromLast.return(undefined);
  });

  it("resumes with Last-Event-ID like ?since=", async () => {
    const server = await start();
    const one = await created(server);
    const two = await created(server);
    const response = await fetch(`${server.url}/v1/events`, {
      headers: { authorization: `Bearer ${server.token}`, "last-event-id": "1" },
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    assert.ok(reader);
    let text = "";
    while (!text.includes(two.id)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    await reader.cancel();
    assert.ok(!text.includes(one.id), "the change before Last-Event-ID is not sent again");
    assert.match(text, /id: 2\nevent: approval_request\ndata: /);
  });

  it("replays every later change when resuming far behind (more than 1000 changes)", async () => {
    const server = await start();
    const total = 1_005;
    for (let i = 0; i < total; i += 1) {
      await server.runtime.create(approval({ title: `job ${i}` }));
    }
    const client = new ChannelsClient({ url: server.url, token: server.token });
    const resumed = client.events({ since: 0 });
    const ready = subscribed(server);
    const first = resumed.next();
    await ready;
    const live = await client.create(approval({ title: "live" }));
    const seen: InteractionChange[] = [];
    const head = await first;
    if (!head.done) seen.push(head.value);
    while (!seen.some((change) => change.interaction.id === live.id)) {
      const [next] = await take(resumed, 1);
      if (!next) break;
      seen.push(next);
    }
    await resumed.return(undefined);
    const seqs = seen.map((change) => change.seq);
    assert.equal(seen.at(-1)?.interaction.id, live.id);
    assert.equal(seqs.length, total + 1, `got ${seqs.length} changes, ending ${seqs.slice(-3)}`);
    assert.deepEqual(
      seqs,
      Array.from({ length: total + 1 }, (_, i) => i + 1),
    );
  });

  it("refuses the stream without a token", async () => {
    const server = await start();
    assertError(await call(server, "GET", "/v1/events", { token: null }), 401, "unauthorized");
  });
});

describe("channels API: data directory", () => {
  it("keeps the token (0600) and pending interactions across a restart, which can then be answered", async () => {
    const dir = dataDir();
    const first = await start(dir);
    assert.equal(first.tokenCreated, true);
    assert.equal(first.tokenFile, path.join(dir, "token"));
    const mode = statSync(path.join(dir, "token")).mode & 0o777;
    assert.equal(mode, 0o600, `token mode ${mode.toString(8)}`);
    assert.equal(readFileSync(path.join(dir, "token"), "utf8").trim(), first.token);
    assert.ok(first.token.length >= 32);

    const pending = await created(first, interactionFor(twoQuestions));
    const answered = await created(first);
    await respond(first, answered.id, { action: "accept" });
    await stop(first);

    const second = await start(dir);
    assert.equal(second.tokenCreated, false);
    assert.equal(second.token, first.token);
    assert.equal(statSync(path.join(dir, "token")).mode & 0o777, 0o600);
    const listed = await call<{ interactions: Interaction[] }>(
      second,
      "GET",
      "/v1/interactions?status=pending",
    );
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.interactions.map((item) => item.id),
      [pending.id],
    );
    assert.deepEqual(listed.body.interactions[0], pending);
    const reply = await respond(second, pending.id, {
      action: "text",
      values: { answers: { color: "blue", size: "M" } },
    });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.status, "resolved");
    assertError(await respond(second, answered.id, { action: "decline" }), 409, "conflict");

    const other = await start(dataDir());
    assert.notEqual(other.token, first.token, "each data directory has its own token");
    assertError(
      await call(other, "GET", "/v1/interactions", { token: first.token }),
      401,
      "unauthorized",
    );
  });
});
