// An unbounded async queue: producers push events, one consumer iterates them, end or failure closes it.

/** What a discarded item's slot holds until the consumer passes it. */
const DISCARDED: unique symbol = Symbol("discarded");
/** The ring's first size (doubled when full). */
const INITIAL_SLOTS = 64;

/**
 * A single-consumer async iterator fed by `push`, closed by `end` or `fail`.
 *
 * Waiting items sit in a ring, addressed by the sequence number `push` returns. The ring is only
 * copied when it grows, never as items are taken: a stale copy (garbage in V8's old generation)
 * would keep every item it points at alive through young-generation collections until the next
 * full one, so a slow consumer would promote each event it took, text and all.
 */
export class EventQueue<T> implements AsyncIterableIterator<T> {
  private slots: (T | typeof DISCARDED | undefined)[] = new Array(INITIAL_SLOTS);
  private mask = INITIAL_SLOTS - 1;
  /** The sequence number of the next item to take, and of the next one pushed. */
  private first = 0;
  private tail = 0;
  private waiting:
    | { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void }
    | undefined;
  private done = false;
  private failure: { error: unknown } | undefined;
  /**
   * Called once when the consumer is done with the queue: it read the end, got the failure (then
   * `error` is it), or stopped early with `return()` (`early` is true then).
   */
  onFinish: ((early: boolean, error?: unknown) => void) | undefined;
  /**
   * Called as each item is handed to the consumer: from the ring with its sequence number, or at
   * once to a waiting consumer with -1. Returns what the consumer gets: the item, or one made of it.
   */
  onTake: ((item: T, seq: number) => T) | undefined;
  private finished = false;

  /**
   * Adds an event; ignored once the queue is closed. Returns its sequence number while it waits,
   * -1 when a waiting consumer took it at once (or the queue is closed).
   */
  push(item: T): number {
    if (this.done) return -1;
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting.resolve({ value: this.onTake ? this.onTake(item, -1) : item, done: false });
      return -1;
    }
    if (this.tail - this.first > this.mask) this.grow();
    this.slots[this.tail & this.mask] = item;
    return this.tail++;
  }

  /** The sequence number of the last item waiting for the consumer, if any. */
  get lastSeq(): number | undefined {
    return this.first < this.tail ? this.tail - 1 : undefined;
  }

  /** The item waiting with sequence number `seq` (undefined once taken or discarded). */
  at(seq: number): T | undefined {
    if (seq < this.first || seq >= this.tail) return undefined;
    const item = this.slots[seq & this.mask];
    return item === DISCARDED ? undefined : item;
  }

  /**
   * Puts `item` back in front, as `seq`: only the item just taken (from `onTake`), whose rest is to
   * come next.
   */
  putBack(seq: number, item: T): void {
    if (seq !== this.first - 1)
      throw new Error(`EventQueue.putBack: ${seq} is not the item just taken`);
    this.slots[seq & this.mask] = item;
    this.first = seq;
  }

  /**
   * Takes back the waiting item `seq`: the consumer never sees it. Discarded items at the end are
   * removed at once (their numbers are given again), so `lastSeq` never names one.
   */
  discard(seq: number): void {
    if (seq < this.first || seq >= this.tail) return;
    this.slots[seq & this.mask] = DISCARDED;
    while (this.tail > this.first && this.slots[(this.tail - 1) & this.mask] === DISCARDED) {
      this.slots[--this.tail & this.mask] = undefined;
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

  next(): Promise<IteratorResult<T>> {
    while (this.first < this.tail) {
      const seq = this.first++;
      const value = this.slots[seq & this.mask];
      this.slots[seq & this.mask] = undefined;
      if (value === DISCARDED) continue;
      const item = value as T;
      return Promise.resolve({ value: this.onTake ? this.onTake(item, seq) : item, done: false });
    }
    if (this.done) {
      this.finish(false, this.failure?.error);
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
    this.slots = new Array(INITIAL_SLOTS);
    this.mask = INITIAL_SLOTS - 1;
    this.first = this.tail = 0;
    this.settleWaiting();
    this.finish(true);
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Doubles the ring, keeping each waiting item's sequence number. */
  private grow(): void {
    const slots: (T | typeof DISCARDED | undefined)[] = new Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let seq = this.first; seq < this.tail; seq++)
      slots[seq & mask] = this.slots[seq & this.mask];
    this.slots = slots;
    this.mask = mask;
  }

  private finish(early: boolean, error?: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.onFinish?.(early, error);
  }

  private settleWaiting(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    this.waiting = undefined;
    this.finish(false, this.failure?.error);
    if (this.failure) {
      const { error } = this.failure;
      this.failure = undefined;
      waiting.reject(error);
    } else {
      waiting.resolve({ value: undefined, done: true });
    }
  }
}
