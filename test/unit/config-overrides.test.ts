import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toConfigOverrides } from "../../src/app-server/config-overrides.js";
import { CodexHarnessError } from "../../src/errors.js";

describe("toConfigOverrides", () => {
  it("flattens tables into dotted keys with TOML literals", () => {
    assert.deepEqual(
      toConfigOverrides({
        model: "gpt-5",
        sandbox_workspace_write: { network_access: true },
        model_providers: { "my.provider": { request_max_retries: 0, args: ["a", 'b"c'] } },
        skipped: undefined,
      }),
      [
        'model="gpt-5"',
        "sandbox_workspace_write.network_access=true",
        'model_providers."my.provider".request_max_retries=0',
        'model_providers."my.provider".args=["a", "b\\"c"]',
      ],
    );
  });

  it("renders tables inside arrays inline and escapes newlines and unicode safely", () => {
    assert.deepEqual(toConfigOverrides({ list: [{ name: "x\ny", n: 1.5 }], s: "✓" }), [
      'list=[{name = "x\\ny", n = 1.5}]',
      's="✓"',
    ]);
  });

  it("rejects values TOML cannot hold with an error naming the key", () => {
    assert.throws(
      () => toConfigOverrides({ a: { b: Number.NaN } }),
      (error: unknown) =>
        error instanceof CodexHarnessError &&
        error.code === "invalid_config" &&
        error.message.includes("a.b"),
    );
    assert.throws(
      () => toConfigOverrides({ a: null as unknown as string }),
      (error: unknown) => error instanceof CodexHarnessError && error.message.includes("null"),
    );
  });
});
