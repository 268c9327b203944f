import assert from "node:assert/strict";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { compareCodexVersions } from "../../src/app-server/codex-features.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import type { RecordedRequest } from "../../src/testing/recorded.js";
import { inputTexts } from "../../src/testing/recorded.js";
import { mcpToolCall, reasoning, reply, response } from "../../src/testing/script.js";
import { TurnAbortedError } from "../../src/turns/run-result.js";
import {
  type CodexApiFixture,
  collect,
  FULL_ACCESS,
  startCodexApi,
} from "../support/codex-api-fixture.js";
import { codexProcesses } from "../support/codex-processes.js";
import { repoRoot } from "../support/paths.js";

let fixture: CodexApiFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

function threadIn(f: CodexApiFixture) {
  return f.codex.startThread({ workingDirectory: f.workdir, skipGitRepoCheck: true });
}

/** Resolves once `events` yields an event of `type`; the rest keeps flowing into `all`. */
function consume(events: AsyncIterable<ExtendedThreadEvent>) {
  const all: ExtendedThreadEvent[] = [];
  const waiters: Array<{ type: string; resolve: () => void }> = [];
  const done = (async () => {
    for await (const event of events) {
      all.push(event);
      for (const waiter of waiters.filter((w) => w.type === event.type)) waiter.resolve();
    }
  })();
  const seen = (type: string) =>
    all.some((event) => event.type === type)
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.push({ type, resolve }));
  return { all, done, seen };
}

