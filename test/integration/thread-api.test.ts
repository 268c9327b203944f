import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { compareCodexVersions } from "../../src/app-server/codex-features.js";
import { rawOf } from "../../src/events/raw.js";
import type { ExtendedThreadItem } from "../../src/events/types.js";
import {
  applyPatch,
  execCommand,
  failure,
  reasoning,
  reply,
  response,
} from "../../src/testing/script.js";
import { TurnFailedError } from "../../src/turns/run-result.js";
import {
  type CodexApiFixture,
  collect,
  officialTypes,
  startCodexApi,
  type TransportKind,
} from "../support/codex-api-fixture.js";

let fixture: CodexApiFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output });

/** The items of one type, narrowed. */
function itemsOf<T extends ExtendedThreadItem["type"]>(items: ExtendedThreadItem[], type: T) {
  return items.filter(
    (item): item is Extract<ExtendedThreadItem, { type: T }> => item.type === type,
  );
}

for (const transport of ["app-server", "exec"] as const satisfies TransportKind[]) {
  describe(`Thread API over ${transport} (real codex, ScriptedModel)`, () => {
    it("runs a turn: final response, items, per-turn usage, events in order", async () => {
      fixture = await startCodexApi(transport, [
        response([reasoning("Thinking"), reply("Hello there.")], { usage: usage(30, 7) }),
      ]);
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      assert.equal(thread.id, null);
      const { events } = await thread.runStreamed("Say hello");
      const all = await collect(events);
      const types = officialTypes(all);
      assert.equal(types[0], "thread.started");
      assert.ok(types.includes("turn.started"));
      assert.equal(types.at(-1), "turn.completed");
      assert.match(thread.id ?? "", /\S/);
      const completed = all
        .filter((event) => event.type === "item.completed")
        .map((event) => event.item);
      assert.deepEqual(
        completed.filter((item) => item.type !== "error").map((item) => item.type),
        ["reasoning", "agent_message"],
      );
      const last = all.at(-1);
      assert.ok(last?.type === "turn.completed");
      assert.equal(last.usage.input_tokens, 30);
      assert.equal(last.usage.output_tokens, 7);
      assert.ok(rawOf(last) !== undefined, "the wire message stays reachable");
      assert.ok(!Object.keys(last).includes("raw"), "raw is not enumerable");
    });

    it("run() returns the official fields plus id, status, diff, plan, error", async () => {
      fixture = await startCodexApi(transport, [reply("Done.", { deltas: 2 })]);
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      const result = await thread.run("Do it");
      assert.equal(result.finalResponse, "Done.");
      assert.equal(result.status, "completed");
      assert.equal(result.error, null);
      assert.ok(result.usage && result.usage.input_tokens > 0);
      assert.deepEqual(
        itemsOf(result.items, "agent_message").map((item) => item.text),
        ["Done."],
      );
      if (transport === "app-server") assert.match(result.id ?? "", /\S/);
    });

    it("runs a command and applies a patch; their effects are on disk", async () => {
      fixture = await startCodexApi(transport, [
        execCommand("echo from-command > cmd.txt"),
        applyPatch("*** Add File: patch.txt\n+from patch"),
        reply("Both done."),
      ]);
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      const result = await thread.run("Make two files");
      assert.equal(readFileSync(path.join(fixture.workdir, "cmd.txt"), "utf8"), "from-command\n");
      assert.equal(readFileSync(path.join(fixture.workdir, "patch.txt"), "utf8"), "from patch\n");
      const [command] = itemsOf(result.items, "command_execution");
      assert.equal(command?.status, "completed");
      assert.equal(command?.exit_code, 0);
      assert.match(command?.command ?? "", /echo from-command/);
      const [change] = itemsOf(result.items, "file_change");
      assert.equal(change?.status, "completed");
      assert.deepEqual(
        change?.changes.map((c) => [path.basename(c.path), c.kind]),
        [["patch.txt", "add"]],
      );
      if (transport === "app-server") {
        assert.match(result.diff ?? "", /\+from patch/);
        assert.equal(command?.cwd, fixture.workdir);
        assert.equal(typeof command?.duration_ms, "number");
        assert.equal(change?.changes[0]?.diff, "from patch\n");
      }
    });

    it("continues a thread: same id, and the model sees the earlier turn", async () => {
      fixture = await startCodexApi(transport, [reply("First answer."), reply("Second answer.")]);
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      await thread.run("first question");
      const id = thread.id;
      const second = await thread.run("second question");
      assert.equal(thread.id, id);
      assert.equal(second.finalResponse, "Second answer.");
      const body = JSON.stringify(fixture.model.lastRequest?.body);
      assert.ok(body.includes("first question") && body.includes("First answer."));
    });

    it("resumes a thread by id from another Codex", async () => {
      fixture = await startCodexApi(transport, [reply("Remembered."), reply("Resumed.")]);
      const first = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      await first.run("remember the word banana");
      // Another process later: codex lets one app-server at a time write a thread.
      await fixture.codex.close();
      const resumed = fixture.another().resumeThread(first.id as string, {
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      assert.equal(resumed.id, first.id);
      const result = await resumed.run("what was the word?");
      assert.equal(result.finalResponse, "Resumed.");
      assert.ok(JSON.stringify(fixture.model.lastRequest?.body).includes("banana"));
    });

    it("rejects run() with TurnFailedError when the model fails; the stream ends with turn.failed", async () => {
      fixture = await startCodexApi(transport, [
        failure("the model broke"),
        failure("broke again"),
      ]);
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      await assert.rejects(thread.run("try"), (error: unknown) => {
        assert.ok(error instanceof TurnFailedError, String(error));
        assert.equal(error.code, "turn_failed");
        assert.match(error.message, /the model broke/);
        if (transport === "app-server") assert.equal(error.codexErrorInfo, "other");
        return true;
      });
      const { events } = await thread.runStreamed("try again");
      const all = await collect(events);
      assert.equal(all.at(-1)?.type, "turn.failed");
    });

    it("a policy refusal rejects with code turn_refused on app-server, in either events mode", async () => {
      const flagged = "This request has been flagged for potentially high-risk content.";
      fixture = await startCodexApi(transport, [
        failure(flagged, { code: "cyber_policy" }),
        failure(flagged, { code: "bio_policy" }),
        failure(flagged, { code: "bio_policy" }),
      ]);
      const options = { workingDirectory: fixture.workdir, skipGitRepoCheck: true };
      const codeOf = async (run: Promise<unknown>) => {
        let code: unknown;
        await assert.rejects(run, (error: unknown) => {
          assert.ok(error instanceof TurnFailedError, String(error));
          code = error.code;
          return true;
        });
        return code;
      };
      // codex exec says no reason for a failed turn: a refusal is a failure there.
      const refused = transport === "app-server" ? "turn_refused" : "turn_failed";
      assert.equal(await codeOf(fixture.codex.startThread(options).run("one")), refused);
      // bioPolicy is codex 0.171.0's; older releases report the same failure as "other".
      const version =
        transport === "app-server"
          ? (/\/(\d+\.\d+\.\d+)/.exec((await fixture.codex.metadata()).userAgent)?.[1] ?? "0.0.0")
          : "0.0.0";
      const bio = compareCodexVersions(version, "0.171.0") >= 0 ? refused : "turn_failed";
      const extended = fixture.codex.startThread(options);
      await assert.rejects(extended.run("two"), (error: unknown) => {
        assert.ok(error instanceof TurnFailedError);
        assert.equal(error.code, bio);
        if (bio === "turn_refused") assert.equal(error.codexErrorInfo, "bioPolicy");
        return true;
      });
      const official = fixture.codex.startThread({ ...options, events: "sdk" });
      assert.equal(await codeOf(official.run("three")), bio);
    });

    it("sends outputSchema to the model", async () => {
      const schema = {
        type: "object",
        properties: { answer: { type: "string" } },
        required: ["answer"],
        additionalProperties: false,
      };
      fixture = await startCodexApi(transport, [reply('{"answer":"42"}')]);
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      const result = await thread.run("answer as JSON", { outputSchema: schema });
      assert.deepEqual(JSON.parse(result.finalResponse), { answer: "42" });
      const body = fixture.model.lastRequest?.body as
        | { text?: { format?: { schema?: unknown } } }
        | undefined;
      const format = body?.text?.format;
      assert.deepEqual(format?.schema, schema);
    });

    it("sends a local image with the prompt", async () => {
      fixture = await startCodexApi(transport, [reply("A pixel.")]);
      const image = path.join(fixture.workdir, "pixel.png");
      writeFileSync(
        image,
        Buffer.from(
          "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
          "base64",
        ),
      );
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      await thread.run([
        { type: "text", text: "What is this?" },
        { type: "local_image", path: image },
      ]);
      const body = JSON.stringify(fixture.model.lastRequest?.body);
      assert.ok(body.includes("input_image"), "the model got an image");
      assert.ok(body.includes("What is this?"));
    });

    it("rejects bad input with a clear typed error and stays usable", async () => {
      fixture = await startCodexApi(transport, [reply("Still fine.")]);
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      const invalid = (pattern: RegExp) => (error: unknown) =>
        (error as { code?: string }).code === "invalid_input" &&
        pattern.test((error as Error).message);
      await assert.rejects(thread.run(""), invalid(/prompt is empty/));
      await assert.rejects(thread.run("   "), invalid(/prompt is empty/));
      await assert.rejects(
        thread.run([{ type: "local_image", path: "nope.png" }]),
        invalid(/nope\.png" does not exist/),
      );
      await assert.rejects(
        thread.run("x", { outputSchema: "not a schema" }),
        invalid(/outputSchema must be a JSON Schema object/),
      );
      assert.throws(
        () => fixture?.codex.startThread({ approvalPolicy: "untrusted" }),
        (error: unknown) => (error as { code?: string }).code === "unsupported_option",
      );
      assert.equal((await thread.run("hello")).finalResponse, "Still fine.");
      assert.equal(existsSync(path.join(fixture.workdir, "nope.png")), false);
    });

    it("rejects resuming a thread codex does not know, and stays usable", async () => {
      fixture = await startCodexApi(transport, [reply("Fresh thread works.")]);
      const unknown = fixture.codex.resumeThread("01a20000-0000-7000-8000-000000000000", {
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      await assert.rejects(unknown.run("hello?"), (error: unknown) => {
        assert.equal((error as { code?: string }).code, "thread_not_found");
        assert.match(
          (error as Error).message,
          /01a20000-0000-7000-8000-000000000000|no rollout|not found/i,
        );
        return true;
      });
      const fresh = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      assert.equal((await fresh.run("hi")).finalResponse, "Fresh thread works.");
    });

    it("rejects a turn whose signal is already aborted with an AbortError, without asking the model", async () => {
      fixture = await startCodexApi(transport, [reply("unused")]);
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      await assert.rejects(thread.run("never sent", { signal: AbortSignal.abort() }), {
        name: "AbortError",
        code: "ABORT_ERR",
      });
      assert.equal(fixture.model.modelRequests.length, 0);
    });

    it("rejects turns on a closed Codex", async () => {
      fixture = await startCodexApi(transport, []);
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      await fixture.codex.close();
      await assert.rejects(
        thread.run("hi"),
        (error: unknown) => (error as { code?: string }).code === "codex_closed",
      );
    });
  });
}
