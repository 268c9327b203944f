// One turn at a time per thread: a turn (or a followed goal) holds its thread until released.
import { abortedBeforeStart } from "./stopped-turns.js";

/** The threads held by a running turn, each until its release. */
export class ThreadLocks {
  private readonly held = new Map<string, Promise<void>>();

  /**
   * Waits until nothing holds `threadId`, then holds it until the returned release. An aborted
   * `signal` gives up the wait (the turn was stopped before codex started it).
   */
  async lock(threadId: string, signal: AbortSignal | undefined): Promise<() => void> {
    for (let held = this.held.get(threadId); held; held = this.held.get(threadId)) {
      await waitOrAbort(held, signal);
    }
    let release!: () => void;
    const lock = new Promise<void>((resolve) => {
      release = () => {
        if (this.held.get(threadId) === lock) this.held.delete(threadId);
        resolve();
      };
    });
    this.held.set(threadId, lock);
    return release;
  }
}

function waitOrAbort(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortedBeforeStart(signal.reason));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortedBeforeStart(signal.reason));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}
