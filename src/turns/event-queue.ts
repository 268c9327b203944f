// An unbounded async queue: producers push events, one consumer iterates them, end or failure closes it.

/** A single-consumer async iterable fed by `push`, closed by `end` or `fail`. */
export class EventQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private wake: (() => void) | undefined;
  private done = false;
  private failure: { error: unknown } | undefined;

  /** Adds an event; ignored once the queue is closed. */
  push(item: T): void {
    if (this.done) return;
    this.items.push(item);
    this.notify();
  }

  /** Ends the stream after the queued events. */
  end(): void {
    this.done = true;
    this.notify();
  }

  /** Ends the stream with an error, thrown after the queued events. */
  fail(error: unknown): void {
    if (this.done) return;
    this.failure = { error };
    this.done = true;
    this.notify();
  }

  get closed(): boolean {
    return this.done;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    let index = 0;
    for (;;) {
      if (index < this.items.length) {
        const item = this.items[index] as T;
        // Drop consumed events so a long stream does not grow memory.
        if (++index > 1024) {
          this.items.splice(0, index);
          index = 0;
        }
        yield item;
        continue;
      }
      if (this.done) {
        if (this.failure) throw this.failure.error;
        return;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
