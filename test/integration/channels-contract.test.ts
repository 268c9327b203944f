// The channels contract over HTTP: codex's numeric request ids come back as numbers (through the
// SQLite store, a restart, the client and the bridge), a title may be left out, bad ids get a 400.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { channelsApprovals } from "../../src/channels/bridge.js";
import { ChannelsClient } from "../../src/channels/client.js";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import type { Interaction } from "../../src/channels/interaction-types.js";
import type { CommandExecutionRequest } from "../../src/events/approval-types.js";
import { channelsTestDirs } from "../support/channels-dirs.js";
import { eventually } from "../support/eventually.js";
import { repoRoot } from "../support/paths.js";

const { dataDir, servers } = channelsTestDirs("channels-contract-test-");

async function start(dir = dataDir()): Promise<ChannelsServer> {
  const server = await startChannelsServer({ dataDir: dir, port: 0, inbox: false });
  servers.push(server);
  return server;
}

async function call(
  server: ChannelsServer,
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${server.token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const command = (requestId: unknown) => ({
  kind: "approval_request",
  source: { name: "tests" },
  codex: { threadId: "thr_1", requestId },
  payload: { command: "npm test", cwd: "/work" },
});

const requestIdOf = (interaction: unknown) =>
  (interaction as Interaction).codex?.requestId as unknown;

describe("channels contract over HTTP", () => {
  it("keeps a numeric requestId a number: POST, GET, list, the client, after a restart", async () => {
    const dir = dataDir();
    const server = await start(dir);
    const posted = await call(server, "POST", "/v1/interactions", command(42));
    assert.equal(posted.status, 201, JSON.stringify(posted.body));
    assert.equal(requestIdOf(posted.body), 42);
    const id = posted.body.id as string;
    const got = await call(server, "GET", `/v1/interactions/${id}`);
    assert.equal(typeof requestIdOf(got.body), "number");
    assert.equal(requestIdOf(got.body), 42);
    const client = new ChannelsClient({ url: server.url, token: server.token });
    const [listed] = await client.list();
    assert.equal(requestIdOf(listed), 42);
    const stringId = await client.create({
      kind: "approval_request",
      source: { name: "tests" },
      codex: { requestId: "42" },
      payload: { command: "npm test" },
    });
    assert.equal(requestIdOf(await client.get(stringId.id)), "42", "a string stays a string");

    servers.splice(servers.indexOf(server), 1);
    await server.close();
    const again = await start(dir);
    const reread = new ChannelsClient({ url: again.url, token: again.token });
    const stored = await reread.get(id);
    assert.equal(typeof requestIdOf(stored), "number", "read back from SQLite");
    assert.equal(requestIdOf(stored), 42);
  });

  it("derives the title when the body has none", async () => {
    const server = await start();
    const derived = async (body: Record<string, unknown>) => {
      const reply = await call(server, "POST", "/v1/interactions", body);
      assert.equal(reply.status, 201, JSON.stringify(reply.body));
      return reply.body.title;
    };
    assert.equal(await derived(command(1)), "Run npm test");
    assert.equal(
      await derived({
        kind: "user_input_request",
        source: { name: "tests" },
        payload: { questions: [{ id: "q", question: "Ship it?" }] },
      }),
      "Ship it?",
    );
    assert.equal(
      await derived({ kind: "progress_update", source: { name: "tests" }, payload: {} }),
      "Progress update",
    );
    assert.equal(await derived({ ...command(1), title: "Given" }), "Given", "a given title wins");
  });

  it("takes the channels guide's example body as documented", async () => {
    const guide = readFileSync(path.join(repoRoot, "docs/channels.md"), "utf8");
    const section = guide.slice(guide.indexOf("Creating one from your own program"));
    const example = /```json\n([\s\S]*?)```/.exec(section)?.[1];
    assert.ok(example, "docs/channels.md shows a POST body");
    const server = await start();
    const reply = await call(server, "POST", "/v1/interactions", JSON.parse(example));
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    assert.equal(reply.body.title, "Run npm publish");
    assert.equal(reply.body.status, "pending");
    assert.equal(requestIdOf(reply.body), 7);
    assert.deepEqual(reply.body.actions, ["accept", "decline", "cancel"]);
  });

  it("refuses a requestId that is not codex's with one 400 naming the field", async () => {
    const server = await start();
    for (const bad of [{ id: 1 }, true, "x".repeat(201), 1.5, [1]]) {
      const reply = await call(server, "POST", "/v1/interactions", command(bad));
      assert.equal(reply.status, 400, JSON.stringify(bad));
      const error = reply.body.error as { code: string; message: string };
      assert.equal(error.code, "invalid_request");
      assert.match(error.message, /^Invalid request body: codex\.requestId: [^;]+\.$/);
    }
    const listed = await call(server, "GET", "/v1/interactions");
    assert.deepEqual(listed.body.interactions, [], "nothing was created");
  });

  it("the bridge sends codex's numeric id as a number and answers with the response", async () => {
    const server = await start();
    const approvals = channelsApprovals({
      url: server.url,
      token: server.token,
      timeoutMs: 20_000,
    });
    const request: CommandExecutionRequest = {
      kind: "commandExecution",
      request_id: 7,
      method: "item/commandExecution/requestApproval",
      thread_id: "thr_b",
      turn_id: "turn_b",
      item_id: "item_b",
      approval_kind: "command",
      command: "/bin/bash -lc 'make'",
      script: "make",
      cwd: "/work",
      reason: null,
      command_actions: [],
      proposed_execpolicy_amendment: null,
      proposed_network_policy_amendments: [],
      network_approval_context: null,
    };
    const decision = approvals.commandExecution?.(request, {
      signal: new AbortController().signal,
    });
    const asked = await eventually("the bridged interaction", async () => {
      const found = await server.runtime.list({ status: ["pending", "delivered"] });
      return found[0];
    });
    assert.equal(requestIdOf(asked), 7);
    assert.equal(asked.title, "Run /bin/bash -lc 'make'");
    await server.runtime.respond(asked.id, { action: "accept" });
    assert.equal(await decision, "accept");
  });
});
