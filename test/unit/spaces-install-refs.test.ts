// Unit tests of installing spaces by ref (`resolveSpaceRefs`, `installSpaces`, `spacesTargetName`)
// and of concurrent installs of one target racing to rename their homes into place.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import {
  codexHomeDir,
  installSpaces,
  installTarget,
  spacesTargetName,
} from "../../src/spaces/install.js";
import { resolveSpaceRefs } from "../../src/spaces/resolve.js";
import { cleanTrees, harnessError, spaceToml, tempTree } from "../fixtures/spaces/helpers.js";

after(cleanTrees);

const deps = (...refs: string[]) =>
  `[deps]\nspaces = [${refs.map((ref) => JSON.stringify(ref)).join(", ")}]\n`;

/** app depends on base; tools stands alone outside ./spaces. */
function project(): string {
  return tempTree({
    "spaces/base/space.toml": spaceToml("base"),
    "spaces/base/AGENTS.md": "Base rules.\n",
    "spaces/app/space.toml": spaceToml("app", deps("space:project:base")),
    "spaces/app/AGENTS.md": "App rules.\n",
    "vendor/tools/space.toml": spaceToml("tools"),
    "vendor/tools/AGENTS.md": "Tool rules.\n",
    "vendor/tools/commands/go.md": "Go.\n",
  });
}

const block = (label: string, text: string) =>
  `<!-- BEGIN space: ${label} -->\n${text}<!-- END space: ${label} -->`;

describe("resolveSpaceRefs", () => {
  it("resolves refs in order, deps first, each space once", () => {
    const dir = project();
    const resolved = resolveSpaceRefs(
      dir,
      ["space:path:./vendor/tools", "space:project:app", "space:path:spaces/base"],
      "my-target",
    );
    assert.deepEqual(
      resolved.spaces.map((space) => space.id),
      ["tools", "base", "app"],
    );
    assert.equal(resolved.target.name, "my-target");
    assert.deepEqual(resolved.target.codex, {});
    assert.deepEqual(
      resolved.target.compose.map((ref) => ref.ref),
      ["space:path:./vendor/tools", "space:project:app", "space:path:spaces/base"],
    );
    assert.equal(resolved.projectDir, path.resolve(dir));
  });

  it("refuses an empty list", () => {
    const dir = project();
    assert.throws(() => resolveSpaceRefs(dir, [], "t"), harnessError("invalid_targets", "empty"));
  });

  it("refuses malformed local refs with invalid_targets, naming the index", () => {
    const dir = project();
    assert.throws(
      () => resolveSpaceRefs(dir, ["space:project:app", "space:path:"], "t"),
      harnessError("invalid_targets", "the spaces list", "[1]", "space:path:"),
    );
    assert.throws(
      () => resolveSpaceRefs(dir, ["space:project:Not Valid"], "t"),
      harnessError("invalid_targets", "[0]"),
    );
  });

  it("refuses registry and unknown refs with unsupported_space_ref", () => {
    const dir = project();
    for (const ref of ["space:registry:base@1.0.0", "base", "./spaces/base"]) {
      assert.throws(
        () => resolveSpaceRefs(dir, [ref], "t"),
        harnessError("unsupported_space_ref", ref),
        ref,
      );
    }
  });

  it("refuses a ref to a missing folder with invalid_targets", () => {
    const dir = project();
    assert.throws(
      () => resolveSpaceRefs(dir, ["space:path:./nowhere"], "t"),
      harnessError("invalid_targets", path.join(path.resolve(dir), "nowhere"), "does not exist"),
    );
  });
});

describe("spacesTargetName", () => {
  it("is spaces-<12 hex>, stable for one list and different for different lists", () => {
    const refs = ["space:project:app", "space:path:./vendor/tools"];
    const name = spacesTargetName(refs);
    assert.match(name, /^spaces-[0-9a-f]{12}$/);
    assert.equal(spacesTargetName([...refs]), name);
    const others = [
      ["space:path:./vendor/tools", "space:project:app"],
      ["space:project:app"],
      ["space:project:app,space:path:./vendor/tools"],
      ["space:project:app", "space:path:./vendor/tools", "space:project:base"],
    ];
    const names = new Set([name, ...others.map((list) => spacesTargetName(list))]);
    assert.equal(names.size, others.length + 1);
  });
});

