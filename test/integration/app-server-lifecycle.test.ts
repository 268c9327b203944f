import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { AppServerClient } from "../../src/app-server/client.js";
import { RpcLocalError } from "../../src/rpc/errors.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { type CodexFixture, startCodex } from "../support/codex-fixture.js";
import { repoRoot } from "../support/paths.js";

let fixture: CodexFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe("app-server process lifecycle (real binary)", () => {
  it("passes config as -c overrides that codex applies", async () => {
    fixture = await startCodex([], {
      client: { config: { model: "override-model", tools: { view_image: false } } },
    });
    const { config } = await fixture.client.request("config/read", {});
    assert.equal(config.model, "override-model");
  });

  it("honours optOutNotificationMethods", async () => {
    fixture = await startCodex([], { client: { optOutNotificationMethods: ["thread/started"] } });
    await fixture.client.request("thread/start", { cwd: fixture.workdir });
    // A request after thread/start is answered after any notification thread/start caused.
    await fixture.client.request("model/list", {});
    assert.deepEqual(fixture.notifications.params("thread/started"), []);
  });

  it("closes in order: codex exits on stdin EOF with code 0, and later requests fail as closed", async () => {
    fixture = await startCodex();
    const started = Date.now();
    await fixture.client.close();
    const exit = await fixture.client.exited;
    assert.deepEqual(exit, { exitCode: 0, signal: null });
    assert.ok(Date.now() - started < 2_000, "stdin EOF was enough");
    await assert.rejects(
      fixture.client.request("model/list", {}),
      (error: unknown) => error instanceof RpcLocalError && error.code === "closed",
    );
  });

  it("escalates to SIGKILL when a process ignores stdin EOF and SIGTERM", async () => {
    const client = await AppServerClient.start({
      codexPathOverride: path.join(repoRoot, "test/fixtures/stubborn-server.mjs"),
      closeGraceMs: 150,
    });
    assert.equal(client.initializeResult.userAgent, "stubborn/0.0.0");
    const started = Date.now();
    await client.close();
    const exit = await client.exited;
    assert.equal(exit.signal, "SIGKILL");
    const took = Date.now() - started;
    assert.ok(took >= 300 && took < 2_000, `close took ${took} ms`);
  });

  it("answers a server request it has no handler for with an error, and the turn still ends", async () => {
    fixture = await startCodex([
      execCommand("echo unhandled > unhandled.txt", { escalated: true }),
      reply("Could not run it."),
    ]);
    const { thread } = await fixture.client.request("thread/start", { cwd: fixture.workdir });
    const { turn } = await fixture.client.request("turn/start", {
      threadId: thread.id,
      input: [{ type: "text", text: "try", text_elements: [] }],
    });
    const completed = await fixture.notifications.waitFor(
      "turn/completed",
      (params) => (params.turn as { id: string }).id === turn.id,
    );
    assert.ok(completed);
    const commands = fixture.notifications
      .params<{ item: { type: string; status: string } }>("item/completed")
      .filter((params) => params.item.type === "commandExecution");
    // codex 0.169.0 fails the command ("approval request failed") instead of running it.
    assert.equal(commands[0]?.item.status, "failed");
    assert.equal(existsSync(path.join(fixture.workdir, "unhandled.txt")), false);
    const models = await fixture.client.request("model/list", {});
    assert.ok(models.data.length > 0, "the connection keeps going");
  });
});

describe("methods this codex does not have (real binary)", () => {
  it("rejects with MethodNotSupportedError naming the codex version", async () => {
    fixture = await startCodex();
    // A method 0.169.0 does not know (typed calls cannot name one, so the type is bypassed).
    await assert.rejects(
      fixture.client.request("no/suchMethod" as never, {} as never),
      (error: unknown) => {
        assert.equal((error as Error).name, "MethodNotSupportedError");
        assert.match(
          (error as Error).message,
          /no\/suchMethod is not supported by this codex version \(\d+\.\d+\.\d+\)/,
        );
        assert.ok(!(error as Error).message.includes("expected one of"), "the long list is cut");
        return true;
      },
    );
  });
});
