// Saved threads through the SDK (real codex, ScriptedModel): listed page by page, archived and
// brought back, read with their turns, named, forked at a turn; and the thread options codex's
// thread/start takes (instructions, model provider, ephemeral).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareCodexVersions } from "../../src/app-server/codex-features.js";
import { CodexHarnessError } from "../../src/errors.js";
import { reply } from "../../src/testing/script.js";
import { type CodexApiFixture, fixturesClosedAfterAll } from "../support/codex-api-fixture.js";

const fixtureOf = fixturesClosedAfterAll();

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** The text of the model's last request, to see what history went with it. */
function lastRequestText(fixture: CodexApiFixture): string {
  return JSON.stringify(fixture.model.lastRequest?.body ?? "");
}

describe("saved threads through the SDK (real codex, ScriptedModel)", () => {
  it("listThreads pages through them; archive hides one, unarchive brings it back to continue", async () => {
    const fixture = await fixtureOf("app-server", [
      reply("one"),
      reply("two"),
      reply("three"),
      reply("again"),
    ]);
    const options = { workingDirectory: fixture.workdir, skipGitRepoCheck: true };
    const ids: string[] = [];
    for (const word of ["alpha", "beta", "gamma"]) {
      const thread = fixture.codex.startThread(options);
      await thread.run(`remember ${word}`);
      ids.push(thread.id as string);
    }
    const [alpha, beta, gamma] = ids;
    // One thread per page: all three come, newest first, across three pages.
    const listed = await collect(fixture.codex.listThreads({ cwd: fixture.workdir, pageSize: 1 }));
    assert.deepEqual(
      listed.map((thread) => thread.id),
      [gamma, beta, alpha],
    );
    assert.match(listed[0]?.preview ?? "", /remember gamma/);
    const two = await collect(fixture.codex.listThreads({ cwd: fixture.workdir, limit: 2 }));
    assert.equal(two.length, 2, "limit stops the listing");
    // Only the threads asked for (codex 0.171.0's includedThreadIds; older ones refuse it).
    const version = /\/(\d+\.\d+\.\d+)/.exec((await fixture.codex.metadata()).userAgent)?.[1];
    const chosen = collect(fixture.codex.listThreads({ threadIds: [alpha, gamma] as string[] }));
    if (compareCodexVersions(version ?? "0.0.0", "0.171.0") >= 0) {
      assert.deepEqual(
        (await chosen).map((thread) => thread.id),
        [gamma, alpha],
      );
    } else await assert.rejects(chosen, /includedThreadIds is not supported/);

    await fixture.codex.archiveThread(beta as string);
    const left = await collect(fixture.codex.listThreads({ cwd: fixture.workdir }));
    assert.deepEqual(
      left.map((thread) => thread.id),
      [gamma, alpha],
    );
    const archived = await collect(fixture.codex.listThreads({ archived: true }));
    assert.deepEqual(
      archived.map((thread) => thread.id),
      [beta],
    );

    const back = await fixture.codex.unarchiveThread(beta as string, options);
    assert.equal(back.id, beta);
    assert.equal((await back.run("what was it?")).finalResponse, "again");
    assert.match(lastRequestText(fixture), /remember beta/, "the history went with the turn");
    const all = await collect(fixture.codex.listThreads({ cwd: fixture.workdir }));
    assert.equal(all.length, 3);
  });

  it("read() gives each turn's input and items; setName titles it; a fork can stop at a turn", async () => {
    const fixture = await fixtureOf("app-server", [
      reply("The first answer."),
      reply("The second answer."),
      reply("Forked on."),
    ]);
    const options = { workingDirectory: fixture.workdir, skipGitRepoCheck: true };
    const thread = fixture.codex.startThread(options);
    await thread.run("question one");
    await thread.run("question two");
    const { thread: saved, turns } = await thread.read({ includeTurns: true });
    assert.equal(saved.id, thread.id);
    assert.equal(turns?.length, 2);
    assert.deepEqual(turns?.[0]?.input, [{ type: "text", text: "question one" }]);
    assert.equal(turns?.[0]?.status, "completed");
    const answer = turns?.[1]?.items.find((item) => item.type === "agent_message");
    assert.ok(answer?.type === "agent_message");
    assert.equal(answer.text, "The second answer.");
    assert.equal((await thread.read()).turns, undefined, "turns only when asked");

    await thread.setName("Two questions");
    assert.equal((await thread.read()).thread.name, "Two questions");
    const [listed] = await collect(fixture.codex.listThreads({ cwd: fixture.workdir, limit: 1 }));
    assert.equal(listed?.name, "Two questions");

    const fork = await fixture.codex.forkThread(thread.id as string, {
      ...options,
      lastTurnId: turns?.[0]?.id as string,
    });
    assert.notEqual(fork.id, thread.id);
    await fork.run("and then?");
    const sent = lastRequestText(fixture);
    assert.match(sent, /question one/);
    assert.doesNotMatch(sent, /question two/, "the fork stops after the first turn");
  });

  it("thread options: instructions reach the model, an ephemeral thread is never listed; exec refuses them", async () => {
    const fixture = await fixtureOf("app-server", [reply("ok"), reply("ok")]);
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
      baseInstructions: "BASE-INSTRUCTIONS-7",
      developerInstructions: "DEVELOPER-INSTRUCTIONS-7",
      modelProvider: fixture.model.providerId,
    });
    await thread.run("hello");
    const sent = lastRequestText(fixture);
    assert.match(sent, /BASE-INSTRUCTIONS-7/);
    assert.match(sent, /DEVELOPER-INSTRUCTIONS-7/);

    const ephemeral = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
      ephemeral: true,
    });
    await ephemeral.run("hello again");
    const listed = await collect(fixture.codex.listThreads({ cwd: fixture.workdir }));
    assert.deepEqual(
      listed.map((saved) => saved.id),
      [thread.id],
      "the ephemeral thread is not saved",
    );

    const exec = await fixtureOf("exec", []);
    await assert.rejects(
      exec.codex.startThread({ skipGitRepoCheck: true, developerInstructions: "x" }).run("hello"),
      { code: "unsupported_option", message: /developerInstructions need the app-server/ },
    );
  });

  it("metadata() says which codex answers; models() lists what it offers", async () => {
    const fixture = await fixtureOf("app-server", []);
    const metadata = await fixture.codex.metadata();
    assert.match(metadata.userAgent, /\/\d+\.\d+\.\d+/, metadata.userAgent);
    const models = await fixture.codex.models();
    assert.ok(models.length > 0, "codex offers models");
    assert.ok(models.every((model) => typeof model.id === "string"));
  });

  it("bad input is one clear error", async () => {
    const fixture = await fixtureOf("app-server", []);
    const fresh = fixture.codex.startThread({ skipGitRepoCheck: true });
    await assert.rejects(fresh.read(), { code: "no_thread" });
    await assert.rejects(fresh.setName("x"), { code: "no_thread" });
    await assert.rejects(
      fixture.codex.resumeThread("01a00000-0000-7000-8000-000000000000").setName(" "),
      { code: "invalid_input" },
    );
    await assert.rejects(
      fixture.codex.forkThread("01a00000-0000-7000-8000-000000000000", {
        lastTurnId: "a",
        beforeTurnId: "b",
      }),
      { code: "invalid_option" },
    );
    await assert.rejects(collect(fixture.codex.listThreads({ limit: -1 })), (error) => {
      assert.ok(error instanceof CodexHarnessError);
      assert.equal(error.code, "invalid_option");
      return true;
    });
    const stopped = new AbortController();
    stopped.abort(new Error("enough"));
    await assert.rejects(collect(fixture.codex.listThreads({ signal: stopped.signal })), /enough/);
  });
});
