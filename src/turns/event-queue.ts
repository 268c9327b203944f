// An unbounded async queue: producers push events, one consumer iterates them, end or failure closes it.

/** A single-consumer async iterator fed by `push`, closed by `end` or `fail`. */
export class EventQueue<T> implements AsyncIterableIterator<T> {
  private items: T[] = [];
  private head = 0;
  private waiting:
    | { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void }
    | undefined;
  private done = false;
  private failure: { error: unknown } | undefined;
  /**
   * Called once when the consumer is done with the queue: it read the end, got the failure, or
   * stopped early with `return()` (`early` is true then).
   */
  onFinish: ((early: boolean) => void) | undefined;
  /** Called as each item is handed to the consumer (from the buffer, or at once to a waiting one). */
  onTake: ((item: T) => void) | undefined;
  private finished = false;
  /** Queued items taken back (see {@link discard}): skipped when their turn comes. */
  private readonly discarded = new Set<T>();

  /** Adds an event; ignored once the queue is closed. */
  push(item: T): void {
    if (this.done) return;
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      this.onTake?.(item);
      waiting.resolve({ value: item, done: false });
    } else {
      this.items.push(item);
    }
  }

  /** Ends the stream after the queued events. */
  end(): void {
    if (this.done) return;
    this.done = true;
    this.settleWaiting();
  }

  /** Ends the stream with an error, thrown after the queued events. */
  fail(error: unknown): void {
    if (this.done) return;
    this.failure = { error };
    this.done = true;
    this.settleWaiting();
  }

  get closed(): boolean {
    return this.done;
  }

  /** The last item waiting for the consumer, if any (it may still be changed before it is taken). */
  get lastQueued(): T | undefined {
    return this.head < this.items.length ? this.items[this.items.length - 1] : undefined;
  }

  /** Takes back an item still waiting in the queue: the consumer never sees it. */
  discard(item: T): void {
    this.discarded.add(item);
    // Taken back at the end at once, so that `lastQueued` is never a discarded item.
    while (this.head < this.items.length) {
      const last = this.items[this.items.length - 1] as T;
      if (!this.discarded.delete(last)) break;
      this.items.pop();
    }
  }

  next(): Promise<IteratorResult<T>> {
    while (this.head < this.items.length) {
      const value = this.items[this.head] as T;
      this.items[this.head++] = undefined as T;
      if (this.discarded.size > 0 && this.discarded.delete(value)) continue;
      this.onTake?.(value);
      // Drop consumed slots now and then so a long stream does not grow memory.
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.done) {
      this.finish(false);
      if (this.failure) {
        const { error } = this.failure;
        this.failure = undefined;
        return Promise.reject(error);
      }
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** The consumer stops: the queue closes and `onFinish(true)` runs. */
  return(): Promise<IteratorResult<T>> {
    this.done = true;
    this.failure = undefined;
    this.items = [];
    this.head = 0;
    this.settleWaiting();
    this.finish(true);
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private finish(early: boolean): void {
    if (this.finished) return;
    this.finished = true;
    this.onFinish?.(early);
  }

  private settleWaiting(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    this.waiting = undefined;
    this.finish(false);
    if (this.failure) {
      const { error } = this.failure;
      this.failure = undefined;
      waiting.reject(error);
    } else {
      waiting.resolve({ value: undefined, done: true });
    }
  }
}
