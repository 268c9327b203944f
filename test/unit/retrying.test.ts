// isRetryableError() sorts errors into worth-another-try or not; retryOnOverload() tries again
// only after those, with backoff, up to its limit, and stops when its signal aborts.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CodexHarnessError } from "../../src/errors.js";
import { isRetryableError, retryOnOverload } from "../../src/retrying.js";
import {
  MethodNotSupportedError,
  OverloadedError,
  RemoteDisconnectedError,
  RpcLocalError,
  RpcWireError,
} from "../../src/rpc/errors.js";
import { TurnFailedError } from "../../src/turns/run-result.js";

const failed = (reason: unknown) =>
  new TurnFailedError(
    { items: [], finalResponse: "", usage: null },
    { message: "failed", codex_error_info: reason as never },
  );

describe("retrying", () => {
  it("isRetryableError: overloads, transient turn failures and dropped remotes only", () => {
    const retryable = [
      new OverloadedError({ code: -32001, message: "busy" }, "turn/start"),
      new RpcWireError({ code: -32001, message: "busy" }),
      new RemoteDisconnectedError("ws://box:4500", "the connection dropped", 1006),
      failed("serverOverloaded"),
      failed("internalServerError"),
      failed({ responseStreamDisconnected: { httpStatusCode: null } }),
      failed({ httpConnectionFailed: { httpStatusCode: 502 } }),
    ];
    for (const error of retryable) assert.equal(isRetryableError(error), true, String(error));
    const final = [
      new RpcWireError({ code: -32601, message: "no such method" }, "x/y"),
      new MethodNotSupportedError({ code: -32601, message: "no" }, "x/y", "0.1.0"),
      new RpcWireError({ code: -32602, message: "bad params" }, "turn/start"),
      new RpcLocalError("timeout", "no answer"),
      new CodexHarnessError("invalid_input", "empty prompt"),
      failed("contextWindowExceeded"),
      failed("usageLimitExceeded"),
      failed("rateLimitExceeded"),
      failed(null),
      new Error("anything else"),
      "a string",
    ];
    for (const error of final) assert.equal(isRetryableError(error), false, String(error));
  });

  it("retryOnOverload: tries again after retryable errors, up to maxRetries, with backoff", async () => {
    const busy = new OverloadedError({ code: -32001, message: "busy" });
    let calls = 0;
    const started = Date.now();
    const value = await retryOnOverload(
      async (attempt) => {
        calls++;
        if (attempt < 2) throw busy;
        return "done";
      },
      { initialDelayMs: 20 },
    );
    assert.equal(value, "done");
    assert.equal(calls, 3);
    assert.ok(Date.now() - started >= 10 + 20, "waited between tries");

    calls = 0;
    await assert.rejects(
      retryOnOverload(
        async () => {
          calls++;
          throw busy;
        },
        { maxRetries: 2, initialDelayMs: 1 },
      ),
      busy,
    );
    assert.equal(calls, 3, "the first try and two retries");

    calls = 0;
    const bad = new RpcWireError({ code: -32602, message: "bad params" });
    await assert.rejects(
      retryOnOverload(async () => {
        calls++;
        throw bad;
      }),
      bad,
    );
    assert.equal(calls, 1, "not retryable: rejected at once");
  });

  it("retryOnOverload: an aborted signal ends the wait with its reason", async () => {
    const controller = new AbortController();
    const reason = new Error("stop");
    setTimeout(() => controller.abort(reason), 30);
    const started = Date.now();
    await assert.rejects(
      retryOnOverload(
        async () => {
          throw new OverloadedError({ code: -32001, message: "busy" });
        },
        { initialDelayMs: 10_000, signal: controller.signal },
      ),
      reason,
    );
    assert.ok(Date.now() - started < 2_000, "did not wait out the backoff");
  });
});
