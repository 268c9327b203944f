import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { Codex } from "../../src/codex.js";
import type { AgentEvent } from "../../src/session/agent-events.js";
import { codexHarnessDefinition } from "../../src/session/harness-definition.js";
import { runTurn } from "../../src/session/run-turn.js";
import { readSessionRecord, writeSessionRecord } from "../../src/session/session-store.js";
import { spacesTargetName } from "../../src/spaces/install.js";
import { sessionHomeDir } from "../../src/spaces/session-home.js";
import { inputTexts } from "../../src/testing/recorded.js";
import { execCommand, failure, reply } from "../../src/testing/script.js";
import { type SessionProject, startSessionProject } from "../support/session-fixture.js";

let fixture: SessionProject | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const typesOf = (events: AgentEvent[]) => events.map((event) => event.type);

/** A 1x1 transparent PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

describe("runTurn (real codex, ScriptedModel)", () => {
  it("runs a turn: AgentEvents in order with increasing seq, a record, the final output", async () => {
    fixture = await startSessionProject([
      execCommand("echo hello"),
      reply("All done.", { deltas: ["All ", "done."] }),
    ]);
    const request = fixture.request({ prompt: "say hi" });
    const result = await runTurn(request);
    assert.equal(result.result.success, true, JSON.stringify(result.result));
    assert.equal(result.result.finalOutput, "All done.");
    assert.equal(result.harness, "codex");
    assert.equal(result.model, fixture.model.model);
    assert.match(result.harnessSessionId ?? "", /^[0-9a-f-]{36}$/);

    const { events } = request;
    assert.deepEqual(
      events.map((event) => event.seq),
      events.map((_, index) => index + 1),
    );
    // codex warns that it has no metadata for the scripted model's name (and, at start-up,
    // that bubblewrap is not on PATH): `log` events.
    const logs = events.filter((e) => e.type === "log");
    assert.ok(
      logs.some((e) => e.type === "log" && e.level === "warn" && /metadata/i.test(e.message)),
      JSON.stringify(logs),
    );
    assert.ok(
      logs.every(
        (e) => e.type === "log" && e.level === "warn" && /metadata|bubblewrap/i.test(e.message),
      ),
      JSON.stringify(logs),
    );
    assert.deepEqual(typesOf(events.filter((e) => e.type !== "log")), [
      "state",
      "message",
      "tool_call",
      "tool_result",
      "message_delta",
      "message_delta",
      "message",
      "state",
      "complete",
    ]);
    assert.deepEqual(
      events.filter((e) => e.type === "state").map((e) => e.type === "state" && e.state),
      ["running", "complete"],
    );
    const call = events.find((e) => e.type === "tool_call");
    assert.equal(call?.type === "tool_call" && call.toolName, "command_execution");
    const toolResult = events.find((e) => e.type === "tool_result");
    assert.equal(toolResult?.type === "tool_result" && toolResult.isError, false);
    for (const event of events) {
      assert.equal(event.externalSessionId, "session-1");
      assert.equal(event.externalRunId, "run-1");
      assert.ok(!Number.isNaN(Date.parse(event.ts)));
    }
    // Every event after the thread started carries its id; tool events carry codex's payload.
    assert.equal(events.at(-1)?.harnessSessionId, result.harnessSessionId);
    assert.equal(
      (toolResult?.payload as { method?: string } | undefined)?.method,
      "item/completed",
    );

    const record = await readSessionRecord(fixture.aspHome, "session-1");
    assert.equal(record?.harness, "codex");
    assert.equal(record?.harnessSessionId, result.harnessSessionId);
    assert.equal(record?.model, fixture.model.model);
    // The session ran in its own codex home, built from the installed target.
    const home = sessionHomeDir(fixture.aspHome, "session-1");
    assert.ok(existsSync(path.join(home, "config.toml")));
    assert.ok(existsSync(path.join(fixture.project, "asp_modules/dev/codex/codex.home")));
  });

  it("the second runTurn of a session resumes its thread: the model sees the first turn", async () => {
    fixture = await startSessionProject([reply("The word is ORANGE."), reply("It was ORANGE.")]);
    const first = await runTurn(fixture.request({ prompt: "remember ORANGE" }));
    assert.equal(first.result.success, true);
    const second = await runTurn(
      fixture.request({ prompt: "what was the word?", externalRunId: "run-2" }),
    );
    assert.equal(second.result.success, true, JSON.stringify(second.result));
    assert.equal(second.harnessSessionId, first.harnessSessionId);
    assert.equal(second.result.finalOutput, "It was ORANGE.");
    const body = JSON.stringify(fixture.model.requests[1]?.body);
    assert.ok(body.includes("remember ORANGE"), "first prompt replayed");
    assert.ok(body.includes("The word is ORANGE."), "first answer replayed");
    assert.deepEqual(inputTexts(fixture.model.requests[1] as never).at(-1), "what was the word?");
  });

  it("two sessions run at once, each in its own codex home and thread", async () => {
    fixture = await startSessionProject([
      (request) => reply(`echo: ${inputTexts(request).at(-1)}`),
      (request) => reply(`echo: ${inputTexts(request).at(-1)}`),
    ]);
    const project = fixture;
    const [a, b] = await Promise.all(
      ["alpha", "beta"].map((name) =>
        runTurn(project.request({ prompt: name, externalSessionId: `s-${name}` })),
      ),
    );
    assert.equal(a?.result.finalOutput, "echo: alpha", JSON.stringify(a));
    assert.equal(b?.result.finalOutput, "echo: beta");
    assert.notEqual(a?.harnessSessionId, b?.harnessSessionId);
    assert.notEqual(
      sessionHomeDir(project.aspHome, "s-alpha"),
      sessionHomeDir(project.aspHome, "s-beta"),
    );
    for (const id of ["s-alpha", "s-beta"]) {
      assert.ok(existsSync(path.join(sessionHomeDir(project.aspHome, id), "config.toml")));
    }
  });

  it("runs with a {spaces} spec: the refs are installed under aspHome", async () => {
    fixture = await startSessionProject([reply("from spaces")]);
    const refs = ["space:path:../spaces/app"];
    const result = await runTurn(fixture.request({ prompt: "hi", spec: { spaces: refs } }));
    assert.equal(result.result.finalOutput, "from spaces", JSON.stringify(result.result));
    const home = path.join(
      fixture.aspHome,
      "asp_modules",
      spacesTargetName(refs),
      "codex/codex.home",
    );
    assert.match(readFileSync(path.join(home, "AGENTS.md"), "utf8"), /from the app space/);
    assert.ok(JSON.stringify(fixture.model.lastRequest?.body).includes("from the app space"));
  });

  it("an image attachment reaches the model request; other files become a text line", async () => {
    fixture = await startSessionProject([reply("I see it.")]);
    writeFileSync(path.join(fixture.workdir, "pixel.png"), PNG);
    writeFileSync(path.join(fixture.workdir, "notes.txt"), "notes");
    const result = await runTurn(
      fixture.request({ prompt: "look", attachments: ["pixel.png", "notes.txt"] }),
    );
    assert.equal(result.result.success, true, JSON.stringify(result.result));
    const body = JSON.stringify(fixture.model.lastRequest?.body);
    assert.ok(body.includes("data:image/png;base64,"), "the image is in the request");
    assert.ok(body.includes(`Attached file: ${path.join(fixture.workdir, "notes.txt")}`));
  });

  it("a signal already aborted: the turn is never started, its command never runs (issue 37)", async () => {
    fixture = await startSessionProject([execCommand("echo ran > ran.txt"), reply("done")], {
      sandbox_mode: "danger-full-access",
      approval_policy: "never",
    });
    const request = fixture.request({ prompt: "go", signal: AbortSignal.abort() });
    const result = await runTurn(request);
    // agent-spaces' contract: an interrupted turn is a success with what was produced (nothing).
    assert.deepEqual(result.result, { success: true });
    assert.equal(existsSync(path.join(fixture.workdir, "ran.txt")), false);
    assert.equal(fixture.model.modelRequests.length, 0, "codex never asked the model");
  });

  it("a turn codex fails (error notification) gives success false with codex's message", async () => {
    fixture = await startSessionProject([failure("the model exploded", { code: "server_error" })]);
    const request = fixture.request({ prompt: "go" });
    const result = await runTurn(request);
    assert.equal(result.result.success, false);
    assert.match(result.result.error?.message ?? "", /exploded/);
    assert.deepEqual(typesOf(request.events).slice(-2), ["state", "complete"]);
    const complete = request.events.at(-1);
    assert.equal(complete?.type === "complete" && complete.result.success, false);
    const state = request.events.at(-2);
    assert.equal(state?.type === "state" && state.state, "error");
    // The thread exists, so the record keeps it for the next turn.
    const record = await readSessionRecord(fixture.aspHome, "session-1");
    assert.equal(record?.harnessSessionId, result.harnessSessionId);
  });

  it("a record of another harness, or a thread codex lost, is harness_session_not_found", async () => {
    fixture = await startSessionProject([reply("unused")]);
    const now = new Date().toISOString();
    await writeSessionRecord(fixture.aspHome, {
      externalSessionId: "claude-session",
      harness: "claude-agent-sdk",
      harnessSessionId: "abc",
      createdAt: now,
      updatedAt: now,
    });
    const other = await runTurn(
      fixture.request({ prompt: "go", externalSessionId: "claude-session" }),
    );
    assert.equal(other.result.error?.code, "harness_session_not_found");
    assert.match(other.result.error?.message ?? "", /claude-agent-sdk/);

    const lost = await runTurn(
      fixture.request({
        prompt: "go",
        harnessSessionId: "019a0000-0000-7000-8000-000000000000",
      }),
    );
    assert.equal(lost.result.error?.code, "harness_session_not_found", JSON.stringify(lost.result));
    assert.equal(fixture.model.requests.length, 0);
  });

  it("refuses a model codex does not list (OpenAI provider) with model_not_supported", async () => {
    // This home uses codex's own provider: the check asks model/list (offline: bundled presets).
    fixture = await startSessionProject([reply("unused")], {
      model_provider: "openai",
    });
    const result = await runTurn(fixture.request({ prompt: "go", model: "gpt-0-nonexistent" }));
    assert.equal(result.result.error?.code, "model_not_supported");
    assert.match(result.result.error?.message ?? "", /gpt-0-nonexistent.*use one of/);
    assert.equal(fixture.model.requests.length, 0);
  });

  it("a provider that needs a login nobody gave fails in seconds with not_logged_in", async () => {
    // codex's own provider, and no auth.json in the user's CODEX_HOME nor an API key.
    fixture = await startSessionProject([reply("unused")], { model_provider: "openai" });
    const started = Date.now();
    const userHome = path.join(fixture.project, "user-codex-home");
    const result = await runTurn(fixture.request({ prompt: "go", env: { CODEX_HOME: userHome } }));
    const error = result.result.error;
    assert.equal(error?.details?.codeOfCodex, "not_logged_in", JSON.stringify(result.result));
    // Where the person logs in: their own codex home, whose auth.json session homes link.
    assert.match(
      error?.message ?? "",
      /codex login` with CODEX_HOME=\S*user-codex-home, or set CODEX_API_KEY/,
    );
    assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
  });

  it("bad requests end with resolve_failed and say what to change", async () => {
    fixture = await startSessionProject([reply("unused")]);
    const wrongHarness = await runTurn(fixture.request({ prompt: "go", harness: "pi" }));
    assert.equal(wrongHarness.result.error?.code, "resolve_failed");
    assert.match(wrongHarness.result.error?.message ?? "", /"codex" harness/);
    const noTarget = await runTurn(
      fixture.request({
        prompt: "go",
        spec: { target: { targetName: "nope", targetDir: fixture.project } },
      }),
    );
    assert.equal(noTarget.result.error?.code, "resolve_failed");
    assert.match(noTarget.result.error?.message ?? "", /no target "nope"/);
  });

  it("the harness definition lists the models the installed codex reports", async () => {
    fixture = await startSessionProject([]);
    const codexHome = path.join(fixture.project, "home");
    await fixture.model.writeCodexHome(codexHome);
    const definition = await codexHarnessDefinition({ codexHome });
    const codex = new Codex({ codexHome });
    try {
      const listed = await codex.appServer.request("model/list", { includeHidden: true });
      assert.deepEqual(
        definition.models,
        listed.data.filter((model) => !model.hidden).map((model) => model.id),
      );
      assert.equal(definition.defaultModel, listed.data.find((model) => model.isDefault)?.id);
      assert.ok(definition.models.length > 0);
    } finally {
      await codex.close();
    }
  });

  it("writes every protocol message to eventsOutputPath", async () => {
    fixture = await startSessionProject([reply("captured")]);
    const file = path.join(fixture.project, "events.jsonl");
    const result = await runTurn(fixture.request({ prompt: "go", eventsOutputPath: file }));
    assert.equal(result.result.success, true);
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const methods = lines.map((line) => line.message?.method).filter(Boolean);
    assert.ok(methods.includes("thread/start"));
    assert.ok(methods.includes("turn/completed"));
  });
});
