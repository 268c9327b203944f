// thread.turn(): a handle on a running turn (real codex, ScriptedModel) — its id, its own events,
// steer, interrupt and result; per-turn overrides; skill input; and the result's timing and usage.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { RecordedRequest } from "../../src/testing/recorded.js";
import { inputTexts } from "../../src/testing/recorded.js";
import { execCommand, reply, response } from "../../src/testing/script.js";
import { fixturesClosedAfterAll } from "../support/codex-api-fixture.js";
import { eventually } from "../support/eventually.js";

const fixtureOf = fixturesClosedAfterAll();

/** The user texts of a request, joined. */
const asked = (request: RecordedRequest) => inputTexts(request).join(" ");

describe("thread.turn(): a handle on a running turn (real codex, ScriptedModel)", () => {
  it("has its id once codex started it, its own events, and a result with timing and usage", async () => {
    const fixture = await fixtureOf("app-server", [reply("Hello from the handle.")]);
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    const turn = await thread.turn("say hello");
    assert.match(turn.id ?? "", /^[0-9a-f-]{36}$/, "the turn's id, known at once");
    assert.equal(turn.threadId, thread.id);
    const types: string[] = [];
    for await (const event of turn.events) types.push(event.type);
    assert.equal(types[0], "thread.started");
    assert.ok(types.includes("turn.started"));
    assert.equal(types.at(-1), "turn.completed");
    assert.ok(types.includes("usage.updated"));
    const result = await turn.result();
    assert.equal(result.finalResponse, "Hello from the handle.");
    assert.equal(result.id, turn.id);
    assert.equal(typeof result.startedAt, "number");
    assert.equal(typeof result.completedAt, "number");
    assert.ok((result.durationMs ?? -1) >= 0, `durationMs ${result.durationMs}`);
    assert.equal(result.threadUsage?.last.input_tokens, 100);
    assert.ok((result.threadUsage?.model_context_window ?? 0) > 0);
  });

  it("result() alone reads the turn; two threads' turns side by side each keep their own", async () => {
    const fixture = await fixtureOf("app-server", []);
    const answer = (request: RecordedRequest) =>
      response([reply(asked(request).includes("alpha") ? "Answer A." : "Answer B.")], {
        delayMs: 200,
      });
    fixture.model.enqueue(answer, answer);
    const options = { workingDirectory: fixture.workdir, skipGitRepoCheck: true };
    const [a, b] = await Promise.all([
      fixture.codex.startThread(options).turn("alpha"),
      fixture.codex.startThread(options).turn("beta"),
    ]);
    assert.notEqual(a.id, b.id);
    const [ra, rb] = await Promise.all([a.result(), b.result()]);
    assert.equal(ra.finalResponse, "Answer A.");
    assert.equal(rb.finalResponse, "Answer B.");
  });

  it("steer() adds input to the running turn; interrupt() ends it as interrupted", async () => {
    const fixture = await fixtureOf("app-server", [
      response([reply("too slow")], { delayMs: 3_000 }),
      reply("Steered."),
      response([reply("never")], { delayMs: 5_000 }),
    ]);
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    const steered = await thread.turn("start something");
    await fixture.model.waitForRequest(1, { timeoutMs: 20_000 });
    await steered.steer("and mind the tests");
    const result = await steered.result();
    assert.equal(result.finalResponse, "Steered.");
    assert.match(asked(fixture.model.requests[1] as RecordedRequest), /mind the tests/);

    const interrupted = await thread.turn("go slowly");
    await fixture.model.waitForRequest(3, { timeoutMs: 20_000 });
    await interrupted.interrupt();
    assert.equal((await interrupted.result()).status, "interrupted");
  });

  it("interrupt() resolves only once the turn's command is gone, and stops its own turn (issue 37)", async () => {
    const fixture = await fixtureOf("app-server", [
      execCommand("echo s > started.txt; sleep 1; echo late > late.txt"),
      reply("never"),
    ]);
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    const handle = await thread.turn("run the slow command");
    await eventually("the command started", () =>
      existsSync(path.join(fixture.workdir, "started.txt")),
    );
    await handle.interrupt();
    // Nothing of the turn runs once interrupt() resolved: its command never writes.
    await sleep(1_500);
    assert.equal(existsSync(path.join(fixture.workdir, "late.txt")), false);
    assert.equal((await handle.result()).status, "interrupted");
  });

  it("thread.interrupt() before codex started the turn: the turn is stopped all the same (issue 37)", async () => {
    const fixture = await fixtureOf("app-server", [
      execCommand("echo ran > ran.txt"),
      reply("never"),
    ]);
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    const { events } = await thread.runStreamed("go");
    const reading = (async () => {
      const seen: string[] = [];
      for await (const event of events) {
        seen.push(event.type === "turn.completed" ? `turn.completed ${event.status}` : event.type);
      }
      return seen;
    })();
    // At once, before the reader has seen turn.started (it threw no_running_turn before).
    await new Promise((resolve) => setImmediate(resolve));
    await thread.interrupt();
    const seen = await reading;
    assert.equal(seen.at(-1), "turn.completed interrupted", seen.join(", "));
    await sleep(500);
    assert.equal(existsSync(path.join(fixture.workdir, "ran.txt")), false);
  });

  it("an approval answered cancel: codex interrupts the turn, and its earlier command is ended (issue 37)", async () => {
    const fixture = await fixtureOf(
      "app-server",
      [
        // Still running when its call yields: a background terminal of the turn.
        execCommand("sleep 1.5; echo late > late.txt", { yieldTimeMs: 250 }),
        execCommand("echo x > asked.txt", { escalated: true, justification: "ask" }),
        reply("never"),
      ],
      {
        config: { sandbox_mode: "workspace-write", approval_policy: "on-request" },
        codex: { approvals: { commandExecution: () => "cancel" as const } },
      },
    );
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    const result = await thread.run("run and ask");
    assert.equal(result.status, "interrupted");
    await sleep(2_000);
    assert.equal(existsSync(path.join(fixture.workdir, "late.txt")), false, "the command ran on");
    assert.equal(existsSync(path.join(fixture.workdir, "asked.txt")), false);
  });

  it("per-turn effort, summary and cwd reach codex; a skill input brings its instructions", async () => {
    const fixture = await fixtureOf("app-server", [reply("ok"), reply("ok")]);
    const elsewhere = path.join(fixture.workdir, "elsewhere");
    await mkdir(elsewhere);
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    await (
      await thread.turn("hi", { effort: "high", summary: "detailed", cwd: elsewhere })
    ).result();
    const body = fixture.model.lastRequest?.body as { reasoning?: Record<string, unknown> };
    assert.equal(body.reasoning?.effort, "high");
    assert.equal(body.reasoning?.summary, "detailed");
    assert.ok(JSON.stringify(body).includes(elsewhere), "the turn's cwd went to the model");

    // A skill codex knows (in its home's skills/), named in the input.
    const skill = path.join(fixture.codexHome, "skills", "greet", "SKILL.md");
    await mkdir(path.dirname(skill), { recursive: true });
    await writeFile(
      skill,
      "---\nname: greet\ndescription: Greets warmly\n---\nALWAYS-GREET-IN-HAIKU\n",
    );
    await thread.run([
      { type: "skill", name: "greet", path: skill },
      { type: "text", text: "greet Ada" },
    ]);
    assert.ok(
      JSON.stringify(fixture.model.lastRequest?.body).includes("ALWAYS-GREET-IN-HAIKU"),
      "the skill's instructions went to the model",
    );
  });

  it("leaving its events before the end stops the turn; result() then says so", async () => {
    const fixture = await fixtureOf("app-server", [
      response([reply("a long answer")], { delayMs: 2_000 }),
    ]);
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    const turn = await thread.turn("long");
    for await (const event of turn.events) {
      if (event.type === "turn.started") break;
    }
    await assert.rejects(turn.result(), { code: "turn_abandoned" });
    const exec = await fixtureOf("exec", []);
    await assert.rejects(
      exec.codex.startThread({ skipGitRepoCheck: true }).run("x", { effort: "high" }),
      { code: "unsupported_option", message: /effort need the app-server/ },
    );
  });
});
