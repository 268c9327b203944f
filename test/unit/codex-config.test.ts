// Unit tests of config handling: -c overrides (against @openai/codex-sdk's), config.toml text, merging.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import * as official from "@openai/codex-sdk";
import { parse } from "smol-toml";
import {
  type ConfigObject,
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

/**
 * Inputs and what `@openai/codex-sdk` 0.163.0 makes of them (`serializeConfigOverrides` /
 * `toTomlValue` in its dist/index.js, worked out by hand); the last test checks the SDK itself.
 */
const SDK_CASES: Array<{ name: string; config: ConfigObject; expected: string[] }> = [
  {
    name: "the official test's config",
    config: {
      approval_policy: "never",
      sandbox_workspace_write: { network_access: true },
      retry_budget: 3,
      tool_rules: { allow: ["git status", "git diff"] },
    },
    expected: [
      'approval_policy="never"',
      "sandbox_workspace_write.network_access=true",
      "retry_budget=3",
      'tool_rules.allow=["git status", "git diff"]',
    ],
  },
  {
    name: "a dotted key, as it is",
    config: { "features.shell_snapshot": false },
    expected: ["features.shell_snapshot=false"],
  },
  {
    name: "a provider named mock.name (codex reads nested tables)",
    config: {
      model_provider: "mock.name",
      model_providers: {
        "mock.name": { base_url: "http://127.0.0.1:1/v1", wire_api: "responses" },
      },
    },
    expected: [
      'model_provider="mock.name"',
      'model_providers.mock.name.base_url="http://127.0.0.1:1/v1"',
      'model_providers.mock.name.wire_api="responses"',
    ],
  },
  {
    name: "a key that is no TOML bare key, as it is",
    config: { "odd key": 1 },
    expected: ["odd key=1"],
  },
  {
    name: "tables in arrays as inline tables, keys quoted when not bare",
    config: {
      servers: [
        { name: "x", "b.c": 2, "odd key": "v", "with-dash_1": 1, ü: 2, skip: undefined },
        {},
      ],
    },
    expected: ['servers=[{name = "x", "b.c" = 2, "odd key" = "v", with-dash_1 = 1, "ü" = 2}, {}]'],
  },
  {
    name: "inline tables nested in inline tables",
    config: { list: [{ env: { A: "1", "B.C": true }, args: ["-v"] }] },
    expected: ['list=[{env = {A = "1", "B.C" = true}, args = ["-v"]}]'],
  },
  {
    name: "empty tables as {}, undefined entries skipped",
    config: { a: {}, b: { c: {} }, d: { e: undefined }, f: undefined },
    expected: ["a={}", "b.c={}"],
  },
  {
    name: "nothing for an empty config",
    config: {},
    expected: [],
  },
  {
    name: "numbers as JavaScript prints them",
    config: { i: 0, neg: -1.5, big: 2 ** 60, tiny: 1e-7, huge: 1e21, nz: -0 },
    expected: ["i=0", "neg=-1.5", "big=1152921504606847000", "tiny=1e-7", "huge=1e+21", "nz=0"],
  },
  {
    name: "strings as JSON strings",
    config: { s: 'x"y\\z\n\t✓', e: "", lone: "\uD800" },
    expected: ['s="x\\"y\\\\z\\n\\t✓"', 'e=""', 'lone="\\ud800"'],
  },
  {
    name: "arrays of arrays and booleans",
    config: { m: [[1, 2], [], ["a"]], flags: [true, false] },
    expected: ['m=[[1, 2], [], ["a"]]', "flags=[true, false]"],
  },
];

/** Inputs the official SDK refuses, and the key our error names. */
const SDK_REFUSES: Array<{ name: string; config: unknown; names: RegExp }> = [
  { name: "null", config: { a: { b: null } }, names: /at a\.b cannot be null/ },
  { name: "NaN", config: { a: { b: Number.NaN } }, names: /at a\.b must be a finite number/ },
  { name: "Infinity in an array", config: { a: [1, Infinity] }, names: /at a\[1\]/ },
  { name: "an empty key", config: { "": 1 }, names: /non-empty/ },
  { name: "an empty nested key", config: { t: { "": 1 } }, names: /the table at t/ },
  { name: "an empty inline-table key", config: { l: [{ "": 1 }] }, names: /the table at l\[0\]/ },
  { name: "null in an array", config: { l: ["a", null] }, names: /at l\[1\] cannot be null/ },
  { name: "undefined in an array", config: { l: [undefined] }, names: /at l\[0\].*undefined/ },
  { name: "a function", config: { f: () => 1 }, names: /at f .*function/ },
  { name: "a bigint", config: { n: 10n }, names: /at n .*bigint/ },
];

describe("toConfigOverrides", () => {
  for (const { name, config, expected } of SDK_CASES) {
    it(`gives the official SDK's overrides: ${name}`, () => {
      assert.deepEqual(toConfigOverrides(config), expected);
    });
  }

  for (const { name, config, names } of SDK_REFUSES) {
    it(`refuses what the official SDK refuses, naming the key: ${name}`, () => {
      assert.throws(() => toConfigOverrides(config as ConfigObject), invalidConfig(names));
    });
  }

  it("refuses a config that is not a table", () => {
    assert.throws(
      () => toConfigOverrides([] as unknown as ConfigObject),
      invalidConfig(/must be a plain object/),
    );
  });

  it("gives what @openai/codex-sdk passes to codex, for every case", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "codex-harness-sdk-argv-"));
    try {
      // A stand-in for codex that records its arguments and prints no event.
      const fake = path.join(dir, "codex");
      await writeFile(
        fake,
        `#!${process.execPath}\nprocess.stdin.resume();\nprocess.stdin.on("end", () => require("node:fs").writeFileSync(process.env.ARGV_FILE, JSON.stringify(process.argv.slice(2))));\n`,
        { mode: 0o755 },
      );
      const argvFile = path.join(dir, "argv.json");
      const sdkOverrides = async (config: unknown): Promise<string[]> => {
        const codex = new official.Codex({
          codexPathOverride: fake,
          env: { ARGV_FILE: argvFile },
          config: config as official.CodexOptions["config"],
        });
        await codex.startThread().run("hi");
        const argv = JSON.parse(await readFile(argvFile, "utf8")) as string[];
        return argv.flatMap((arg, index) => (argv[index - 1] === "--config" ? [arg] : []));
      };
      for (const { name, config } of SDK_CASES) {
        assert.deepEqual(await sdkOverrides(config), toConfigOverrides(config), name);
      }
      for (const { name, config } of SDK_REFUSES) {
        await assert.rejects(sdkOverrides(config), Error, name);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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

  it("refuses a __proto__ key (an object would drop it silently), at any depth", () => {
    for (const config of [
      JSON.parse('{"__proto__": {"x": 1}}'),
      JSON.parse('{"mcp_servers": {"__proto__": {"command": "x"}}}'),
      JSON.parse('{"list": [{"__proto__": 1}]}'),
    ]) {
      assert.throws(() => renderConfigToml(config), invalidConfig(/"__proto__" is a reserved/));
    }
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
