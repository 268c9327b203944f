import assert from "node:assert/strict";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { AppServerExitedError } from "../../src/app-server/process-errors.js";
import { Codex } from "../../src/codex.js";
import type { CodexHarnessError } from "../../src/errors.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import { OverloadedError } from "../../src/rpc/errors.js";
import type { CodexOptions } from "../../src/turns/options.js";
import { collect } from "../support/codex-api-fixture.js";
import { repoRoot } from "../support/paths.js";

const FAKE = path.join(repoRoot, "test/fixtures/fake-app-server.mjs");
let codex: Codex<"extended"> | undefined;

afterEach(async () => {
  await codex?.close();
  codex = undefined;
});

/** A Codex on the fake app-server; the tests read deltas and notices (`events: "extended"`). */
function fake(scenario: string, options: CodexOptions<"extended"> = {}): Codex<"extended"> {
  codex = new Codex({
    events: "extended",
    codexPathOverride: FAKE,
    env: { ...(process.env as Record<string, string>), FAKE_SCENARIO: scenario },
    ...options,
  });
  return codex;
}

const text = (events: ExtendedThreadEvent[]) =>
  events.flatMap((e) => (e.type === "item.delta" ? [e.delta] : [])).join("");

describe("faults real codex cannot be made to produce (fake app-server)", () => {
  it("skips garbage and oversized lines and finishes the turn", async () => {
    const client = fake("garbage", { maxLineBytes: 64 * 1024 });
    const errors: Error[] = [];
    (await client.appServer.client()).onError((error) => errors.push(error));
    const { events } = await client.startThread().runStreamed("go");
    const all = await collect(events);
    assert.equal(text(all), "fake reply");
    assert.equal(all.at(-1)?.type, "turn.completed");
    assert.deepEqual(
      errors.map((error) => (error as Error & { code?: string }).code),
      ["invalid_json", "line_too_long"],
    );
  });

  it("ignores a response for an unknown id (reported, not fatal)", async () => {
    const client = fake("unknown-id");
    const errors: Error[] = [];
    (await client.appServer.client()).onError((error) => errors.push(error));
    const result = await client.startThread().run("go");
    assert.equal(result.finalResponse, "fake reply");
    assert.ok(errors.some((error) => /unknown request id 9999/.test(error.message)));
  });

  it("treats a server request with our pending id as a request", async () => {
    const asked: string[] = [];
    const client = fake("id-collision", {
      approvals: {
        userInput: (request) => {
          asked.push(request.questions[0]?.id ?? "");
          return { answers: { q1: ["fine"] } };
        },
      },
    });
    const result = await client.startThread().run("go");
    assert.deepEqual(asked, ["q1"]);
    assert.equal(result.finalResponse, "fake reply");
  });

  it("retries -32001 twice with backoff, then succeeds", async () => {
    const client = fake("overloaded", {
      retry: { maxRetries: 4, initialDelayMs: 10, maxDelayMs: 50 },
    });
    const result = await client.startThread().run("go");
    assert.equal(result.finalResponse, "fake reply");
  });

  it("surfaces -32001 as OverloadedError once the retries run out", async () => {
    const client = fake("overloaded", { retry: { maxRetries: 1, initialDelayMs: 5 } });
    await assert.rejects(client.startThread().run("go"), (error: unknown) => {
      assert.ok(error instanceof OverloadedError, String(error));
      assert.equal(error.attempts, 2);
      assert.equal(error.code, -32001);
      return true;
    });
  });

  it("fails a silent turn after the idle timeout instead of waiting forever", async () => {
    const client = fake("hang", { turnIdleTimeoutMs: 300 });
    const started = Date.now();
    await assert.rejects(client.startThread().run("go"), (error: unknown) => {
      assert.equal((error as CodexHarnessError).code, "turn_idle_timeout");
      return true;
    });
    assert.ok(Date.now() - started < 3_000);
  });

  it("stops a turn codex's active-turn record misses, by the thread-wide interrupt", async () => {
    const client = fake("stale-active-turn");
    const thread = client.startThread();
    const { events } = await thread.runStreamed("go");
    // Read by hand up to the turn's start (leaving a for-await loop would abandon the turn).
    const reader = events[Symbol.asyncIterator]();
    for (let next = await reader.next(); !next.done; next = await reader.next()) {
      if (next.value.type === "turn.started") break;
    }
    const started = Date.now();
    const interrupting = thread.interrupt();
    const rest = await collect({ [Symbol.asyncIterator]: () => reader });
    await interrupting;
    const took = Date.now() - started;
    // The fake ends the turn only on the thread-wide form (an empty turnId).
    const end = rest.at(-1);
    assert.equal(end?.type === "turn.completed" && end.status, "interrupted");
    // The turn's own interrupt is tried for the activation window first.
    assert.ok(took >= 250 && took < 2_000, `stopped in ${took} ms`);
  });

  it("an abort while codex is still starting ends the turn at once, and the next turn runs", async () => {
    const client = fake("ok", {
      env: {
        ...(process.env as Record<string, string>),
        FAKE_SCENARIO: "ok",
        FAKE_INITIALIZE_DELAY_MS: "1500",
      },
    });
    const thread = client.startThread();
    const started = Date.now();
    await assert.rejects(thread.run("go", { signal: AbortSignal.timeout(100) }), {
      name: "AbortError",
    });
    const took = Date.now() - started;
    assert.ok(took < 1_000, `the abort was handled in ${took} ms, not after codex's start`);
    assert.equal((await thread.run("again")).finalResponse, "fake reply");
  });

  it("ends the stream with AppServerExitedError when the process exits mid-turn", async () => {
    const client = fake("exit");
    const { events } = await client.startThread().runStreamed("go");
    const seen: ExtendedThreadEvent[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of events) seen.push(event);
      })(),
      (error: unknown) => {
        assert.ok(error instanceof AppServerExitedError, String(error));
        assert.equal(error.exitCode, 3);
        assert.match(error.message, /crashed on purpose/);
        return true;
      },
    );
    assert.equal(text(seen), "partial");
  });

  it("names the codex version when a method is not supported (-32601)", async () => {
    const client = fake("ok");
    await assert.rejects(client.appServer.listModels(), (error: unknown) => {
      assert.equal((error as { name?: string }).name, "MethodNotSupportedError");
      assert.match(
        (error as Error).message,
        /model\/list is not supported by this codex version \(0\.0\.1\)/,
      );
      return true;
    });
  });

  it("gives up restarting after too many crashes, with a clear error", async () => {
    const client = fake("exit", {
      restart: { maxRestarts: 1, windowMs: 60_000, initialDelayMs: 1 },
    });
    for (let crash = 0; crash < 2; crash++) {
      await assert.rejects(client.startThread().run("go"), AppServerExitedError);
    }
    await assert.rejects(client.startThread().run("go"), (error: unknown) => {
      assert.equal((error as CodexHarnessError).code, "app_server_failed");
      assert.match((error as Error).message, /exited 2 times within 60 s/);
      return true;
    });
  });
});
