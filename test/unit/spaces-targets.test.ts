// Unit tests of asp-targets.toml reading: validation, refs and the codex settings merge.
import assert from "node:assert/strict";
import path from "node:path";
import { after, describe, it } from "node:test";
import { readTargets } from "../../src/spaces/targets.js";
import { cleanTrees, harnessError, tempTree } from "../fixtures/spaces/helpers.js";

after(cleanTrees);

const project = (text: string) => tempTree({ "asp-targets.toml": text });
const bad = (...parts: string[]) => harnessError("invalid_targets", "asp-targets.toml", ...parts);

describe("readTargets", () => {
  it("reads targets, refs and merged codex settings (the target wins)", () => {
    const dir = project(`schema = 1
[codex]
model = "gpt-5"
approval_policy = "on-request"
sandbox_mode = "workspace-write"
[claude]
model = "ignored"
[targets.dev]
description = "development"
compose = ["space:path:./spaces/a", "space:project:b"]
[targets.dev.codex]
model = "gpt-5-codex"
sandbox_mode = "read-only"
profile = "fast"
[targets.plain]
compose = ["space:project:b"]
`);
    const file = readTargets(dir);
    assert.equal(file.file, path.join(dir, "asp-targets.toml"));
    assert.deepEqual(Object.keys(file.targets), ["dev", "plain"]);
    const dev = file.targets.dev;
    assert.equal(dev?.description, "development");
    assert.deepEqual(dev?.compose, [
      { kind: "path", ref: "space:path:./spaces/a", path: "./spaces/a" },
      { kind: "project", ref: "space:project:b", id: "b" },
    ]);
    assert.deepEqual(dev?.codex, {
      model: "gpt-5-codex",
      approval_policy: "on-request",
      sandbox_mode: "read-only",
      profile: "fast",
    });
    assert.deepEqual(file.targets.plain?.codex, {
      model: "gpt-5",
      approval_policy: "on-request",
      sandbox_mode: "workspace-write",
    });
  });

  it("rejects a registry ref with unsupported_space_ref", () => {
    const dir = project('schema = 1\n[targets.t]\ncompose = ["space:tools@^1.2"]\n');
    assert.throws(
      () => readTargets(dir),
      harnessError(
        "unsupported_space_ref",
        "asp-targets.toml",
        "[targets.t] compose[0]",
        "registry",
      ),
    );
  });

  const cases: [string, string, string[]][] = [
    ["a missing schema", '[targets.t]\ncompose = ["space:project:a"]\n', ["schema"]],
    ["an unknown top-level key", "schema = 1\nextra = 1\n", ["extra", "not a known key"]],
    [
      "an unknown target key",
      'schema = 1\n[targets.t]\ncompose = ["space:project:a"]\nyolo = true\n',
      ["[targets.t] yolo"],
    ],
    ["a missing compose", "schema = 1\n[targets.t]\n", ["[targets.t] compose", "missing"]],
    [
      "a compose of non-strings",
      "schema = 1\n[targets.t]\ncompose = [1]\n",
      ["[targets.t] compose[0]"],
    ],
    [
      "an empty path ref",
      'schema = 1\n[targets.t]\ncompose = ["space:path:"]\n',
      ["compose[0]", "space:path:"],
    ],
    [
      "a bad approval_policy",
      'schema = 1\n[codex]\napproval_policy = "sometimes"\n',
      ["[codex] approval_policy", "on-request"],
    ],
    [
      "a bad sandbox_mode",
      'schema = 1\n[targets.t]\ncompose = ["space:project:a"]\n[targets.t.codex]\nsandbox_mode = "open"\n',
      ["[targets.t.codex] sandbox_mode"],
    ],
    ["an unknown codex key", 'schema = 1\n[codex]\nmodle = "x"\n', ["[codex] modle"]],
    [
      "a non-string model",
      "schema = 1\n[codex]\nmodel = 5\n",
      ["[codex] model", "must be a string"],
    ],
    ["a non-table target", "schema = 1\ntargets = { t = 1 }\n", ["[targets.t]", "must be a table"]],
    ["bad TOML", "schema = = 1", ["not valid TOML"]],
  ];
  for (const [name, text, parts] of cases) {
    it(`rejects ${name}`, () => {
      assert.throws(() => readTargets(project(text)), bad(...parts));
    });
  }

  it("rejects a missing file", () => {
    assert.throws(() => readTargets(tempTree({})), bad("cannot read"));
  });
});
