// `codex-harness threads`: codex's saved threads from the command line — listed (newest first,
// a line each, or JSONL), archived, brought back, renamed — over the SDK's saved-thread methods.
import type { Command } from "commander";
import { wholeNumber } from "./arguments.js";
import { addCodexFlags, type CodexFlags, withCodex } from "./codex-command.js";

interface ListFlags extends CodexFlags {
  cwd?: string;
  archived?: boolean;
  limit: number;
  json?: boolean;
}

/** Adds `threads` (with `list`, `archive`, `unarchive`, `rename`) to the program. */
export function addThreadsCommand(program: Command): void {
  const threads = program
    .command("threads")
    .description("codex's saved threads: list (the default), archive, unarchive, rename");
  addCodexFlags(
    threads
      .command("list", { isDefault: true })
      .description("List saved threads, newest first: id, last update, title")
      .option("--cwd <dir>", "only threads that worked in this folder")
      .option("--archived", "the archived threads instead")
      .option("--limit <n>", "at most this many", wholeNumber(1), 50)
      .option("--json", "one JSON object per thread (codex's fields)"),
  ).action(async (flags: ListFlags) => {
    await withCodex(flags, async (codex) => {
      for await (const saved of codex.listThreads({
        limit: flags.limit,
        ...(flags.cwd ? { cwd: flags.cwd } : {}),
        ...(flags.archived ? { archived: true } : {}),
      })) {
        const updated = new Date(saved.updatedAt * 1000).toISOString().slice(0, 16);
        const title = (saved.name ?? saved.preview).replace(/\s+/g, " ").slice(0, 80);
        console.log(flags.json ? JSON.stringify(saved) : `${saved.id}  ${updated}  ${title}`);
      }
    });
  });
  for (const [name, description] of [
    ["archive", "Archive a thread: it leaves the list"],
    ["unarchive", "Bring an archived thread back"],
  ] as const) {
    addCodexFlags(
      threads.command(name).description(description).argument("<id>", "thread id"),
    ).action(async (id: string, flags: CodexFlags) => {
      await withCodex(flags, async (codex) => {
        if (name === "archive") await codex.archiveThread(id);
        else await codex.unarchiveThread(id);
        console.log(`${name === "archive" ? "Archived" : "Unarchived"} ${id}.`);
      });
    });
  }
  addCodexFlags(
    threads
      .command("rename")
      .description("Name a thread: its title in lists")
      .argument("<id>", "thread id")
      .argument("<name>", "the new name"),
  ).action(async (id: string, name: string, flags: CodexFlags) => {
    await withCodex(flags, async (codex) => {
      await codex.resumeThread(id).setName(name);
      console.log(`Named ${id}: ${name}`);
    });
  });
}
