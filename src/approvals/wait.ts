// Waits for a value, a deadline or an abort — whichever comes first — with one cleanup path.

/** How a wait ended. */
export type WaitOutcome<T> =
  | { outcome: "value"; value: T }
  | { outcome: "timeout" }
  | { outcome: "aborted" };

/**
 * Resolves when `value` settles (rejections are thrown), `deadline` (if any) passes, or `signal`
 * aborts. A rejection of `value` after the wait ended is taken here (no unhandled rejection).
 */
export function waitFor<T>(
  value: T | Promise<T>,
  signal: AbortSignal,
  deadline?: number,
): Promise<WaitOutcome<T>> {
  if (signal.aborted) {
    Promise.resolve(value).catch(() => undefined);
    return Promise.resolve({ outcome: "aborted" });
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => done({ outcome: "aborted" });
    const timer =
      deadline === undefined
        ? undefined
        : setTimeout(() => done({ outcome: "timeout" }), Math.max(0, deadline - Date.now()));
    let settled = false;
    function done(result: WaitOutcome<T> | { error: unknown }): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      if ("error" in result) reject(result.error);
      else resolve(result);
    }
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(value).then(
      (resolved) => done({ outcome: "value", value: resolved }),
      (error: unknown) => done({ error }),
    );
  });
}
