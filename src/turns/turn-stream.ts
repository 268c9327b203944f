// A turn's event stream: a setup phase (a generator), then the turn's queue read directly.
import type { EventQueue } from "./event-queue.js";

/**
 * Yields what `setup` yields; when `setup` returns a queue, reads that queue directly, so each
 * event of a long turn costs no more than the queue's own `next()`. `return()` reaches whichever
 * phase is running, so the setup's `finally` or the queue's `onFinish` cleans up.
 */
export class TurnStream<T> implements AsyncGenerator<T, void, unknown> {
  private tail: EventQueue<T> | undefined;

  constructor(private readonly setup: AsyncGenerator<T, EventQueue<T> | undefined, unknown>) {}

  next(): Promise<IteratorResult<T, void>> {
    if (this.tail) return this.tail.next();
    return this.setup.next().then((result) => {
      if (!result.done) return result;
      if (!result.value) return { value: undefined, done: true };
      this.tail = result.value;
      return this.tail.next();
    });
  }

  async return(): Promise<IteratorResult<T, void>> {
    if (this.tail) return this.tail.return();
    await this.setup.return(undefined);
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
