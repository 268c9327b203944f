// Runs the `codex-harness` command as a user would: `node bin/codex-harness.js …`, with stdin and env.
import assert from "node:assert/strict";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import path from "node:path";
import { eventually } from "./eventually.js";
import { repoRoot } from "./paths.js";

/** The CLI entry point. */
export const bin = path.join(repoRoot, "bin/codex-harness.js");

/** A running CLI: the process, what it printed so far, and its exit code once it closed. */
export interface StartedCli {
  child: ChildProcessWithoutNullStreams;
  output: { stdout: string; stderr: string };
  closed: Promise<number | null>;
}

/** Starts the CLI (stdin left open for the caller), collecting its output as it comes. */
export function startCli(
  args: string[],
  env: Record<string, string | undefined> = process.env,
): StartedCli {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  const output = { stdout: "", stderr: "" };
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    output.stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    output.stderr += chunk;
  });
  const closed = new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  return { child, output, closed };
}

/**
 * Runs the CLI with `input` on stdin; resolves with its exit code and output (killed after
 * `timeoutMs`, 60 s by default).
 */
export async function runCli(
  args: string[],
  options: { input?: string; env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { child, output, closed } = startCli(args, options.env);
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
  child.stdin.end(options.input ?? "");
  const code = await closed.finally(() => clearTimeout(timer));
  return { code, ...output };
}

/** This process's environment without the variables whose names match `drop`, plus `extra`. */
export function envWithout(
  drop: RegExp,
  extra: Record<string, string> = {},
): Record<string, string | undefined> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !drop.test(name)));
  return { ...env, ...extra };
}

/** The URL and the token `codex-harness serve` prints once it listens. */
export async function servedAt(
  output: StartedCli["output"],
): Promise<{ url: string; token: string }> {
  const url = await eventually(
    "serve's URL",
    () => /listening on (http:\/\/\S+)/.exec(output.stdout)?.[1],
  );
  const token = await eventually(
    "serve's token",
    () => /token \(printed once.*\): (\S+)/.exec(output.stdout)?.[1],
  );
  return { url, token };
}

/** A way `serve` must refuse to start: more flags, the environment, what it says on stderr. */
export type RefusedStart = [args: string[], env: Record<string, string>, says: RegExp];

/**
 * Runs `base` plus each case's flags, in this environment without the variables matching `drop`
 * plus the case's: each exits 1, says what it should, and never shows `secret`.
 */
export async function assertRefusedStarts(
  base: string[],
  drop: RegExp,
  secret: string,
  cases: RefusedStart[],
): Promise<void> {
  for (const [args, env, expected] of cases) {
    const run = await runCli([...base, ...args], { env: envWithout(drop, env) });
    assert.equal(run.code, 1, run.stdout);
    assert.match(run.stderr, expected);
    assert.ok(!run.stderr.includes(secret));
  }
}

/**
 * Starts `codex-harness` with `args` (a `serve`), runs `body` with the URL and token it prints and
 * its output so far, then stops it; resolves with all it printed.
 */
export async function whileServing(
  args: string[],
  env: Record<string, string | undefined>,
  body: (served: { url: string; token: string; output: StartedCli["output"] }) => Promise<void>,
): Promise<StartedCli["output"]> {
  const cli = startCli(args, env);
  cli.child.stdin.end();
  try {
    await body({ ...(await servedAt(cli.output)), output: cli.output });
  } finally {
    cli.child.kill("SIGTERM");
    await cli.closed;
  }
  return cli.output;
}
