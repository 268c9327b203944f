import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse } from "smol-toml";
import {
  mergeConfig,
  renderConfigToml,
  toConfigOverrides,
} from "../../src/app-server/codex-config.js";
import { CodexHarnessError } from "../../src/errors.js";

/** smol-toml's tables have no prototype; compare them as plain JSON. */
const readBack = (toml: string): unknown => JSON.parse(JSON.stringify(parse(toml)));

const invalidConfig = (pattern: RegExp) => (error: unknown) =>
  error instanceof CodexHarnessError &&
  error.code === "invalid_config" &&
  pattern.test(error.message);

describe("toConfigOverrides", () => {
  it("flattens tables into dotted keys with TOML literals", () => {
    assert.deepEqual(
      toConfigOverrides({
        model: "gpt-5",
        sandbox_workspace_write: { network_access: true },
        model_providers: { local: { request_max_retries: 0, args: ["a", 'b"c'] } },
        skipped: undefined,
        removed: null,
      }),
      [
        'model="gpt-5"',
        "sandbox_workspace_write.network_access=true",
        "model_providers.local.request_max_retries=0",
        'model_providers.local.args=[ "a", "b\\"c" ]',
      ],
    );
  });

  it("escapes newlines and keeps unicode in string values", () => {
    assert.deepEqual(toConfigOverrides({ s: "x\ny ✓", n: 1.5 }), ['s="x\\ny ✓"', "n=1.5"]);
  });

  it("refuses keys codex cannot read in a -c path, and arrays of tables", () => {
    assert.throws(
      () => toConfigOverrides({ "a.b": 1 }),
      invalidConfig(/"a\.b" cannot be a codex -c override/),
    );
    assert.throws(
      () => toConfigOverrides({ servers: [{ name: "x" }] }),
      invalidConfig(/write config\.toml instead/),
    );
  });

  it("refuses values TOML cannot hold, naming the key", () => {
    assert.throws(() => toConfigOverrides({ a: { b: Number.NaN } }), invalidConfig(/"a\.b"/));
    assert.throws(() => toConfigOverrides({ big: 2 ** 60 }), invalidConfig(/too large/));
    assert.throws(() => toConfigOverrides({ s: "\uD800" }), invalidConfig(/lone surrogate/));
  });
});

describe("renderConfigToml", () => {
  it("writes a document smol-toml reads back identically, root keys before sections", () => {
    const config = {
      a: 'x"y\\z\n\u007f ✓',
      n: 3,
      b: true,
      list: ["p", "q"],
      t: { "odd key": "v", "a.b": 1, nested: { deep: 1.5 } },
      z: "last root key",
    };
    const toml = renderConfigToml(config);
    assert.deepEqual(readBack(toml), config);
    assert.ok(toml.indexOf('z = "last root key"') < toml.indexOf("[t]"), toml);
    assert.ok(toml.endsWith("\n"));
  });

  it("leaves out undefined and null entries and refuses NaN", () => {
    assert.deepEqual(readBack(renderConfigToml({ a: 1, b: undefined, c: null })), { a: 1 });
    assert.throws(
      () => renderConfigToml({ x: Number.NaN }),
      invalidConfig(/"x" cannot be written as TOML/),
    );
  });
});

describe("mergeConfig", () => {
  it("merges tables deeply, replaces other values, and removes null keys", () => {
    const base = { a: 1, t: { x: 1, y: 2 }, list: [1, 2], keep: "k" };
    assert.deepEqual(
      mergeConfig(base, { a: 2, t: { y: 3, z: 4 }, list: [3], keep: undefined, b: null }),
      {
        a: 2,
        t: { x: 1, y: 3, z: 4 },
        list: [3],
        keep: "k",
      },
    );
    assert.deepEqual(mergeConfig({ t: { x: 1 } }, { t: null }), {});
    assert.deepEqual(base.t, { x: 1, y: 2 }, "inputs are not mutated");
  });
});
