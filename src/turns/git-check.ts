// The git repository check `codex exec` makes before a turn, made by the app-server transport too.
import type { Stats } from "node:fs";
import path from "node:path";
import { nodeFs } from "../builtins.js";
import { CodexHarnessError } from "../errors.js";

/** The start of `codex exec`'s message when the working directory is outside a git repository. */
export const NOT_A_GIT_REPO_MESSAGE =
  "Not inside a trusted directory and --skip-git-repo-check was not specified.";

/**
 * The git repository holding `cwd`, as codex 0.169.0 finds it (observed with `codex exec`): the
 * nearest folder, walking up from `cwd` without resolving symlinks, whose `.git` is a file (a
 * worktree's or submodule's pointer, whatever it says) or a folder with a `HEAD` in it. A `.git`
 * that is a dangling symlink or an empty folder does not count; trusted projects in the config do
 * not count either.
 */
export function findGitRepoRoot(cwd: string): string | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, ".git");
    const kind = stat(dotGit);
    if (kind?.isFile()) return dir;
    if (kind?.isDirectory() && stat(path.join(dotGit, "HEAD"))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** What is at `p` (following symlinks), or `undefined` when nothing can be read there. */
function stat(p: string): Stats | undefined {
  try {
    return nodeFs().statSync(p);
  } catch {
    return undefined;
  }
}

/**
 * Refuses a thread whose working directory (the thread's `workingDirectory`, else this process's
 * cwd) is outside a git repository, as `codex exec` does when starting and when resuming, unless
 * `skipGitRepoCheck` is true. Throws `not_a_git_repo`, whose message starts with codex exec's.
 */
export function checkGitRepo(options: {
  workingDirectory?: string | undefined;
  skipGitRepoCheck?: boolean | undefined;
}): void {
  if (options.skipGitRepoCheck === true) return;
  const cwd = path.resolve(options.workingDirectory ?? process.cwd());
  if (findGitRepoRoot(cwd) !== undefined) return;
  throw new CodexHarnessError(
    "not_a_git_repo",
    `${NOT_A_GIT_REPO_MESSAGE} The working directory ${cwd} is not inside a git repository: run in a git repository, or pass skipGitRepoCheck: true in the thread options to let codex work there.`,
  );
}
