// Runs the `codex-harness` command as a user would: `node bin/codex-harness.js …`, with stdin and env.
import { spawn } from "node:child_process";
import path from "node:path";
import { repoRoot } from "./paths.js";

/** The CLI entry point. */
export const bin = path.join(repoRoot, "bin/codex-harness.js");

/** Runs the CLI with `input` on stdin; resolves with its exit code and output (killed after 60 s). */
export function runCli(
  args: string[],
  options: { input?: string; env?: Record<string, string | undefined> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: options.env ?? process.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}
