// Images given by URL on the real codex (ScriptedModel): codex 0.169.0 refuses them; under
// `remoteImages: "fetch"` they are fetched here and reach the model inline, on both transports.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, afterEach, before, describe, it } from "node:test";
import { CodexHarnessError } from "../../src/errors.js";
import { inputItems, type RecordedRequest } from "../../src/testing/recorded.js";
import { reply, response } from "../../src/testing/script.js";
import type { UserInput } from "../../src/turns/options.js";
import { RemoteImageError } from "../../src/turns/remote-images.js";
import { TurnAbortedError } from "../../src/turns/run-result.js";
import {
  type CodexApiFixture,
  startCodexApi,
  type TransportKind,
} from "../support/codex-api-fixture.js";
import { eventually } from "../support/eventually.js";
import { ImageServer, PNG } from "../support/image-server.js";

let fixture: CodexApiFixture | undefined;
let images: ImageServer;

before(async () => {
  images = await ImageServer.start();
});
after(() => images.close());
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const PNG_DATA_URL = `data:image/png;base64,${PNG.toString("base64")}`;

/** The image URLs of the last user message of a model request (`input_image.image_url`). */
function userImageUrls(request: RecordedRequest | undefined): string[] {
  assert.ok(request, "a model request");
  const content = inputItems(request)
    .filter((item) => item.role === "user")
    .at(-1)?.content as Array<{ type: string; image_url?: string }> | undefined;
  return (content ?? []).flatMap((part) =>
    part.type === "input_image" && part.image_url !== undefined ? [part.image_url] : [],
  );
}

const prompt = (url: string): UserInput[] => [
  { type: "text", text: "Describe the remote image." },
  { type: "image", url },
];

for (const transport of ["app-server", "exec"] as const satisfies TransportKind[]) {
  describe(`images given by URL over ${transport} (real codex, ScriptedModel)`, () => {
    it('remoteImages: "fetch": the image reaches the model inline, as a data: URL of its bytes', async () => {
      fixture = await startCodexApi(transport, [reply("remote image received")], {
        codex: { remoteImages: "fetch" },
      });
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      // Redirected first, as image hosts often do.
      const result = await thread.run(prompt(images.url("/redirect")));
      assert.equal(result.finalResponse, "remote image received");
      assert.deepEqual(userImageUrls(fixture.model.lastRequest), [PNG_DATA_URL]);
      assert.ok(fixture.model.userTexts().includes("Describe the remote image."));
      if (transport === "exec") {
        // exec took it as a file (codex labels it with its path), removed once the turn ended.
        const file = /<image name=\[Image #1\] path="([^"]+)">/.exec(
          fixture.model.userTexts().join("\n"),
        )?.[1];
        assert.ok(file, "codex's label names the file");
        assert.equal(existsSync(file), false, "the file is gone");
      }
    });

    it("an abort while fetching ends the turn as an abort before codex started it", async () => {
      fixture = await startCodexApi(transport, [reply("never")], {
        codex: { remoteImages: "fetch" },
      });
      const thread = fixture.codex.startThread({
        workingDirectory: fixture.workdir,
        skipGitRepoCheck: true,
      });
      const controller = new AbortController();
      const before = images.requested("/hang.png");
      const running = thread.run(prompt(images.url("/hang.png")), { signal: controller.signal });
      await eventually("the fetch started", () => images.requested("/hang.png") > before);
      controller.abort();
      await assert.rejects(running, (error) => {
        assert.ok(error instanceof TurnAbortedError);
        assert.match(error.message, /before codex started it/);
        return true;
      });
      assert.equal(fixture.model.modelRequests.length, 0, "the model was never asked");
    });
  });
}

describe("images given by URL in steer() (real codex app-server)", () => {
  it('remoteImages: "fetch": the image steered in reaches the model inline', async () => {
    fixture = await startCodexApi(
      "app-server",
      [response([reply("too slow")], { delayMs: 3_000 }), reply("Steered.")],
      { codex: { remoteImages: "fetch" } },
    );
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    const turn = await thread.turn("start something");
    await fixture.model.waitForRequest(1, { timeoutMs: 20_000 });
    await turn.steer(prompt(images.url("/pixel.png")));
    assert.equal((await turn.result()).finalResponse, "Steered.");
    assert.deepEqual(userImageUrls(fixture.model.lastRequest), [PNG_DATA_URL]);
  });
});

describe("images given by URL: the default, and a refused fetch (real codex)", () => {
  it('default ("pass"): codex answers for itself — app-server refuses, exec says how to send it', async () => {
    fixture = await startCodexApi("app-server", []);
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    await assert.rejects(thread.run(prompt(images.url("/pixel.png"))), (error: unknown) => {
      assert.match((error as Error).message, /remote image URLs are not supported/);
      return true;
    });
    await fixture.close();
    fixture = await startCodexApi("exec", []);
    const onExec = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    await assert.rejects(
      onExec.run(prompt(images.url("/pixel.png"))),
      (error: unknown) =>
        error instanceof CodexHarnessError &&
        error.code === "unsupported_input" &&
        /remoteImages: "fetch"/.test(error.message),
    );
  });

  it("a fetch the thread's limits refuse: RemoteImageError, codex not asked, the thread goes on", async () => {
    fixture = await startCodexApi("app-server", [reply("fine")], {
      codex: { remoteImages: "fetch" },
    });
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
      // The thread's own limits win over the Codex's "fetch".
      remoteImages: { maxBytes: 10 },
    });
    await assert.rejects(thread.run(prompt(images.url("/pixel.png"))), (error: unknown) => {
      assert.ok(error instanceof RemoteImageError);
      assert.equal(error.code, "remote_image_failed");
      assert.equal(error.reason, "too_large");
      assert.match(error.message, /more than remoteImages\.maxBytes \(10 bytes\): raise maxBytes/);
      return true;
    });
    assert.equal(thread.id, null, "no thread was started");
    assert.equal(fixture.model.modelRequests.length, 0);
    assert.equal((await thread.run("Still there?")).finalResponse, "fine");
  });
});
