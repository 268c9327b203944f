// The channels runtime's HTTP API under hostile input: deep bodies, foreign Host names, paging
// past many newer interactions, and private files in a data directory that already exists.
import assert from "node:assert/strict";
import { chmodSync, statSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import path from "node:path";
import { describe, it } from "node:test";
import { ChannelsClient } from "../../src/channels/client.js";
import { MAX_BODY_DEPTH } from "../../src/channels/http-body.js";
import {
  type ChannelsServer,
  type ChannelsServerOptions,
  startChannelsServer,
} from "../../src/channels/http-server.js";
import type { InteractionInput } from "../../src/channels/interaction-types.js";
import { CodexHarnessError } from "../../src/errors.js";
import { nestsDeeperThan } from "../../src/protocol/json-depth.js";
import { channelsTestDirs } from "../support/channels-dirs.js";

const { dataDir, servers } = channelsTestDirs("channels-hardening-");

async function start(options: Partial<ChannelsServerOptions> = {}): Promise<ChannelsServer> {
  const server = await startChannelsServer({
    port: 0,
    ...options,
    dataDir: options.dataDir ?? dataDir(),
  });
  servers.push(server);
  return server;
}

const approval = (over: Partial<InteractionInput> = {}): InteractionInput => ({
  kind: "approval_request",
  source: { name: "tests" },
  title: "Run ls",
  payload: { command: "ls" },
  ...over,
});

function post(server: ChannelsServer, route: string, body: string): Promise<Response> {
  return fetch(`${server.url}${route}`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
    body,
  });
}

const nested = (levels: number, inner = "1") => "[".repeat(levels) + inner + "]".repeat(levels);

describe("channels API: nesting depth", () => {
  it("counts the nesting of objects and arrays only, without recursion", () => {
    const parsed = (text: string) => JSON.parse(text) as unknown;
    assert.equal(nestsDeeperThan(parsed('{"a":[1,{"b":"[[[{{{"}]}'), 2), true);
    assert.equal(nestsDeeperThan(parsed('{"a":[1,{"b":"[[[{{{"}]}'), 3), false);
    assert.equal(nestsDeeperThan(parsed('"\\"[[["'), 0), false);
    assert.equal(nestsDeeperThan(parsed(nested(100_000)), 99_999), true);
    assert.equal(nestsDeeperThan(parsed(nested(100_000)), 100_000), false);
  });

  it("refuses a body nested 10,000 levels with 400 naming the limit, never a 500", async () => {
    const server = await start();
    const deep = JSON.stringify(approval()).replace(
      '"payload":{"command":"ls"}',
      `"payload":{"deep":${nested(10_000)}}`,
    );
    assert.ok(deep.length < 256 * 1024);
    for (const route of ["/v1/interactions", "/v1/interactions/int_x/respond"]) {
      const reply = await post(server, route, deep);
      assert.equal(reply.status, 400, route);
      const body = (await reply.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, "invalid_request");
      assert.match(body.error.message, new RegExp(`nested more than ${MAX_BODY_DEPTH} levels`));
    }
    // The runtime is fine afterwards, and a body just within the limit is taken.
    const fits = JSON.stringify(approval()).replace(
      '"payload":{"command":"ls"}',
      `"payload":{"deep":${nested(MAX_BODY_DEPTH - 2)}}`,
    );
    assert.equal((await post(server, "/v1/interactions", fits)).status, 201);
    const over = JSON.stringify(approval()).replace(
      '"payload":{"command":"ls"}',
      `"payload":{"deep":${nested(MAX_BODY_DEPTH)}}`,
    );
    assert.equal((await post(server, "/v1/interactions", over)).status, 400);
  });
});

describe("channels data directory: private files", () => {
  it("makes an existing 0755 data dir 0700 and interactions.db, -wal and -shm 0600", async () => {
    const dir = dataDir();
    chmodSync(dir, 0o755);
    // Left behind 0644 by an older version.
    for (const name of ["interactions.db-wal", "interactions.db-shm"]) {
      writeFileSync(path.join(dir, name), "", { mode: 0o644 });
    }
    const server = await start({ dataDir: dir });
    await server.runtime.create(approval());
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    for (const name of ["token", "interactions.db", "interactions.db-wal", "interactions.db-shm"]) {
      const mode = statSync(path.join(dir, name)).mode & 0o777;
      assert.equal(mode, 0o600, `${name}: ${mode.toString(8)}`);
    }
  });

  it("refuses to start on a token file others can read (unsafe_token_file)", async () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, "token"), `${"t".repeat(43)}\n`, { mode: 0o644 });
    chmodSync(path.join(dir, "token"), 0o644);
    await assert.rejects(start({ dataDir: dir }), (error: unknown) => {
      assert.ok(error instanceof CodexHarnessError);
      assert.equal(error.code, "unsafe_token_file");
      return true;
    });
  });
});

