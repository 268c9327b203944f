// codex's saved threads as the SDK offers them: listed page by page as an async iterable, and read
// back with their turns' items in the event item shapes a turn streams.
import type { AppServerAccess } from "./app-server-access.js";
import { CodexHarnessError } from "./errors.js";
import { toCanonicalItem } from "./events/items.js";
import type { ExtendedThreadItem } from "./events/types.js";
import type { Thread as WireThread } from "./protocol/generated/ts/v2/Thread.js";
import type { ThreadListParams } from "./protocol/generated/ts/v2/ThreadListParams.js";
import type { TurnError } from "./protocol/generated/ts/v2/TurnError.js";
import type { TurnStatus } from "./protocol/generated/ts/v2/TurnStatus.js";
import type { UserInput as WireUserInput } from "./protocol/generated/ts/v2/UserInput.js";
import type { UserInput } from "./turns/options.js";

/** A thread codex saved, as `thread/list` and `thread/read` describe it (codex's own fields). */
export type SavedThread = WireThread;

/** Options of `Codex.listThreads()`. */
export interface ListThreadsOptions {
  /** Archived threads instead of the others. */
  archived?: boolean;
  /** Only threads that worked in this folder (or any of these). */
  cwd?: string | string[];
  /** Stop after this many threads (default: all of them). */
  limit?: number;
  /** Threads per request (default: codex's). */
  pageSize?: number;
  /** `"created_at"` (codex's default) or `"updated_at"`; newest first. */
  sortKey?: ThreadListParams["sortKey"];
  /** Only threads of these model providers. */
  modelProviders?: string[];
  /** Only threads from these sources (`"cli"`, `"vscode"`, `"exec"`, `"appServer"`, …). */
  sourceKinds?: ThreadListParams["sourceKinds"];
  /** Only threads whose title matches. */
  searchTerm?: string;
  /**
   * Only these threads (at most 100; an empty list matches none): codex 0.171.0's
   * `includedThreadIds`, refused with `feature_not_supported` by older releases.
   */
  threadIds?: string[];
  /** Stops the listing: the iteration throws the signal's reason. */
  signal?: AbortSignal;
}

/** Every thread `options` selects, newest first, fetched a page at a time as the loop asks. */
export async function* listSavedThreads(
  appServer: AppServerAccess,
  options: ListThreadsOptions,
): AsyncGenerator<SavedThread> {
  const { limit, signal } = options;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) {
    throw new CodexHarnessError(
      "invalid_option",
      `limit must be a whole number ≥ 0, got ${limit}.`,
    );
  }
  if (options.threadIds && (!Array.isArray(options.threadIds) || options.threadIds.length > 100)) {
    throw new CodexHarnessError("invalid_option", "threadIds takes a list of at most 100 ids.");
  }
  let yielded = 0;
  let cursor: string | null = null;
  do {
    signal?.throwIfAborted();
    if (limit !== undefined && yielded >= limit) return;
    const page = await appServer.listThreads({
      ...(options.archived === undefined ? {} : { archived: options.archived }),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.sortKey ? { sortKey: options.sortKey } : {}),
      ...(options.modelProviders ? { modelProviders: options.modelProviders } : {}),
      ...(options.sourceKinds ? { sourceKinds: options.sourceKinds } : {}),
      ...(options.searchTerm ? { searchTerm: options.searchTerm } : {}),
      ...(options.threadIds ? { includedThreadIds: options.threadIds } : {}),
      ...(options.pageSize ? { limit: options.pageSize } : {}),
      ...(cursor ? { cursor } : {}),
    });
    for (const thread of page.data) {
      if (limit !== undefined && yielded >= limit) return;
      yielded++;
      yield thread;
    }
    cursor = page.nextCursor;
  } while (cursor);
}

/** One turn of a saved thread, its items in the shapes a turn's events carry. */
export interface SavedTurn {
  id: string;
  status: TurnStatus;
  error: TurnError | null;
  /** When it started and ended (Unix seconds), when codex knows. */
  startedAt: number | null;
  completedAt: number | null;
  /** What the person sent: texts and images, as a turn's input is given. */
  input: UserInput[];
  items: ExtendedThreadItem[];
}

/** What `Thread.read()` returns: the thread as codex saved it, with its turns when asked. */
export interface ThreadSnapshot {
  thread: SavedThread;
  /** Present with `includeTurns: true`. */
  turns?: SavedTurn[];
}

/** Reads thread `id` (`thread/read`), with its turns' items mapped to event items. */
export async function readSavedThread(
  appServer: AppServerAccess,
  id: string,
  includeTurns: boolean,
): Promise<ThreadSnapshot> {
  const { thread } = await appServer.readThread(id, { includeTurns });
  if (!includeTurns) return { thread };
  const turns = thread.turns.map((turn) => ({
    id: turn.id,
    status: turn.status,
    error: turn.error,
    startedAt: turn.startedAt,
    completedAt: turn.completedAt,
    input: turn.items.flatMap((item) => (item.type === "userMessage" ? inputOf(item.content) : [])),
    items: turn.items.flatMap((item) => {
      const mapped = toCanonicalItem(item as Parameters<typeof toCanonicalItem>[0]);
      return mapped ? [mapped] : [];
    }),
  }));
  return { thread, turns };
}

/** A user message's content as the input items a turn takes (what has no such item is left out). */
function inputOf(content: WireUserInput[]): UserInput[] {
  return content.flatMap((part): UserInput[] => {
    if (part.type === "text") return [{ type: "text", text: part.text }];
    if (part.type === "localImage") return [{ type: "local_image", path: part.path }];
    if (part.type === "image" && "url" in part) return [{ type: "image", url: part.url }];
    return [];
  });
}
