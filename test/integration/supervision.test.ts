import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { AppServerExitedError } from "../../src/app-server/process-errors.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import { execCommand, reply, response } from "../../src/testing/script.js";
import { type CodexApiFixture, startCodexApi } from "../support/codex-api-fixture.js";

let fixture: CodexApiFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe("supervision (real codex)", () => {
  it("SIGKILL mid-turn ends the stream at once; the thread's next turn works after the restart", async () => {
    fixture = await startCodexApi("app-server", [
      reply("before the crash"),
      response([reply("never")], { delayMs: 30_000 }),
      reply("after the restart"),
    ]);
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    await thread.run("first");
    const firstPid = (await fixture.codex.appServer.client()).pid as number;
    const { events } = await thread.runStreamed("second");
    const seen: ExtendedThreadEvent[] = [];
    const consumed = (async () => {
      for await (const event of events) seen.push(event);
    })().then(
      () => assert.fail("the stream must end with an error"),
      (error: unknown) => ({ error, at: Date.now() }),
    );
    await fixture.model.waitForRequest(2, { timeoutMs: 20_000 });
    const killedAt = Date.now();
    process.kill(firstPid, "SIGKILL");
    const { error, at } = await consumed;
    assert.ok(error instanceof AppServerExitedError, String(error));
    assert.equal(error.signal, "SIGKILL");
    // "At once": by the process's exit, not by any timeout (request timeouts are seconds, the idle
    // timeout minutes). Quiet machines measure < 100 ms; a loaded CI box has taken 106 ms.
    assert.ok(at - killedAt < 1_000, `ended ${at - killedAt} ms after the kill`);
    const third = await thread.run("third");
    assert.equal(third.finalResponse, "after the restart");
    assert.notEqual((await fixture.codex.appServer.client()).pid, firstPid, "a new process");
    const body = JSON.stringify(fixture.model.lastRequest?.body);
    assert.ok(body.includes("before the crash"), "the resumed thread remembers its history");
  });

  it("a crash clears pending approvals with approval.resolved before the stream fails", async () => {
    fixture = await startCodexApi(
      "app-server",
      [execCommand("touch never.txt", { escalated: true }), reply("never")],
      { config: {} },
    );
    const { events } = await fixture.codex
      .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
      .runStreamed("go");
    const seen: ExtendedThreadEvent[] = [];
    const f = fixture;
    await assert.rejects(
      (async () => {
        for await (const event of events) {
          seen.push(event);
          if (event.type === "approval.requested") {
            process.kill((await f.codex.appServer.client()).pid as number, "SIGKILL");
          }
        }
      })(),
      AppServerExitedError,
    );
    const resolved = seen.find((e) => e.type === "approval.resolved");
    assert.ok(resolved?.type === "approval.resolved" && resolved.decided_by === "cleared");
  });

  it("starts a new thread when codex cannot resume one, if asked, with a notice", async () => {
    fixture = await startCodexApi("app-server", [reply("fresh start")]);
    const thread = fixture.codex.resumeThread("01a20000-0000-7000-8000-00000000dead", {
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
      onLostThread: "startNew",
    });
    const { events } = await thread.runStreamed("hello again");
    const seen: ExtendedThreadEvent[] = [];
    for await (const event of events) seen.push(event);
    const notice = seen.find((e) => e.type === "notice");
    assert.ok(notice?.type === "notice" && notice.code === "thread_replaced");
    assert.equal(notice.replaced_thread_id, "01a20000-0000-7000-8000-00000000dead");
    assert.notEqual(thread.id, "01a20000-0000-7000-8000-00000000dead");
    assert.equal(notice.thread_id, thread.id);
    assert.equal(seen.at(-1)?.type, "turn.completed");
  });
});
