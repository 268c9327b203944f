// `GET /v1/events`: the runtime's changes as server-sent events. A client resuming with
// `Last-Event-ID` (or `?since=`) first gets the changes it missed, read from the store a page at a
// time at the pace it reads them; then live ones. A client that stops reading is cut off once
// more than its buffer bound waits unsent, so it cannot grow the runtime's memory; it may come
// back with `Last-Event-ID` and miss nothing.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Interaction, InteractionChange } from "./interaction-types.js";
import type { ChannelsRuntime } from "./runtime.js";

/** Bytes an SSE client may leave unread before the runtime cuts it off (1 MiB). */
export const DEFAULT_SSE_BUFFER_BYTES = 1024 * 1024;
/** How often a stream is pinged and its token checked again (15 s). */
export const DEFAULT_SSE_HEARTBEAT_MS = 15_000;
/** Changes read from the store per page while a client catches up (bounds memory per client). */
const REPLAY_PAGE = 32;
/** Longest a catching-up client may take to read one page's worth before it is cut off. */
const REPLAY_DRAIN_MS = 30_000;

/** Options of {@link streamChanges}. */
export interface StreamOptions {
  /** See {@link DEFAULT_SSE_BUFFER_BYTES}. */
  maxBufferedBytes: number;
  /** Told when the stream ends, however it ends. */
  onClose?: () => void;
  /** How often the stream is pinged (default 15 s). */
  heartbeatMs?: number;
  /**
   * Asked at each ping whether the client may still read (its token not revoked meanwhile); the
   * stream ends when it says no.
   */
  stillAllowed?: () => Promise<boolean>;
  /**
   * The interaction as this client may see it; undefined leaves the change out (its routing hides
   * it from them). Default: as it is.
   */
  view?: (interaction: Interaction) => Interaction | undefined;
}

/** Streams `runtime`'s changes to `response` until the client goes or is cut off. */
export async function streamChanges(
  runtime: ChannelsRuntime,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  options: StreamOptions,
): Promise<void> {
  const since = Number(request.headers["last-event-id"] ?? url.searchParams.get("since") ?? -1);
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    connection: "keep-alive",
  });
  response.write(": codex-harness channels\n\n");
  let replaying = Number.isFinite(since) && since >= 0;
  let last = replaying ? since : -1;
  // While catching up, live changes are only counted: the store has them, the next page reads them.
  let newest = last;
  const overBound = () => response.writableLength > options.maxBufferedBytes;
  const write = (change: InteractionChange): boolean => {
    if (change.seq <= last) return true;
    last = change.seq;
    const shown = options.view ? options.view(change.interaction) : change.interaction;
    if (!shown) return true;
    return response.write(
      `id: ${change.seq}\nevent: ${change.type}\ndata: ${JSON.stringify(shown)}\n\n`,
    );
  };
  const off = runtime.subscribe((change) => {
    if (replaying) {
      newest = Math.max(newest, change.seq);
    } else if (overBound()) {
      response.destroy(); // not reading: cut off (it may resume with Last-Event-ID)
    } else {
      write(change);
    }
  });
  const heartbeat = setInterval(() => {
    if (overBound()) response.destroy();
    else response.write(": ping\n\n");
    options.stillAllowed?.().then(
      (allowed) => {
        if (!allowed) response.end();
      },
      () => undefined, // the store is unreachable: the next ping asks again
    );
  }, options.heartbeatMs ?? DEFAULT_SSE_HEARTBEAT_MS);
  heartbeat.unref();
  response.on("close", () => {
    off();
    clearInterval(heartbeat);
    options.onClose?.();
  });
  while (replaying && !response.destroyed) {
    const page = await runtime.changesSince(last, REPLAY_PAGE);
    for (const change of page) {
      if (response.destroyed) return;
      if (!write(change) && overBound() && !(await drained(response, REPLAY_DRAIN_MS))) {
        response.destroy();
        return;
      }
    }
    // Caught up when a short page came back and nothing newer was published meanwhile.
    if (page.length < REPLAY_PAGE && newest <= last) replaying = false;
  }
}

/** Resolves true once `response` drains, false when it closes or `timeoutMs` passes first. */
export function drained(response: ServerResponse, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      response.off("drain", onDrain);
      response.off("close", onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    response.once("drain", onDrain);
    response.once("close", onClose);
  });
}