describe("installSpaces", () => {
  it("installs into <installRoot>/asp_modules/spaces-<hash>/codex/codex.home", async () => {
    const dir = project();
    const installRoot = tempTree({});
    const refs = ["space:project:app", "space:path:./vendor/tools"];
    const name = spacesTargetName(refs);
    const result = await installSpaces(refs, { projectDir: dir, installRoot });
    const home = path.join(installRoot, "asp_modules", name, "codex", "codex.home");
    assert.equal(result.homeDir, home);
    assert.equal(codexHomeDir(installRoot, name), home);
    assert.equal(result.target, name);
    assert.deepEqual(result.spaces, [
      { id: "base", version: "1.0.0" },
      { id: "app", version: "1.0.0" },
      { id: "tools", version: "1.0.0" },
    ]);
    assert.deepEqual(result.prompts, ["go.md"]);
    assert.equal(
      readFileSync(path.join(home, "AGENTS.md"), "utf8"),
      `<!-- Generated by codex-harness install for target "${name}"; do not edit. -->\n\n` +
        `${block("base@1.0.0", "Base rules.\n")}\n\n` +
        `${block("app@1.0.0", "App rules.\n")}\n\n` +
        `${block("tools@1.0.0", "Tool rules.\n")}\n`,
    );
    for (const entry of ["config.toml", "mcp.json", "manifest.json", "skills", "prompts"]) {
      assert.ok(existsSync(path.join(home, entry)), entry);
    }
    assert.equal(readFileSync(path.join(home, "prompts", "go.md"), "utf8"), "Go.\n");
    // Nothing is written into the project; nothing but the home is left in its folder.
    assert.equal(existsSync(path.join(dir, "asp_modules")), false);
    assert.deepEqual(readdirSync(path.dirname(home)), ["codex.home"]);
  });

  it("installs different lists side by side, and one list again in place", async () => {
    const dir = project();
    const installRoot = tempTree({});
    const one = await installSpaces(["space:project:base"], { projectDir: dir, installRoot });
    const two = await installSpaces(["space:project:app"], { projectDir: dir, installRoot });
    assert.notEqual(one.homeDir, two.homeDir);
    assert.match(readFileSync(path.join(one.homeDir, "AGENTS.md"), "utf8"), /Base rules/);
    assert.doesNotMatch(readFileSync(path.join(one.homeDir, "AGENTS.md"), "utf8"), /App rules/);
    assert.match(readFileSync(path.join(two.homeDir, "AGENTS.md"), "utf8"), /App rules/);
    const again = await installSpaces(["space:project:base"], { projectDir: dir, installRoot });
    assert.equal(again.homeDir, one.homeDir);
    assert.deepEqual(
      readdirSync(path.join(installRoot, "asp_modules")).sort(),
      [spacesTargetName(["space:project:app"]), spacesTargetName(["space:project:base"])].sort(),
    );
  });

  it("refuses bad refs before writing anything", async () => {
    const dir = project();
    const installRoot = tempTree({});
    await assert.rejects(
      installSpaces([], { projectDir: dir, installRoot }),
      harnessError("invalid_targets"),
    );
    await assert.rejects(
      installSpaces(["space:registry:x"], { projectDir: dir, installRoot }),
      harnessError("unsupported_space_ref"),
    );
    assert.equal(existsSync(path.join(installRoot, "asp_modules")), false);
  });
});

describe("concurrent installs of one target", () => {
  it("all succeed and leave one complete home", async () => {
    const dir = tempTree({
      "asp-targets.toml": 'schema = 1\n[targets.dev]\ncompose = ["space:project:app"]\n',
      "spaces/base/space.toml": spaceToml("base"),
      "spaces/base/AGENTS.md": "Base rules.\n",
      "spaces/base/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lints\n---\n# Lint\n",
      "spaces/app/space.toml": spaceToml("app", deps("space:project:base")),
      "spaces/app/AGENTS.md": "App rules.\n",
      "spaces/app/commands/ship.md": "Ship it.\n",
    });
    const home = codexHomeDir(dir, "dev");
    const expected = ["AGENTS.md", "config.toml", "manifest.json", "mcp.json", "prompts", "skills"];
    // Several rounds: the first races on a missing home, the later ones on an existing one.
    for (let round = 0; round < 4; round++) {
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, () => installTarget(dir, "dev")),
      );
      const failures = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
      assert.deepEqual(failures, [], `round ${round}: every install succeeds`);
      for (const r of results) {
        assert.ok(r.status === "fulfilled");
        assert.equal(r.value.homeDir, home);
        assert.deepEqual(r.value.skills, ["lint"]);
        assert.deepEqual(r.value.prompts, ["ship.md"]);
      }
      assert.deepEqual(readdirSync(path.dirname(home)), ["codex.home"], `round ${round}`);
      assert.deepEqual(readdirSync(home).sort(), expected, `round ${round}`);
      assert.match(
        readFileSync(path.join(home, "AGENTS.md"), "utf8"),
        /Base rules\.[\s\S]*App rules\./,
      );
      assert.deepEqual(JSON.parse(readFileSync(path.join(home, "manifest.json"), "utf8")).spaces, [
        { id: "base", version: "1.0.0" },
        { id: "app", version: "1.0.0" },
      ]);
      assert.equal(readFileSync(path.join(home, "prompts", "ship.md"), "utf8"), "Ship it.\n");
      assert.deepEqual(readdirSync(path.join(home, "skills")), ["lint"]);
    }
  });

  it("once a home appeared, concurrent installs of the target never make it vanish", async () => {
    const dir = tempTree({
      "asp-targets.toml": 'schema = 1\n[targets.dev]\ncompose = ["space:project:app"]\n',
      "spaces/app/space.toml": spaceToml("app"),
      "spaces/app/AGENTS.md": "App rules.\n",
    });
    const home = codexHomeDir(dir, "dev");
    let seen = false;
    let missing = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const there = existsSync(path.join(home, "config.toml"));
        if (there) seen = true;
        else if (seen) missing++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    // Several rounds of first installs racing each other (a session's runTurn does this).
    for (let round = 0; round < 10; round++) {
      rmSync(home, { recursive: true, force: true });
      seen = false;
      await Promise.all(Array.from({ length: 8 }, () => installTarget(dir, "dev")));
    }
    watching = false;
    await watcher;
    assert.equal(missing, 0);
  });
});
