// retryOnOverload() and isRetryableError() on the real codex (ScriptedModel): a turn the model's
// server failed is tried again and succeeds; a request the model refuses as bad is not retried.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isRetryableError, retryOnOverload } from "../../src/retrying.js";
import { httpError, reply } from "../../src/testing/script.js";
import { TurnFailedError } from "../../src/turns/run-result.js";
import { fixturesClosedAfterAll } from "../support/codex-api-fixture.js";

const fixtureOf = fixturesClosedAfterAll();

describe("retrying turns (real codex, ScriptedModel)", () => {
  it("a turn the model's server failed (500) is retryable, and the retry succeeds", async () => {
    const fixture = await fixtureOf("app-server", [httpError(500), reply("The second try.")]);
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    const failures: unknown[] = [];
    const result = await retryOnOverload(
      async () => {
        try {
          return await thread.run("try twice");
        } catch (error) {
          failures.push(error);
          throw error;
        }
      },
      { initialDelayMs: 10 },
    );
    assert.equal(result.finalResponse, "The second try.");
    assert.equal(failures.length, 1);
    const [failure] = failures;
    assert.ok(failure instanceof TurnFailedError, String(failure));
    assert.ok(isRetryableError(failure), `retryable: ${JSON.stringify(failure.codexErrorInfo)}`);
  });

  it("a request the model's server refuses as bad (400) is not retried", async () => {
    const fixture = await fixtureOf("app-server", [
      httpError(400, { message: "bad request" }),
      reply("never"),
    ]);
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    let attempts = 0;
    await assert.rejects(
      retryOnOverload(
        () => {
          attempts++;
          return thread.run("once");
        },
        { initialDelayMs: 10 },
      ),
      (error) => error instanceof TurnFailedError && !isRetryableError(error),
    );
    assert.equal(attempts, 1);
  });
});
