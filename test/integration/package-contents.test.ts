// What `npm pack` ships: the package's code, docs and examples — and nothing that trying the
// examples leaves behind (a spaces project's installed homes hold codex rollouts, state databases,
// an installation id and absolute paths).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { repoRoot } from "../support/paths.js";

const run = promisify(execFile);

describe("the published package", () => {
  it("holds no session data from the examples, and what a user needs", async () => {
    const project = path.join(repoRoot, "examples", "spaces-project");
    const tag = `pack-test-${process.pid}`;
    const homes = [path.join(project, ".asp"), path.join(project, "asp_modules")];
    const made = homes.filter((home) => !existsSync(home));
    const left = [
      path.join(project, ".asp", tag, "state_5.sqlite"),
      path.join(project, "asp_modules", tag, "rollout.jsonl"),
    ];
    for (const file of left) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, "session data\n");
    }
    try {
      const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
        cwd: repoRoot,
        maxBuffer: 64 * 1024 * 1024,
      });
      const files = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]?.files.map(
        (file) => file.path,
      );
      assert.ok(files);
      const leaked = files.filter((file) => /(^|\/)(\.asp|asp_modules)\/|\.tgz$/.test(file));
      assert.deepEqual(leaked, []);
      for (const needed of [
        "bin/codex-harness.js",
        "build/dist/index.js",
        "examples/first-turn.ts",
        "examples/spaces-project/asp-targets.toml",
        "docs/sdk.md",
      ]) {
        assert.ok(files.includes(needed), `${needed} is in the package`);
      }
    } finally {
      for (const file of left) rmSync(path.dirname(file), { recursive: true, force: true });
      for (const home of made) rmSync(home, { recursive: true, force: true });
    }
  });
});
