// codex.searchThreads on the real codex (0.171.0's thread/search/stream) with a ScriptedModel: the
// threads whose conversation says the words, page by page, and the cancel codex gets when a search
// is abandoned. (codex sends provisional `thread/search/partial` lists only for larger histories —
// about 50 threads in our runs — so their handling is tested in test/unit/thread-search.test.ts.)
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { AppServerClient } from "../../src/app-server/client.js";
import { reply } from "../../src/testing/script.js";
import type { ThreadSearchUpdate } from "../../src/thread-search.js";
import { type CodexApiFixture, startCodexApi } from "../support/codex-api-fixture.js";

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** Records the methods the client sends from now on. */
function sentMethods(client: AppServerClient): string[] {
  const sent: string[] = [];
  const request = client.request.bind(client);
  client.request = ((method: string, ...args: unknown[]) => {
    sent.push(method);
    return (request as (m: string, ...a: unknown[]) => Promise<unknown>)(method, ...args);
  }) as AppServerClient["request"];
  return sent;
}

describe("codex.searchThreads (real codex, ScriptedModel)", () => {
  let fixture: CodexApiFixture;
  const ids: string[] = [];
  after(() => fixture?.close());

  it("finds the threads whose conversation says the words, page by page", async () => {
    fixture = await startCodexApi("app-server", [
      reply("Zebras have stripes."),
      reply("Giraffes are tall."),
      reply("Zebras run fast."),
    ]);
    for (const question of ["first fact", "second fact", "third fact"]) {
      // codex 0.171.0 pages a search by the creation second and the id, and its next page misses
      // threads created in the same second as the last one (thread/search as well): a second apart.
      if (ids.length > 0) await new Promise((resolve) => setTimeout(resolve, 1_100));
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      await thread.run(question);
      ids.push(thread.id as string);
    }
    const [zebra1, , zebra2] = ids;
    const updates = await collect(fixture.codex.searchThreads("zebras"));
    const last = updates.at(-1) as ThreadSearchUpdate & { final: true };
    assert.equal(last.final, true, "the last update is the final page");
    assert.deepEqual(last.results.map((r) => r.thread.id).sort(), [zebra1, zebra2].sort());
    assert.ok(
      last.results.every((r) => /zebras/i.test(r.snippet)),
      JSON.stringify(last.results),
    );
    // One result per page: the cursor brings the other.
    const [page1] = (await collect(fixture.codex.searchThreads("zebras", { pageSize: 1 }))).slice(
      -1,
    ) as (ThreadSearchUpdate & { final: true })[];
    assert.equal(page1?.results.length, 1);
    assert.ok(page1?.nextCursor);
    const [page2] = (
      await collect(
        fixture.codex.searchThreads("zebras", { pageSize: 1, cursor: page1?.nextCursor as string }),
      )
    ).slice(-1) as (ThreadSearchUpdate & { final: true })[];
    assert.deepEqual(
      [page1?.results[0]?.thread.id, page2?.results[0]?.thread.id].sort(),
      [zebra1, zebra2].sort(),
    );
    const none = await collect(fixture.codex.searchThreads("okapis"));
    assert.deepEqual(none, [{ final: true, results: [], nextCursor: null, backwardsCursor: null }]);
  });

  it("an aborted search ends with the signal's reason and is cancelled in codex, which goes on", async () => {
    const client = await fixture.codex.appServer.client();
    const sent = sentMethods(client);
    const controller = new AbortController();
    const search = fixture.codex.searchThreads("zebras", { signal: controller.signal });
    const first = search.next(); // sends the request
    await new Promise((resolve) => setImmediate(resolve));
    const reason = new Error("the user typed on");
    controller.abort(reason);
    await assert.rejects(first, (error) => error === reason);
    assert.deepEqual(sent, ["thread/search/stream", "thread/search/stream/cancel"]);
    // A search run to its end cancels nothing; codex answers the next one as before.
    const again = await collect(fixture.codex.searchThreads("giraffes"));
    assert.deepEqual(
      again.at(-1)?.results.map((r) => r.thread.id),
      [ids[1]],
    );
    assert.equal(sent.filter((m) => m === "thread/search/stream/cancel").length, 1);
  });
});
