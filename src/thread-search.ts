// codex's thread search as the SDK offers it: `thread/search/stream` as an async iterable of result
// lists (codex's provisional matches as it finds them, then the final page), cancelled in codex
// when the loop stops early or the signal aborts.
import type { AppServerAccess } from "./app-server-access.js";
import { CodexHarnessError } from "./errors.js";
import type { ThreadSearchParams } from "./protocol/generated/ts/v2/ThreadSearchParams.js";
import type { ThreadSearchPartialNotification } from "./protocol/generated/ts/v2/ThreadSearchPartialNotification.js";
import type { ThreadSearchResponse } from "./protocol/generated/ts/v2/ThreadSearchResponse.js";
import type { ThreadSearchResult } from "./protocol/generated/ts/v2/ThreadSearchResult.js";

export type { ThreadSearchResult };

/** codex's limit on a streamed search's query, in UTF-8 bytes after trimming (0.171.0). */
export const MAX_SEARCH_QUERY_BYTES = 65_536;

/** How long the cancel of an abandoned search may take before the loop ends anyway. */
const CANCEL_TIMEOUT_MS = 5_000;

/** Options of `Codex.searchThreads()`: codex's `thread/search/stream` params, and a signal. */
export interface SearchThreadsOptions {
  /** Archived threads instead of the others. */
  archived?: boolean;
  /** Only threads from these sources (default: the interactive ones). */
  sourceKinds?: ThreadSearchParams["sourceKinds"];
  /** `"created_at"` (codex's default) or `"updated_at"`. */
  sortKey?: ThreadSearchParams["sortKey"];
  /** `"desc"` (codex's default, newest first) or `"asc"`. */
  sortDirection?: ThreadSearchParams["sortDirection"];
  /** Results per page (default: codex's). */
  pageSize?: number;
  /** Continue after an earlier page: its `nextCursor` (or `backwardsCursor` with the other direction). */
  cursor?: string;
  /** Include persistent threads attached to a parent. */
  includeAttachedThreads?: boolean;
  /** Only local history visible to the current ChatGPT account. */
  currentAccountOnly?: boolean;
  /** Stops the search: codex is told to cancel it and the iteration throws the signal's reason. */
  signal?: AbortSignal;
}

/** One step of a search: what codex has found so far, or its final page. */
export type ThreadSearchUpdate =
  | {
      /**
       * `false`: codex's provisional matches (`thread/search/partial`), every one announced so far
       * in the order found. Best effort: some may be missing or fall outside the final page.
       */
      final: false;
      results: ThreadSearchResult[];
    }
  | ({
      /** `true`: the search's page, sorted; it replaces every provisional list. Always the last update. */
      final: true;
      results: ThreadSearchResult[];
    } & Omit<ThreadSearchResponse, "data">);

/**
 * Searches the saved threads for `query` (`thread/search/stream`, codex 0.171.0 and later): yields
 * provisional lists while codex searches, then the final page. A loop that stops before the final
 * page (`break`, a throw, the signal) cancels the search in codex (`thread/search/stream/cancel`).
 */
export async function* searchSavedThreads(
  appServer: AppServerAccess,
  query: string,
  options: SearchThreadsOptions = {},
): AsyncGenerator<ThreadSearchUpdate, void, undefined> {
  const params = paramsOf(checkQuery(query), options);
  const { signal } = options;
  signal?.throwIfAborted();
  const client = await appServer.client();
  const found: ThreadSearchResult[] = [];
  const batches: ThreadSearchResult[][] = [];
  let outcome: { result: ThreadSearchResponse } | { error: unknown } | undefined;
  /** Whether codex ended the search itself (answered), rather than our giving up on it. */
  let codexDone = false;
  let wake: (() => void) | undefined;
  const changed = () => {
    wake?.();
    wake = undefined;
  };
  let requestId: number | undefined;
  const off = client.onNotification(
    "thread/search/partial",
    (params: ThreadSearchPartialNotification) => {
      if (requestId === undefined || params.requestId !== requestId) return;
      batches.push(params.data);
      changed();
    },
  );
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  client
    .request("thread/search/stream", params, {
      signal: stop.signal,
      onRequestId: (id) => {
        requestId = id;
      },
    })
    .then(
      (result) => {
        outcome = { result };
        codexDone = true;
      },
      (error: unknown) => {
        outcome = { error };
        codexDone = !stop.signal.aborted;
      },
    )
    .finally(changed);
  let finished = false;
  try {
    for (;;) {
      if (outcome && "result" in outcome) {
        finished = true;
        const { data, ...cursors } = outcome.result;
        yield { final: true, results: data, ...cursors };
        return;
      }
      if (outcome) throw signal?.aborted ? signal.reason : outcome.error;
      const batch = batches.shift();
      if (batch) {
        found.push(...batch);
        yield { final: false, results: [...found] };
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    off();
    signal?.removeEventListener("abort", onAbort);
    if (!finished && !codexDone) {
      stop.abort(new CodexHarnessError("aborted", "The search was stopped."));
      // codex goes on searching for a request we no longer wait for, unless told.
      if (requestId !== undefined) {
        await client
          .request("thread/search/stream/cancel", { requestId }, { timeoutMs: CANCEL_TIMEOUT_MS })
          .catch(() => undefined);
      }
    }
  }
}

function checkQuery(query: unknown): string {
  if (typeof query !== "string" || query.trim() === "") {
    throw new CodexHarnessError("invalid_input", "searchThreads needs a non-empty query.");
  }
  const bytes = Buffer.byteLength(query.trim(), "utf8");
  if (bytes > MAX_SEARCH_QUERY_BYTES) {
    throw new CodexHarnessError(
      "invalid_input",
      `searchThreads' query is ${bytes} UTF-8 bytes; codex takes at most ${MAX_SEARCH_QUERY_BYTES}.`,
    );
  }
  return query;
}

function paramsOf(searchTerm: string, options: SearchThreadsOptions): ThreadSearchParams {
  const { pageSize } = options;
  if (pageSize !== undefined && (!Number.isInteger(pageSize) || pageSize < 1)) {
    throw new CodexHarnessError(
      "invalid_option",
      `pageSize must be a whole number ≥ 1, got ${pageSize}.`,
    );
  }
  return {
    searchTerm,
    ...(options.archived === undefined ? {} : { archived: options.archived }),
    ...(options.sourceKinds ? { sourceKinds: options.sourceKinds } : {}),
    ...(options.sortKey ? { sortKey: options.sortKey } : {}),
    ...(options.sortDirection ? { sortDirection: options.sortDirection } : {}),
    ...(pageSize === undefined ? {} : { limit: pageSize }),
    ...(options.cursor ? { cursor: options.cursor } : {}),
    ...(options.includeAttachedThreads === undefined
      ? {}
      : { includeAttachedThreads: options.includeAttachedThreads }),
    ...(options.currentAccountOnly === undefined
      ? {}
      : { currentAccountOnly: options.currentAccountOnly }),
  };
}
