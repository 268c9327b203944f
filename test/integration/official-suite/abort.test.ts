// Port of @openai/codex-sdk's tests/abort.test.ts, once per variant (see run.test.ts). The
// official tests expect a rejection (`rejects.toThrow()`); the error @openai/codex-sdk gives is
// an AbortError (name "AbortError", code "ABORT_ERR"), and so must a drop-in's.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { execCommand, type ScriptStep } from "../../../src/testing/script.js";
import { assistantMessage, useGitRepoAsCwd, VARIANTS, withCodex } from "./support.js";

let restoreCwd: (() => void) | undefined;
before(() => {
  restoreCwd = useGitRepoAsCwd();
});
after(() => restoreCwd?.());

/**
 * The official `infiniteShellCall()`: every response asks to run a command again. Here it ends
 * after eight commands with a reply, so that a turn whose abort is ignored ends soon, on its own.
 */
function infiniteShellCall(): ScriptStep[] {
  const calls = Array.from({ length: 8 }, () => execCommand("echo 'Hello, world!'"));
  return [...calls, assistantMessage("Not aborted")];
}

function isAbortError(error: unknown): true {
  assert.ok(error instanceof Error, `an Error, got ${String(error)}`);
  assert.equal(error.name, "AbortError", `name of ${error.stack}`);
  assert.equal((error as { code?: unknown }).code, "ABORT_ERR", `code of ${error.stack}`);
  return true;
}

describe("AbortSignal support (official abort.test.ts)", { concurrency: VARIANTS.length }, () => {
  for (const variant of VARIANTS) {
    describe(variant.name, () => {
      it("aborts run() when signal is aborted", () =>
        withCodex(variant, infiniteShellCall(), async ({ client }) => {
          const thread = client().startThread();

          // Create an abort controller and abort it immediately
          const controller = new AbortController();
          controller.abort("Test abort");

          // The operation should fail because the signal is already aborted
          await assert.rejects(
            thread.run("Hello, world!", { signal: controller.signal }),
            isAbortError,
          );
        }));

      it("aborts runStreamed() when signal is aborted", () =>
        withCodex(variant, infiniteShellCall(), async ({ client }) => {
          const thread = client().startThread();

          const controller = new AbortController();
          controller.abort("Test abort");

          const { events } = await thread.runStreamed("Hello, world!", {
            signal: controller.signal,
          });

          // Attempting to iterate should fail before any event
          let iterationStarted = false;
          await assert.rejects(async () => {
            for await (const event of events) {
              iterationStarted = true;
              assert.equal(event, undefined, "no event before the abort error");
            }
          }, isAbortError);
          assert.equal(iterationStarted, false);
        }));

      it("aborts run() when signal is aborted during execution", () =>
        withCodex(variant, infiniteShellCall(), async ({ client }) => {
          const thread = client().startThread();
          const controller = new AbortController();

          const runPromise = thread.run("Hello, world!", { signal: controller.signal });
          // Abort after a tiny delay to simulate aborting during execution
          setTimeout(() => controller.abort("Aborted during execution"), 10);

          await assert.rejects(runPromise, isAbortError);
        }));

      it("aborts runStreamed() when signal is aborted during iteration", () =>
        withCodex(variant, infiniteShellCall(), async ({ client }) => {
          const thread = client().startThread();
          const controller = new AbortController();

          const { events } = await thread.runStreamed("Hello, world!", {
            signal: controller.signal,
          });

          let eventCount = 0;
          await assert.rejects(async () => {
            for await (const event of events) {
              void event;
              eventCount++;
              // Abort after the fifth event; iterating on must end in the abort error
              if (eventCount === 5) controller.abort("Aborted during iteration");
            }
          }, isAbortError);
          assert.ok(eventCount >= 5, `${eventCount} events before the abort`);
        }));

      it("completes normally when signal is not aborted", () =>
        withCodex(variant, [assistantMessage("Hi!")], async ({ client }) => {
          const thread = client().startThread();
          const controller = new AbortController();

          // Don't abort - should complete successfully
          const result = await thread.run("Hello, world!", { signal: controller.signal });

          assert.equal(result.finalResponse, "Hi!");
          assert.equal(result.items.length, 1);
        }));
    });
  }
});
