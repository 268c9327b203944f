// Unit tests of the git repository check the app-server transport makes as codex exec does.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { CodexHarnessError } from "../../src/errors.js";
import { checkGitRepo, findGitRepoRoot } from "../../src/turns/git-check.js";

const root = mkdtempSync(path.join(tmpdir(), "codex-harness-git-check-"));
after(() => rmSync(root, { recursive: true, force: true }));

/** A fresh folder `name` with a `sub/deep` folder in it; `setUp` adds its `.git`. */
function repo(name: string, setUp: (dir: string) => void = () => {}): string {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, "sub", "deep"), { recursive: true });
  setUp(dir);
  return dir;
}

const deep = (dir: string) => path.join(dir, "sub", "deep");

describe("findGitRepoRoot (what codex 0.169.0 exec counts as a git repository)", () => {
  it("finds a .git folder with a HEAD in the folder or above it", () => {
    const dir = repo("head", (d) => {
      mkdirSync(path.join(d, ".git"));
      writeFileSync(path.join(d, ".git", "HEAD"), "ref: refs/heads/main\n");
    });
    assert.equal(findGitRepoRoot(dir), dir);
    assert.equal(findGitRepoRoot(deep(dir)), dir);
  });

  it("counts any .git file (a worktree's or submodule's pointer)", () => {
    const dir = repo("file", (d) => writeFileSync(path.join(d, ".git"), "junk"));
    assert.equal(findGitRepoRoot(deep(dir)), dir);
  });

  it("does not count an empty .git folder or a dangling .git symlink, and keeps looking up", () => {
    assert.equal(findGitRepoRoot(repo("empty", (d) => mkdirSync(path.join(d, ".git")))), undefined);
    const dangling = repo("dangling", (d) =>
      symlinkSync(path.join(root, "nowhere"), path.join(d, ".git")),
    );
    assert.equal(findGitRepoRoot(dangling), undefined);
    const outer = repo("outer", (d) => writeFileSync(path.join(d, ".git"), "gitdir: x"));
    mkdirSync(path.join(outer, "sub", ".git"));
    assert.equal(findGitRepoRoot(deep(outer)), outer);
  });

  it("walks up the path as written, not through the target of a symlink", () => {
    const real = repo("real", (d) => writeFileSync(path.join(d, ".git"), "gitdir: x"));
    const plain = repo("plain");
    symlinkSync(real, path.join(plain, "link"));
    assert.equal(findGitRepoRoot(path.join(plain, "link", "sub")), path.join(plain, "link"));
    const outside = repo("outside");
    symlinkSync(outside, path.join(real, "out"));
    assert.equal(findGitRepoRoot(path.join(real, "out", "sub")), real);
  });
});

describe("checkGitRepo", () => {
  const plain = repo("check");

  it("refuses a working directory outside git with codex exec's message and what to do", () => {
    assert.throws(
      () => checkGitRepo({ workingDirectory: plain }),
      (error: unknown) =>
        error instanceof CodexHarnessError &&
        error.code === "not_a_git_repo" &&
        error.message.startsWith(
          "Not inside a trusted directory and --skip-git-repo-check was not specified.",
        ) &&
        error.message.includes(plain) &&
        /skipGitRepoCheck: true/.test(error.message),
    );
  });

  it("lets skipGitRepoCheck: true through, and a git repository", () => {
    checkGitRepo({ workingDirectory: plain, skipGitRepoCheck: true });
    const git = repo("git", (d) => writeFileSync(path.join(d, ".git"), "gitdir: x"));
    checkGitRepo({ workingDirectory: deep(git) });
  });

  it("checks this process's cwd when the thread has no working directory", () => {
    const before = process.cwd();
    process.chdir(plain);
    try {
      assert.throws(() => checkGitRepo({}), /not inside a git repository/);
      assert.throws(() => checkGitRepo({ skipGitRepoCheck: false }), /Not inside/);
    } finally {
      process.chdir(before);
    }
  });
});
