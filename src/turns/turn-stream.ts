// A turn's event stream: a setup phase (a generator), then the turn's queue read directly.
import type { EventQueue } from "./event-queue.js";

/** Watches a turn stream: its opening (may refuse by throwing), each event, and its end. */
export interface StreamObserver<T> {
  /** The consumer started reading (first `next()`); throw to refuse the turn. */
  onOpen(): void;
  /** An event is handed to the consumer. */
  onEvent(event: T): void;
  /** An opened stream ended, failed (with `error`) or was abandoned (once). */
  onEnd(error?: unknown): void;
}

/**
 * The one observed turn stream of both transports. Yields what `setup` yields; when `setup` returns a queue, reads that queue directly, so each
 * event of a long turn costs no more than the queue's own `next()` (the watcher is told of
 * queue events as the queue hands them out). `return()` reaches whichever phase is running, so the
 * setup's `finally` or the queue's `onFinish` cleans up.
 */
export class TurnStream<T> implements AsyncGenerator<T, void, unknown> {
  private tail: EventQueue<T> | undefined;
  private opened = false;
  private ended = false;

  constructor(
    private readonly setup: AsyncGenerator<T, EventQueue<T> | undefined, unknown>,
    private readonly watcher?: StreamObserver<T>,
  ) {}

  next(): Promise<IteratorResult<T, void>> {
    if (this.tail) return this.tail.next();
    if (!this.opened) {
      this.opened = true;
      try {
        this.watcher?.onOpen();
      } catch (error) {
        this.ended = true;
        return Promise.reject(error);
      }
    }
    return this.setup.next().then(
      (result) => {
        if (!result.done) {
          this.watcher?.onEvent(result.value);
          return result;
        }
        if (!result.value) {
          this.end();
          return { value: undefined, done: true };
        }
        this.attach(result.value);
        return (this.tail as EventQueue<T>).next();
      },
      (error: unknown) => {
        this.end(error);
        throw error;
      },
    );
  }

  async return(): Promise<IteratorResult<T, void>> {
    if (this.tail) return this.tail.return();
    await this.setup.return(undefined);
    this.end();
    return { value: undefined, done: true };
  }

  async throw(error: unknown): Promise<IteratorResult<T, void>> {
    await this.return();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Reads the queue from now on; the watcher hears its events and its end from the queue. */
  private attach(queue: EventQueue<T>): void {
    this.tail = queue;
    const watcher = this.watcher;
    if (!watcher) return;
    const take = queue.onTake;
    queue.onTake = (queued, seq) => {
      const event = take ? take(queued, seq) : queued;
      watcher.onEvent(event);
      return event;
    };
    const finish = queue.onFinish;
    queue.onFinish = (early, error) => {
      finish?.(early, error);
      this.end(error);
    };
  }

  private end(error?: unknown): void {
    if (this.ended || !this.opened) return;
    this.ended = true;
    this.watcher?.onEnd(error);
  }
}