/** A raw HTTP/1.1 GET with the given Host header (fetch would not let us forge it). */
function getWithHost(
  server: ChannelsServer,
  route: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        hostname,
        port,
        path: route,
        method: "GET",
        headers: { host, authorization: `Bearer ${server.token}`, ...headers },
        signal: AbortSignal.timeout(5_000),
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on("error", reject);
    request.end();
  });
}

describe("channels runtime: own Host names only (DNS rebinding)", () => {
  it("serves the inbox and the API to loopback names, 403 forbidden_host to any other", async () => {
    const server = await start();
    const port = new URL(server.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, "[::1]"]) {
      assert.equal((await getWithHost(server, "/", host)).status, 200, host);
      assert.equal((await getWithHost(server, "/v1/interactions", host)).status, 200, host);
    }
    for (const host of [
      `evil.example:${port}`,
      "evil.example",
      "127.0.0.1.evil.example",
      "localhost.evil.example",
    ]) {
      for (const route of ["/", "/inbox.js", "/v1/interactions"]) {
        const reply = await getWithHost(server, route, host);
        assert.equal(reply.status, 403, `${host} ${route}`);
        const body = JSON.parse(reply.body) as { error: { code: string; message: string } };
        assert.equal(body.error.code, "forbidden_host");
        assert.match(body.error.message, /allowed-host/);
      }
    }
    // Health checks answer whatever the name.
    assert.equal((await getWithHost(server, "/healthz", "probe.internal")).status, 200);
  });

  it("answers to configured names instead, and takes page origins under them", async () => {
    const server = await start({ allowedHosts: ["inbox.example"] });
    const port = new URL(server.url).port;
    assert.equal((await getWithHost(server, "/", `inbox.example:${port}`)).status, 200);
    assert.equal((await getWithHost(server, "/", "inbox.example")).status, 200);
    assert.equal((await getWithHost(server, "/", `localhost:${port}`)).status, 403);
    // The listening address stays one of its names, so its printed URL works.
    assert.equal((await getWithHost(server, "/", `127.0.0.1:${port}`)).status, 200);
    const proxied = await getWithHost(server, "/v1/interactions", "inbox.example", {
      origin: "https://inbox.example",
    });
    assert.equal(proxied.status, 200);
    const foreign = await getWithHost(server, "/v1/interactions", "inbox.example", {
      origin: "https://evil.example",
    });
    assert.equal(foreign.status, 403);
    assert.match(foreign.body, /forbidden_origin/);
  });
});

describe("channels API: paging", () => {
  it("pages through every interaction once, newest first, however many are newer", async () => {
    const server = await start();
    const waiting = await server.runtime.create(approval({ title: "the old pending one" }));
    // 250 newer progress updates, many created in the same millisecond.
    const newer: string[] = [];
    for (let i = 0; i < 250; i += 1) {
      const update = await server.runtime.create({
        kind: "progress_update",
        source: { name: "tests" },
        title: `step ${i}`,
        payload: { message: `step ${i}` },
      });
      newer.push(update.id);
    }
    const client = new ChannelsClient({ url: server.url, token: server.token });
    assert.equal((await client.list({ limit: 200 })).length, 200);
    const seen: string[] = [];
    const pages: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.page({ limit: 100, ...(cursor ? { cursor } : {}) });
      pages.push(page.interactions.length);
      seen.push(...page.interactions.map((item) => item.id));
      cursor = page.nextCursor;
    } while (cursor);
    assert.deepEqual(pages, [100, 100, 51]);
    assert.deepEqual(seen, [...newer].reverse().concat(waiting.id), "newest first, each once");
    // Asked for by status and kind, the waiting approval is the whole first page.
    const open = await client.page({
      status: ["pending", "delivered"],
      kind: ["approval_request"],
      limit: 10,
    });
    assert.deepEqual(
      open.interactions.map((item) => item.id),
      [waiting.id],
    );
    assert.equal(open.nextCursor, undefined);
    // A page exactly filling the limit has no next cursor when nothing follows.
    const exact = await client.page({ kind: ["approval_request"], limit: 1 });
    assert.equal(exact.interactions.length, 1);
    assert.equal(exact.nextCursor, undefined);
  });

  it("refuses an unknown cursor with 400", async () => {
    const server = await start();
    const reply = await fetch(`${server.url}/v1/interactions?cursor=int_nope`, {
      headers: { authorization: `Bearer ${server.token}` },
    });
    assert.equal(reply.status, 400);
    const body = (await reply.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, "invalid_request");
    assert.match(body.error.message, /cursor/);
  });
});
