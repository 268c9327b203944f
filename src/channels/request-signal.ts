// One request's abort signal, tied to longer-lived ones (the dispatcher's lifetime, a backend's
// close) and to a timeout, leaving nothing on them once the request is over.

/**
 * Runs `request` with a signal of its own that aborts when any of `tiedTo` aborts (with that
 * signal's reason), or after `timeoutMs` when given (with a `TimeoutError`, as
 * `AbortSignal.timeout`). When `request` settles, the one listener put on each of `tiedTo` and the
 * timer are removed, so a signal that lives as long as the process carries nothing per request.
 *
 * Not the alternatives: a long-lived signal handed to a library that adds an abort listener per
 * call and never removes it (discord.js's REST) keeps one listener per call; `AbortSignal.any` per
 * call keeps, on Node 20, a reference per call in each source until that source aborts.
 */
export async function withRequestSignal<T>(
  tiedTo: readonly (AbortSignal | undefined)[],
  request: (signal: AbortSignal) => Promise<T>,
  timeoutMs?: number,
): Promise<T> {
  const controller = new AbortController();
  const untie: (() => void)[] = [];
  for (const source of tiedTo) {
    if (!source) continue;
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    const onAbort = () => controller.abort(source.reason);
    source.addEventListener("abort", onAbort, { once: true });
    untie.push(() => source.removeEventListener("abort", onAbort));
  }
  let timer: NodeJS.Timeout | undefined;
  if (timeoutMs !== undefined && !controller.signal.aborted) {
    timer = setTimeout(
      () =>
        controller.abort(
          new DOMException(`The request was aborted after ${timeoutMs} ms`, "TimeoutError"),
        ),
      timeoutMs,
    );
  }
  try {
    return await request(controller.signal);
  } finally {
    clearTimeout(timer);
    for (const remove of untie) remove();
  }
}
