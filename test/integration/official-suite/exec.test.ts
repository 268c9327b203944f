// Port of @openai/codex-sdk's tests/exec.test.ts, once per variant (see run.test.ts). The official
// tests drive the internal CodexExec class with a mocked child_process.spawn; here the public API
// runs a real process (the pinned codex behind the spy, or a stand-in script) and the same
// expectations are checked on what was started and what reached the model.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import {
  anyString,
  assistantMessage,
  assistantText,
  codexGone,
  runChildProgram,
  settleWithin,
  useGitRepoAsCwd,
  VARIANTS,
  withCodex,
} from "./support.js";

let restoreCwd: (() => void) | undefined;
before(() => {
  restoreCwd = useGitRepoAsCwd();
});
after(() => restoreCwd?.());

describe("CodexExec (official exec.test.ts)", { concurrency: VARIANTS.length }, () => {
  for (const variant of VARIANTS) {
    describe(variant.name, () => {
      it("rejects when exit happens before stdout closes", () =>
        withCodex(variant, [], async (t) => {
          // The official fake child writes "boom" to stderr and exits 2 before stdout closes. This
          // one first reads a line of its input, so that writing the prompt cannot fail (EPIPE).
          const fakeCodex = path.join(t.root, "codex-early-exit");
          const script = "#!/bin/sh\nread -r line\necho boom >&2\nexit 2\n";
          writeFileSync(fakeCodex, script, { mode: 0o755 });
          const codex = t.client({ codexPathOverride: fakeCodex });

          // The official race is 500 ms against a fake child; a real process gets 2 s.
          const result = await settleWithin(codex.startThread().run("hi"), 2000);

          assert.equal(result.status, "rejected");
          if (result.status === "rejected") {
            assert.ok(result.error instanceof Error);
            // Deliberate difference (README): on app-server the error names the app-server, which
            // is what exited; "Codex Exec" would point the user at a process that never ran.
            assert.match(
              result.error.message,
              variant.name === "app-server" ? /app-server exited/ : /Codex Exec exited/,
            );
          }
        }));

      it("places resume args before image args", () =>
        withCodex(
          variant,
          [assistantMessage("First response"), assistantMessage("Image seen")],
          async (t) => {
            // The official test resumes a made-up thread id; a real codex needs a real one.
            const codex = t.client();
            const thread = codex.startThread();
            await thread.run("first input");
            const image = path.join(t.root, "img.png");
            writeFileSync(image, "image-0");
            await codex.resumeThread(anyString(thread.id, "thread.id")).run([
              { type: "text", text: "hi" },
              { type: "local_image", path: image },
            ]);

            // The resumed turn carries the earlier history and the image.
            const payload = t.requests()[1];
            assert.equal(assistantText(payload), "First response");
            const texts = payload?.input.at(-1)?.content?.map((part) => part.text) ?? [];
            assert.ok(texts.includes(`<image name=[Image #1] path="${image}">`), String(texts));
            assert.ok(texts.includes("hi"), String(texts));
            if (variant.spawnsExec) {
              const commandArgs = t.spy.execArgs()[1] ?? [];
              const resumeIndex = commandArgs.indexOf("resume");
              const imageIndex = commandArgs.indexOf("--image");
              assert.ok(resumeIndex > -1, "resume given");
              assert.ok(imageIndex > -1, "--image given");
              assert.ok(resumeIndex < imageIndex, JSON.stringify(commandArgs));
            }
          },
        ));

      it("allows overriding the env passed to the Codex CLI", () =>
        withCodex(variant, [assistantMessage("Custom env")], async (t) => {
          // The official test sets CODEX_ENV_SHOULD_NOT_LEAK in its own process.env; here it is
          // in the environment of a child process that runs the program.
          const outcome = await runChildProgram(
            {
              variant: variant.name,
              options: {
                codexPathOverride: t.spy.path,
                baseUrl: t.model.url,
                apiKey: "test",
                env: { ...t.env, CUSTOM_ENV: "custom" },
              },
              input: "custom env",
              close: true,
            },
            { CODEX_ENV_SHOULD_NOT_LEAK: "leak" },
            30_000,
          );
          assert.equal(outcome.code, 0, outcome.stderr);

          const spawned = t.spy.calls()[0];
          assert.ok(spawned, "codex was started");
          const spawnEnv = spawned.env;
          assert.equal(spawnEnv.CODEX_HOME, t.codexHome);
          assert.equal(spawnEnv.CUSTOM_ENV, "custom");
          assert.equal(spawnEnv.CODEX_ENV_SHOULD_NOT_LEAK, undefined);
          // What apiKey, baseUrl and the originator do: the model is reached, authenticated.
          const request = t.model.modelRequests[0];
          assert.ok(request, "the model at baseUrl got the turn");
          assert.equal(request.headers.authorization, "Bearer test");
          assert.equal(request.headers.originator, variant.originator);
          if (variant.spawnsExec) {
            assert.equal(spawnEnv.CODEX_API_KEY, "test");
            assert.notEqual(spawnEnv.CODEX_INTERNAL_ORIGINATOR_OVERRIDE, undefined);
            assert.ok(spawned.argv.includes("--config"));
            assert.ok(spawned.argv.includes(`openai_base_url=${JSON.stringify(t.model.url)}`));
          }
        }));
    });
  }
});

// Not an official test, but every official test relies on it: jest ends once the tests are done,
// and none of them calls a close() (@openai/codex-sdk has none).
describe("A program written for @openai/codex-sdk exits without close()", {
  concurrency: VARIANTS.length,
}, () => {
  for (const variant of VARIANTS) {
    it(variant.name, () =>
      withCodex(variant, [assistantMessage("Done")], async (t) => {
        const outcome = await runChildProgram(
          {
            variant: variant.name,
            options: {
              codexPathOverride: t.spy.path,
              baseUrl: t.model.url,
              apiKey: "test",
              env: t.env,
            },
            input: "one turn",
            close: false,
          },
          {},
          10_000,
        );
        assert.notEqual(outcome.code, null, `still running after 10 s: ${outcome.stdout}`);
        assert.equal(outcome.code, 0, outcome.stderr);
        assert.equal(JSON.parse(outcome.stdout).finalResponse, "Done");
        // codex sees its stdin close when the program exits, and ends: none outlives it.
        assert.deepEqual(
          await codexGone(t.env.CODEX_HOME ?? "", 5_000),
          [],
          "codex outlived the program",
        );
      }),
    );
  }
});
