// Unit tests of resolving a target into its spaces: deps order, diamonds, cycles, unknown targets.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { resolveTarget } from "../../src/spaces/resolve.js";
import { cleanTrees, harnessError, spaceToml, tempTree } from "../fixtures/spaces/helpers.js";

after(cleanTrees);

const deps = (...refs: string[]) =>
  `[deps]\nspaces = [${refs.map((ref) => JSON.stringify(ref)).join(", ")}]\n`;

describe("resolveTarget", () => {
  it("loads deps depth-first before dependents, each space once (diamond)", () => {
    // app -> (left, right), left -> base, right -> base; extra composed after app.
    const dir = tempTree({
      "asp-targets.toml":
        'schema = 1\n[codex]\nmodel = "m"\n[targets.dev]\n' +
        'compose = ["space:project:app", "space:path:./other/extra", "space:project:base"]\n',
      "spaces/app/space.toml": spaceToml("app", deps("space:project:left", "space:path:../right")),
      "spaces/left/space.toml": spaceToml("left", deps("space:project:base")),
      "spaces/right/space.toml": spaceToml("right", deps("space:path:../base")),
      "spaces/base/space.toml": spaceToml("base"),
      "other/extra/space.toml": spaceToml("extra", deps("space:project:right")),
    });
    const resolved = resolveTarget(dir, "dev");
    assert.deepEqual(
      resolved.spaces.map((space) => space.id),
      ["base", "left", "right", "app", "extra"],
    );
    assert.equal(resolved.target.name, "dev");
    assert.deepEqual(resolved.target.codex, { model: "m" });
  });

  it("rejects a cycle, naming it", () => {
    const dir = tempTree({
      "asp-targets.toml": 'schema = 1\n[targets.t]\ncompose = ["space:project:a"]\n',
      "spaces/a/space.toml": spaceToml("a", deps("space:project:b")),
      "spaces/b/space.toml": spaceToml("b", deps("space:project:c")),
      "spaces/c/space.toml": spaceToml("c", deps("space:project:a")),
    });
    assert.throws(
      () => resolveTarget(dir, "t"),
      harnessError("invalid_targets", "asp-targets.toml", "cycle a -> b -> c -> a"),
    );
  });

  it("rejects an unknown target, listing the known ones", () => {
    const dir = tempTree({
      "asp-targets.toml":
        'schema = 1\n[targets.dev]\ncompose = ["space:project:a"]\n' +
        '[targets.ci]\ncompose = ["space:project:a"]\n',
    });
    assert.throws(
      () => resolveTarget(dir, "prod"),
      harnessError("invalid_targets", "asp-targets.toml", '"prod"', '"dev", "ci"'),
    );
  });

  it("rejects a missing space folder, naming the ref", () => {
    const dir = tempTree({
      "asp-targets.toml": 'schema = 1\n[targets.t]\ncompose = ["space:project:gone"]\n',
    });
    assert.throws(
      () => resolveTarget(dir, "t"),
      harnessError("invalid_targets", "[targets.t] compose[0]", "does not exist"),
    );
  });

  it("rejects two folders with the same space id", () => {
    const dir = tempTree({
      "asp-targets.toml":
        'schema = 1\n[targets.t]\ncompose = ["space:project:a", "space:path:./copy"]\n',
      "spaces/a/space.toml": spaceToml("a"),
      "copy/space.toml": spaceToml("a"),
    });
    assert.throws(() => resolveTarget(dir, "t"), harnessError("invalid_targets", 'id "a"'));
  });

  it("passes space errors through", () => {
    const dir = tempTree({
      "asp-targets.toml": 'schema = 1\n[targets.t]\ncompose = ["space:project:a"]\n',
      "spaces/a/space.toml": "schema = 1\n",
    });
    assert.throws(() => resolveTarget(dir, "t"), harnessError("invalid_space", "space.toml", "id"));
  });
});
