// A remote codex's processes are on its machine, out of this program's sight: a stopped turn's
// commands there are found and ended by a short shell script that codex itself runs
// (`command/exec`, outside any thread), reading /proc as the local sweep does.
import { CodexHarnessError } from "../errors.js";
import type { CommandExecParams } from "../protocol/generated/ts/v2/CommandExecParams.js";
import type { CommandExecResponse } from "../protocol/generated/ts/v2/CommandExecResponse.js";
import { RpcErrorCodes, RpcWireError } from "../rpc/errors.js";

/**
 * How much older than the turn a process may look and still be taken as the turn's: the request's
 * way to codex (the script measures ages a little after they were asked for).
 */
export const REMOTE_AGE_SLACK_MS = 250;

/**
 * Kills (SIGKILL) each live process that carries `CODEX_THREAD_ID=$1` and is at most `$2` ms old;
 * prints their pids. Exits 3 where /proc cannot be read (not Linux): nothing can be found there.
 * One `grep -z` finds them all; the start time is /proc/<pid>/stat's 22nd field (the 20th after
 * the name, which is in parentheses and may hold anything).
 */
const SWEEP = `
[ -r /proc/uptime ] || exit 3
thread=$1; max_age_ms=$2
hz=$(getconf CLK_TCK 2>/dev/null) || hz=100
for f in $(grep -lzx "CODEX_THREAD_ID=$thread" /proc/[0-9]*/environ 2>/dev/null); do
  d=\${f%/environ}; p=\${d#/proc/}
  [ "$p" = "$$" ] && continue
  stat=$(cat "$d/stat" 2>/dev/null) || continue
  set -- \${stat##*") "}
  [ "$1" = Z ] && continue
  shift 19
  age=$(awk -v s="$1" -v hz="$hz" '{ printf "%d", ($1 - s / hz) * 1000 }' /proc/uptime)
  [ "$age" -le "$max_age_ms" ] && kill -9 "$p" 2>/dev/null && echo "$p"
done
exit 0
`;

/** What {@link endRemoteThreadProcesses} needs of the connection. */
export interface CommandRunner {
  request(method: "command/exec", params: CommandExecParams): Promise<CommandExecResponse>;
}

/**
 * Ends the processes a remote codex started for `threadId` since `sinceMs` (this machine's
 * `Date.now()`; ages are compared, so the two clocks need not agree), looking again until a look
 * finds none. Resolves with their pids; `[]` where codex's machine has no /proc. Rejects with
 * `turn_not_stopped` when codex cannot run the script.
 */
export async function endRemoteThreadProcesses(
  runner: CommandRunner,
  threadId: string,
  sinceMs: number,
): Promise<number[]> {
  const killed: number[] = [];
  for (let look = 0; look < 20; look++) {
    const maxAgeMs = Date.now() - sinceMs + REMOTE_AGE_SLACK_MS;
    let answer: CommandExecResponse;
    try {
      answer = await runner.request("command/exec", {
        command: ["sh", "-c", SWEEP, "sweep", threadId, String(maxAgeMs)],
        sandboxPolicy: { type: "dangerFullAccess" },
        timeoutMs: 10_000,
      });
    } catch (error) {
      // Not a codex that runs commands for its clients (a stand-in app-server): nothing to end.
      if (error instanceof RpcWireError && error.code === RpcErrorCodes.MethodNotFound) {
        return killed;
      }
      throw new CodexHarnessError(
        "turn_not_stopped",
        `the remote codex could not look for the processes of thread ${threadId}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    if (answer.exitCode === 3) return killed;
    if (answer.exitCode !== 0) {
      throw new CodexHarnessError(
        "turn_not_stopped",
        `the remote codex could not look for the processes of thread ${threadId} (exit ${answer.exitCode}): ${answer.stderr.trim()}`,
      );
    }
    const pids = answer.stdout.split("\n").filter((line) => /^\d+$/.test(line));
    if (pids.length === 0) return killed;
    killed.push(...pids.map(Number));
  }
  return killed;
}
