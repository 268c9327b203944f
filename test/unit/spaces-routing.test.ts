// A target's `[[routing]]` rules: installed beside its merged permissions (concatenated in load
// order, each naming its file:line), read back for runTurn; a file of rules alone is no policy.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { readHomePermissions, readHomeRouting } from "../../src/spaces/home-permissions.js";
import { installTarget } from "../../src/spaces/install.js";
import { cleanTrees, harnessError, spaceToml, tempTree } from "../fixtures/spaces/helpers.js";

after(() => cleanTrees());

function project(base: string, app: string): string {
  return tempTree({
    "asp-targets.toml":
      'schema = 1\n[targets.dev]\ncompose = ["space:path:./spaces/base", "space:path:./spaces/app"]\n',
    "spaces/base/space.toml": spaceToml("base"),
    "spaces/base/permissions.toml": base,
    "spaces/app/space.toml": spaceToml("app"),
    "spaces/app/permissions.toml": app,
  });
}

describe("a target's [[routing]] rules", () => {
  it("are installed in load order with their file:line, beside the permissions", async () => {
    const dir = project(
      '[exec]\ncommands = ["ls"]\n\n[[routing]]\nname = "publish"\nexec = ["npm publish"]\nanswer = ["group:release"]\n',
      '[[routing]]\nanswer = ["group:eng"]\n',
    );
    const { homeDir } = await installTarget(dir, "dev");
    const file = (space: string) => path.join(dir, "spaces", space, "permissions.toml");
    assert.deepEqual(await readHomeRouting(homeDir), [
      {
        name: "publish",
        origin: `${file("base")}:4`,
        exec: ["npm publish"],
        answer: ["group:release"],
      },
      { name: "routing[0]", origin: `${file("app")}:1`, answer: ["group:eng"] },
    ]);
    // The app's file holds rules alone: the permissions are the base's.
    const spec = await readHomePermissions(homeDir);
    assert.deepEqual(spec?.exec.commands, ["ls"]);
    assert.deepEqual(spec?.sources?.["exec.commands"], { ls: [file("base")] });
  });

  it("files of rules alone make no permissions policy (no file change is declined for them)", async () => {
    const dir = project('[[routing]]\nanswer = ["alice"]\n', '[[routing]]\nanswer = ["bob"]\n');
    const { homeDir } = await installTarget(dir, "dev");
    assert.equal(await readHomePermissions(homeDir), undefined);
    assert.equal((await readHomeRouting(homeDir)).length, 2);
  });

  it("a home without rules has none; a damaged one says to reinstall", async () => {
    const dir = project('[exec]\ncommands = ["ls"]\n', "");
    const { homeDir } = await installTarget(dir, "dev");
    assert.deepEqual(await readHomeRouting(homeDir), []);
    writeFileSync(
      path.join(homeDir, "permissions.json"),
      JSON.stringify({ files: [], routing: [{ answer: "alice" }] }),
    );
    await assert.rejects(
      readHomeRouting(homeDir),
      harnessError("invalid_permissions", "run `codex-harness install` again"),
    );
  });

  it("a broken rule fails the install with file:line", async () => {
    const dir = project('[[routing]]\nanswer = ["alice"]\napprovals = 20\n', "");
    await assert.rejects(
      installTarget(dir, "dev"),
      harnessError(
        "invalid_permissions",
        `${path.join(dir, "spaces/base/permissions.toml")}:3: routing[0] approvals must be a whole number from 1 to 10`,
      ),
    );
  });
});
