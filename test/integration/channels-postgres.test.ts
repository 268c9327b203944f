// The PostgreSQL store on a real server: two runtime instances share one set of interactions.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { channelsApprovals } from "../../src/channels/bridge.js";
import { ChannelsClient } from "../../src/channels/client.js";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import type { InteractionChange } from "../../src/channels/interaction-types.js";
import { PostgresInteractionStore } from "../../src/channels/postgres-store.js";
import { CodexHarnessError } from "../../src/errors.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { type CodexApiFixture, startCodexApi } from "../support/codex-api-fixture.js";
import { eventually } from "../support/eventually.js";
import { postgresForFile } from "../support/postgres-file.js";

const { missing, url: postgresUrl } = postgresForFile();
let fixture: CodexApiFixture | undefined;
const servers: ChannelsServer[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  await Promise.all(servers.splice(0).map((server) => server.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A runtime instance on its own data dir (its own token) sharing the PostgreSQL store. */
async function instance(): Promise<{ server: ChannelsServer; client: ChannelsClient }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "codex-harness-pg-runtime-"));
  dirs.push(dir);
  const server = await startChannelsServer({
    dataDir: dir,
    port: 0,
    storeUrl: postgresUrl(),
  });
  servers.push(server);
  return { server, client: new ChannelsClient({ url: server.url, token: server.token }) };
}

async function nextChange(
  events: AsyncGenerator<InteractionChange>,
  type: string,
): Promise<InteractionChange> {
  for (;;) {
    const { value, done } = await events.next();
    if (done) throw new Error(`stream ended before a ${type} change`);
    if (value.type === type) return value;
  }
}

/** Two runtimes on one database, B's change stream open: its first change then comes from A via NOTIFY. */
async function pairWatchedByB() {
  const a = await instance();
  const b = await instance();
  const watching = new AbortController();
  const streamB = b.client.events({ signal: watching.signal });
  const first = streamB.next();
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { a, b, watching, streamB, first };
}

describe("PostgreSQL store (real server, LISTEN/NOTIFY)", { skip: missing }, () => {
  it("two runtimes share interactions: created on one, streamed and answered on the other", async () => {
    const { a, b, watching, streamB, first } = await pairWatchedByB();
    const created = await a.client.create({
      kind: "approval_request",
      source: { name: "test" },
      title: "Run ls",
      payload: { command: "ls" },
    });
    const seen = (await first).value as InteractionChange;
    assert.equal(seen.type, "approval_request");
    assert.equal(seen.interaction.id, created.id);
    // A long poll on A wakes when B records the answer.
    const waiting = a.client.get(created.id, { waitMs: 10_000 });
    const started = Date.now();
    await b.client.respond(created.id, { action: "accept" });
    const ended = await waiting;
    assert.equal(ended.status, "resolved");
    assert.ok(Date.now() - started < 5_000, "woken by NOTIFY, not by the wait's end");
    assert.equal((await nextChange(streamB, "resolved")).interaction.id, created.id);
    // First answer wins across instances.
    await assert.rejects(a.client.respond(created.id, { action: "decline" }), /already resolved/);
    watching.abort();
  });

  it("pages through a thread's interactions once each, across instances", async () => {
    const a = await instance();
    const b = await instance();
    const threadId = `thr_${Date.now()}_${Math.random()}`;
    const made: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      const creator = i % 2 === 0 ? a : b;
      const item = await creator.client.create({
        kind: "progress_update",
        source: { name: "test" },
        codex: { threadId },
        title: `step ${i}`,
        payload: {},
      });
      made.push(item.id);
    }
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await b.client.page({ threadId, limit: 3, ...(cursor ? { cursor } : {}) });
      sizes.push(page.interactions.length);
      seen.push(...page.interactions.map((item) => item.id));
      cursor = page.nextCursor;
    } while (cursor);
    assert.deepEqual(sizes, [3, 3, 1]);
    assert.deepEqual([...seen].sort(), [...made].sort());
    assert.equal(seen[0], made.at(-1), "newest first");
  });

  it("keeps codex's numeric requestId a number, read on another instance and from SSE", async () => {
    const { a, b, watching, first } = await pairWatchedByB();
    const created = await a.client.create({
      kind: "approval_request",
      source: { name: "test" },
      codex: { threadId: "thr_numeric", requestId: 42 },
      payload: { command: "make" },
    });
    const streamed = (await first).value as InteractionChange;
    assert.equal(streamed.interaction.codex?.requestId, 42, "the NOTIFY'd change");
    const read = await b.client.get(created.id);
    assert.equal(typeof read.codex?.requestId, "number", "read back from PostgreSQL");
    assert.equal(read.codex?.requestId, 42);
    assert.equal(read.title, "Run make", "a title derived from the payload");
    const answered = await b.client.respond(created.id, { action: "accept" });
    assert.equal(answered.codex?.requestId, 42, "kept through an update");
    watching.abort();
  });

  it("racing answers on two instances: exactly one wins", async () => {
    const a = await instance();
    const b = await instance();
    for (let round = 0; round < 10; round++) {
      const created = await a.client.create({
        kind: "approval_request",
        source: { name: "test" },
        title: `race ${round}`,
        payload: {},
      });
      const results = await Promise.allSettled([
        a.client.respond(created.id, { action: "accept" }),
        b.client.respond(created.id, { action: "decline" }),
      ]);
      assert.equal(results.filter((result) => result.status === "fulfilled").length, 1);
    }
  });

  it("a real codex command approval bridged through one runtime is answered on another", async () => {
    const a = await instance();
    const b = await instance();
    fixture = await startCodexApi(
      "app-server",
      [execCommand("echo shared > shared.txt", { escalated: true }), reply("ok")],
      {
        config: {},
        codex: { approvals: channelsApprovals({ url: a.server.url, token: a.server.token }) },
      },
    );
    const turn = fixture.codex
      .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
      .run("go");
    const pending = await eventually("the interaction on the other runtime", async () => {
      // The store is shared by the whole file: earlier tests' interactions are there too.
      const found = (await b.client.list({ status: ["pending", "delivered"] })).filter(
        (interaction) => interaction.title.includes("shared.txt"),
      );
      return found.length > 0 ? found : undefined;
    });
    const [asked] = pending;
    assert.ok(asked, "the interaction is visible on the other runtime");
    await b.client.respond(asked.id, { action: "accept" });
    await turn;
    assert.ok(existsSync(path.join(fixture.workdir, "shared.txt")));
  });

  it("a bad URL or a server that is down gives one clear error", async () => {
    await assert.rejects(
      PostgresInteractionStore.open("postgres://postgres:secret@127.0.0.1:1/none"),
      (error: unknown) =>
        error instanceof CodexHarnessError &&
        error.code === "store_failed" &&
        /Cannot use PostgreSQL at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none/.test(
          error.message,
        ),
    );
    const dir = mkdtempSync(path.join(os.tmpdir(), "codex-harness-pg-runtime-"));
    dirs.push(dir);
    await assert.rejects(
      startChannelsServer({ dataDir: dir, port: 0, storeUrl: "mysql://x" }),
      /Unknown store "mysql:\/\/x"/,
    );
  });
});
