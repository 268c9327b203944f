// The command processes codex started under a folder: found by the environment codex gives every
// command (`CODEX_THREAD_ID`, and `CODEX_HOME` under the campaign's root). Linux only (/proc).
import { readdir, readFile } from "node:fs/promises";

/** A command process codex started, and the thread it belongs to. */
export interface CommandProcess {
  pid: number;
  threadId: string;
}

/**
 * The live (not zombie) processes whose environment has a `CODEX_THREAD_ID` and a `CODEX_HOME`
 * under `root`: every command of every codex the campaign started, and nothing else.
 */
export async function commandProcesses(root: string): Promise<CommandProcess[]> {
  if (process.platform !== "linux") return [];
  const home = Buffer.from(`\0CODEX_HOME=${root}`);
  const found: CommandProcess[] = [];
  const entries = await readdir("/proc").catch(() => [] as string[]);
  await Promise.all(
    entries.map(async (entry) => {
      if (!/^\d+$/.test(entry)) return;
      const environ = await readFile(`/proc/${entry}/environ`).catch(() => undefined);
      if (!environ) return;
      const at = environ.indexOf("CODEX_THREAD_ID=");
      if (at < 0 || !Buffer.concat([Buffer.from([0]), environ]).includes(home)) return;
      const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
      if (stat === "" || /\) Z /.test(stat)) return;
      const end = environ.indexOf(0, at);
      found.push({
        pid: Number(entry),
        threadId: environ
          .subarray(at + "CODEX_THREAD_ID=".length, end < 0 ? undefined : end)
          .toString(),
      });
    }),
  );
  return found;
}
