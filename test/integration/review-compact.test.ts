// Thread.review() and Thread.compact(): codex's review/start and thread/compact/start as turns of
// the thread, with the same events, result and abort as any turn (real codex, ScriptedModel).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { CodexHarnessError } from "../../src/errors.js";
import { inputTexts } from "../../src/testing/recorded.js";
import { reply, response } from "../../src/testing/script.js";
import { collect, fixturesClosedAfterAll } from "../support/codex-api-fixture.js";
import { REVIEW } from "../support/review-output.js";

const fixtureOf = fixturesClosedAfterAll();

describe("Thread.review and Thread.compact (real codex, ScriptedModel)", () => {
  it("review: the reviewer's findings come as review items and the final response", async () => {
    const fixture = await fixtureOf("app-server", [reply(REVIEW)]);
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    const { events } = await thread.reviewStreamed({
      type: "custom",
      instructions: "Review the greeting in a.txt",
    });
    const all = await collect(events);
    const items = all.flatMap((event) => (event.type === "item.completed" ? [event.item] : []));
    const entered = items.find((item) => item.type === "entered_review_mode");
    const exited = items.find((item) => item.type === "exited_review_mode");
    assert.equal(
      entered?.type === "entered_review_mode" && entered.review,
      "Review the greeting in a.txt",
    );
    assert.ok(exited?.type === "exited_review_mode");
    assert.match(exited.review, /One typo in the greeting[\s\S]*Greeting misspelled/);
    assert.equal(all.at(-1)?.type, "turn.completed");
    // The model was asked as codex's reviewer, with the instructions.
    const [request] = fixture.model.requests;
    assert.ok(request);
    assert.ok(inputTexts(request).some((text) => text.includes("Review the greeting in a.txt")));
    assert.match(JSON.stringify(request.body), /Review guidelines/);

    // The same review through review(): a result like run()'s.
    fixture.model.enqueue(reply(REVIEW));
    const result = await thread.review({ type: "commit", sha: "abc1234", title: null });
    assert.match(result.finalResponse, /Greeting misspelled/);
    assert.equal(result.status, "completed");
    assert.ok(result.items.some((item) => item.type === "exited_review_mode"));
  });

  it("review: a target missing what it needs is one clear error; exec cannot review", async () => {
    const fixture = await fixtureOf("app-server", []);
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    const refused = async (target: unknown, pattern: RegExp) => {
      const error = await thread.review(target as Parameters<typeof thread.review>[0]).then(
        () => undefined,
        (rejected: unknown) => rejected,
      );
      assert.ok(error instanceof CodexHarnessError, String(error));
      assert.equal(error.code, "invalid_input");
      assert.match(error.message, pattern);
    };
    await refused({ type: "baseBranch" }, /branch: "main"/);
    await refused({ type: "commit", sha: " " }, /sha: "abc1234"/);
    await refused({ type: "custom", instructions: "" }, /instructions/);
    await refused("compact", /use "uncommittedChanges", "baseBranch", "commit" or "custom"/);
    assert.equal(fixture.model.requests.length, 0, "nothing reached the model");

    const exec = await fixtureOf("exec", []);
    const execThread = exec.codex.startThread({
      workingDirectory: exec.workdir,
      skipGitRepoCheck: true,
    });
    for (const attempt of [
      () => execThread.review({ type: "uncommittedChanges" }),
      () => execThread.compact(),
    ]) {
      await assert.rejects(attempt(), { code: "unsupported_operation" });
    }
  });

  it("compact: the history becomes codex's summary, which the next turn carries", async () => {
    const fixture = await fixtureOf("app-server", [
      reply("The first answer."),
      reply("SUMMARY: the user said hello and got the first answer."),
      reply("After the compaction."),
    ]);
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    await thread.run("hello there");
    const { events } = await thread.compactStreamed();
    const all = await collect(events);
    assert.equal(all[0]?.type, "thread.started");
    assert.ok(
      all.some(
        (event) => event.type === "item.completed" && event.item.type === "context_compaction",
      ),
      "a context_compaction item",
    );
    const end = all.at(-1);
    assert.ok(end?.type === "turn.completed" && end.turn_id, "the compaction's turn ends");
    assert.equal(fixture.model.requests.length, 2, "one request summarised the history");

    const next = await thread.run("and now?");
    assert.equal(next.finalResponse, "After the compaction.");
    const last = fixture.model.requests.at(-1);
    assert.ok(last);
    assert.match(JSON.stringify(last.body), /SUMMARY: the user said hello/);
  });

  it("compact: aborted while codex summarises, it stops there and nothing asks the model again", async () => {
    const fixture = await fixtureOf("app-server", [
      reply("The first answer."),
      response([reply("a summary that comes too late")], { delayMs: 3_000 }),
      reply("next turn"),
    ]);
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    await thread.run("hello there");
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error("enough")), 300);
    await assert.rejects(thread.compact({ signal: controller.signal }), { name: "AbortError" });
    const took = Date.now() - started;
    assert.ok(took < 2_500, `the abort was handled in ${took} ms, before the summary came`);
    await sleep(3_000);
    assert.equal(fixture.model.requests.length, 2, "no request after the abort");
    const next = await thread.run("go on");
    assert.equal(next.finalResponse, "next turn", "the thread takes the next turn");
  });
});
