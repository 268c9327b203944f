// A turn transport whose implementation is imported on its first turn, so that importing the
// package does not load what only one transport needs (the exec transport's process and parsers).
import type { WithRaw } from "../events/raw.js";
import type { ThreadEvent } from "../events/types.js";
import type { TurnRequest, TurnTransport } from "./turn-transport.js";

/**
 * Stands for the transport `load` creates: the first `runTurn` stream to be read loads it, and
 * every turn then goes to it. Only `runTurn` and `close` are offered (the exec transport's).
 */
export class LazyTurnTransport implements TurnTransport {
  private loading: Promise<TurnTransport> | undefined;
  private closed = false;

  constructor(
    readonly kind: TurnTransport["kind"],
    private readonly load: () => Promise<TurnTransport>,
  ) {}

  runTurn(request: TurnRequest): AsyncGenerator<WithRaw<ThreadEvent>> {
    return new LazyStream(async () => {
      const transport = await this.transport();
      // Closed before it was loaded: a closed transport refuses the turn in its own words.
      if (this.closed) await transport.close();
      return transport.runTurn(request);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.loading) await (await this.loading).close();
  }

  private transport(): Promise<TurnTransport> {
    this.loading ??= this.load();
    // A failed import is not cached: the next turn tries again.
    this.loading.catch(() => {
      this.loading = undefined;
    });
    return this.loading;
  }
}

/** A stream opened on its first `next()` from a promised one; afterwards every call goes to it. */
class LazyStream<T> implements AsyncGenerator<T, void, unknown> {
  private inner: Promise<AsyncGenerator<T>> | undefined;
  private finished = false;

  constructor(private readonly open: () => Promise<AsyncGenerator<T>>) {}

  async next(): Promise<IteratorResult<T, void>> {
    if (this.finished) return { value: undefined, done: true };
    this.inner ??= this.open();
    try {
      const result = await (await this.inner).next();
      if (result.done) this.finished = true;
      return result.done ? { value: undefined, done: true } : result;
    } catch (error) {
      this.finished = true;
      throw error;
    }
  }

  async return(): Promise<IteratorResult<T, void>> {
    this.finished = true;
    // Never opened (or failed to open): nothing to end.
    const inner = await this.inner?.catch(() => undefined);
    await inner?.return(undefined);
    return { value: undefined, done: true };
  }

  async throw(error: unknown): Promise<IteratorResult<T, void>> {
    await this.return();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