describe("Thread API, app-server only (real codex, ScriptedModel)", () => {
  it("an MCP tool call's item says which environment registered its server (null: the thread's)", async () => {
    fixture = await startCodexApi("app-server", [mcpToolCall("notes", "read_notes"), reply("ok")], {
      config: {
        ...FULL_ACCESS,
        mcp_servers: {
          notes: {
            command: process.execPath,
            args: [path.join(repoRoot, "test/fixtures/mcp-notes-server.mjs")],
          },
        },
      },
    });
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    const { events } = await thread.runStreamed("read the notes");
    const calls = (await collect(events)).flatMap((e) =>
      e.type === "item.completed" && e.item.type === "mcp_tool_call" ? [e.item] : [],
    );
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.status, "completed");
    const version = /\/(\d+\.\d+\.\d+)/.exec((await fixture.codex.metadata()).userAgent)?.[1];
    // codex 0.171.0 sends environmentId; older releases nothing.
    if (compareCodexVersions(version ?? "0.0.0", "0.171.0") >= 0) {
      assert.equal(calls[0]?.environment_id, null);
    } else assert.ok(calls[0] && !("environment_id" in calls[0]));
  });

  it("codex.start() starts codex before any turn, and the first turn uses that process", async () => {
    fixture = await startCodexApi("app-server", [reply("warm")]);
    assert.deepEqual(await codexProcesses(fixture.codexHome), [], "nothing runs yet");
    assert.equal(await fixture.codex.start(), fixture.codex);
    const started = await codexProcesses(fixture.codexHome);
    assert.equal(started.length, 1, "codex runs before the first turn");
    const result = await fixture.codex
      .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
      .run("hi");
    assert.equal(result.finalResponse, "warm");
    assert.deepEqual(await codexProcesses(fixture.codexHome), started, "the same process");
  });

  it("codex.start() with exec starts nothing: exec starts codex for each turn", async () => {
    fixture = await startCodexApi("exec", [reply("unused")]);
    await fixture.codex.start();
    assert.deepEqual(await codexProcesses(fixture.codexHome), []);
  });

  it("thread.start() starts the thread before any turn: id and model at once", async () => {
    fixture = await startCodexApi("app-server", [reply("first answer")]);
    const notifications: string[] = [];
    const off = fixture.codex.onNotification((n) => notifications.push(n.method));
    const thread = threadIn(fixture);
    const info = await thread.start();
    assert.equal(thread.id, info.id);
    assert.equal(info.model, fixture.model.model);
    assert.equal(fixture.model.requests.length, 0);
    const result = await thread.run("hi");
    assert.equal(result.finalResponse, "first answer");
    // The turn ran on the started thread (no second thread/start).
    const listed = await fixture.codex.appServer.listThreads({});
    assert.deepEqual(
      listed.data.map((t) => t.id),
      [info.id],
    );
    // Notifications no turn took (codex's account and remote-control status) reach onNotification.
    assert.ok(notifications.includes("account/rateLimits/updated"), notifications.join(", "));
    off();
  });

  it("thread.start() of a thread codex does not have fails with thread_not_found", async () => {
    fixture = await startCodexApi("app-server", []);
    const thread = fixture.codex.resumeThread("019a0000-0000-7000-8000-000000000000");
    await assert.rejects(thread.start(), (error: Error & { code?: string }) => {
      assert.equal(error.code, "thread_not_found");
      return true;
    });
  });

  it("streams message and reasoning deltas as item.delta", async () => {
    fixture = await startCodexApi("app-server", [
      response([
        reasoning("Let me think", { deltas: 3 }),
        reply("Streaming works.", { deltas: 4 }),
      ]),
    ]);
    const { events } = await threadIn(fixture).runStreamed("stream please");
    const all = await collect(events);
    const deltas = (stream: string) =>
      all
        .filter((e) => e.type === "item.delta" && e.stream === stream)
        .map((e) => (e.type === "item.delta" ? e.delta : ""));
    assert.ok(deltas("agent_message").length >= 4);
    assert.equal(deltas("agent_message").join(""), "Streaming works.");
    assert.equal(deltas("reasoning_summary").join(""), "Let me think");
    const first = all.find((e) => e.type === "item.delta");
    assert.ok(first?.thread_id && first.turn_id, "deltas carry thread and turn ids");
  });

  it("finalAnswer follows codex's message phases; finalResponse stays the last message", async () => {
    fixture = await startCodexApi("app-server", [
      response([
        reply("The answer is 42.", { phase: "final_answer" }),
        reply("By the way, I also looked at the tests.", { phase: "commentary" }),
      ]),
      response([reply("Let me look around first.", { phase: "commentary" })]),
    ]);
    const thread = threadIn(fixture);
    const answered = await thread.run("what is it?");
    assert.equal(answered.finalAnswer, "The answer is 42.");
    assert.equal(answered.finalResponse, "By the way, I also looked at the tests.");
    const handle = await thread.turn("and now?");
    const commentary = await handle.result();
    assert.equal(commentary.finalAnswer, "", "commentary alone is no answer");
    assert.equal(commentary.finalResponse, "Let me look around first.");
  });

  it("interrupts a turn when the signal aborts: run() rejects with an AbortError once codex stopped it", async () => {
    fixture = await startCodexApi("app-server", [
      response([reply("too late")], { delayMs: 20_000 }),
    ]);
    const thread = threadIn(fixture);
    const controller = new AbortController();
    const model = fixture.model;
    const running = thread.run("take your time", { signal: controller.signal });
    await model.waitForRequest(1, { timeoutMs: 20_000 });
    const abortedAt = Date.now();
    controller.abort(new Error("user said stop"));
    const error = await running.then(
      () => assert.fail("run() resolved"),
      (rejected: unknown) => rejected,
    );
    assert.ok(error instanceof TurnAbortedError);
    assert.equal(error.name, "AbortError");
    assert.equal(error.code, "ABORT_ERR");
    assert.equal((error.cause as Error).message, "user said stop");
    assert.equal(error.result?.finalResponse, "");
    assert.ok(Date.now() - abortedAt < 3_000, `took ${Date.now() - abortedAt} ms`);
  });

  it("interrupts the running turn with thread.interrupt()", async () => {
    fixture = await startCodexApi("app-server", [response([reply("never")], { delayMs: 20_000 })]);
    const thread = threadIn(fixture);
    const { events } = await thread.runStreamed("long task");
    const stream = consume(events);
    await stream.seen("turn.started");
    await fixture.model.waitForRequest(1, { timeoutMs: 20_000 });
    await thread.interrupt();
    await stream.done;
    const last = stream.all.at(-1);
    assert.ok(last?.type === "turn.completed" && last.status === "interrupted");
  });

  it("steers the running turn: the model's next request carries the new input", async () => {
    fixture = await startCodexApi("app-server", [
      response([reply("Working on it.")], { delayMs: 1_500 }),
      (request: RecordedRequest) => reply(`Saw: ${inputTexts(request).at(-1) ?? "nothing"}`),
    ]);
    const thread = threadIn(fixture);
    const { events } = await thread.runStreamed("start something");
    const stream = consume(events);
    await stream.seen("turn.started");
    await fixture.model.waitForRequest(1, { timeoutMs: 20_000 });
    await thread.steer("also do this");
    await stream.done;
    assert.equal(fixture.model.modelRequests.length, 2);
    const messages = stream.all.flatMap((e) =>
      e.type === "item.completed" && e.item.type === "agent_message" ? [e.item.text] : [],
    );
    // codex 0.169.0 drops the in-flight response when steered and asks again with the new input.
    assert.equal(messages.at(-1), "Saw: also do this");
    assert.equal(
      inputTexts(fixture.model.modelRequests[1] as RecordedRequest).at(-1),
      "also do this",
    );
  });

  it("runs turns of several threads concurrently on one app-server process", async () => {
    const echo = (request: RecordedRequest) => reply(`echo ${inputTexts(request).at(-1)}`);
    fixture = await startCodexApi("app-server", [echo, echo, echo, echo]);
    const f = fixture;
    const pid = (await f.codex.appServer.client()).pid;
    const results = await Promise.all(
      ["alpha", "beta", "gamma", "delta"].map((word) => threadIn(f).run(word)),
    );
    assert.deepEqual(
      results.map((r) => r.finalResponse),
      ["echo alpha", "echo beta", "echo gamma", "echo delta"],
    );
    assert.equal((await f.codex.appServer.client()).pid, pid, "one process served every thread");
    assert.equal(new Set(results.map((r) => r.id)).size, 4);
  });

  it("never interleaves two turns of one thread", async () => {
    fixture = await startCodexApi("app-server", [
      response([reply("first")], { delayMs: 500 }),
      reply("second"),
      reply("third"),
    ]);
    const thread = threadIn(fixture);
    await thread.run("one");
    const { events } = await thread.runStreamed("two");
    const stream = consume(events);
    await stream.seen("turn.started");
    await assert.rejects(
      (await thread.runStreamed("again")).events.next(),
      (error: unknown) => (error as { code?: string }).code === "thread_busy",
    );
    // A second Thread object on the same id waits for the running turn instead.
    const twin = fixture.codex.resumeThread(thread.id as string, {
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    const third = twin.run("three");
    await stream.done;
    const endOfSecond = Date.now();
    const result = await third;
    assert.equal(result.finalResponse, "third");
    assert.ok(Date.now() >= endOfSecond);
    assert.equal(stream.all.at(-1)?.type, "turn.completed");
  });

  it("reaches the rest of the protocol through codex.appServer", async () => {
    fixture = await startCodexApi("app-server", [reply("saved")]);
    const thread = threadIn(fixture);
    await thread.run("keep me");
    const id = thread.id as string;
    const listed = await fixture.codex.appServer.listThreads({});
    assert.ok(listed.data.some((t) => t.id === id));
    const read = await fixture.codex.appServer.readThread(id, { includeTurns: true });
    assert.equal(read.thread.id, id);
    const models = await fixture.codex.appServer.listModels();
    assert.ok(models.data.length > 0);
    const config = await fixture.codex.appServer.readConfig();
    assert.equal(config.config.model, "scripted-model");
    const ran = await fixture.codex.appServer.execCommand({
      command: ["echo", "hi"],
      cwd: fixture.workdir,
    });
    assert.equal(ran.exitCode, 0);
    assert.equal(ran.stdout, "hi\n");
    const forked = await fixture.codex.forkThread(id, {
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    assert.notEqual(forked.id, id);
  });
});
