// Wraps a turn's stream to watch its events and its end, without another async generator per event.

/** Hooks an {@link ObservedStream} calls. */
export interface StreamObserver<T> {
  /** Opens the underlying stream on the first `next()`; may throw to refuse. */
  open(): AsyncGenerator<T>;
  onEvent(event: T): void;
  /** Runs once when an opened stream ends, fails, or is abandoned. */
  onEnd(): void;
}

/** A lazily opened stream whose events and end are observed (one extra promise per event). */
export class ObservedStream<T> implements AsyncGenerator<T, void, unknown> {
  private inner: AsyncGenerator<T> | undefined;
  private ended = false;

  constructor(private readonly observer: StreamObserver<T>) {}

  next(): Promise<IteratorResult<T, void>> {
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    if (!this.inner) {
      try {
        this.inner = this.observer.open();
      } catch (error) {
        this.ended = true;
        return Promise.reject(error);
      }
    }
    return this.inner.next().then(
      (result) => {
        if (result.done) this.end();
        else this.observer.onEvent(result.value);
        return result.done ? { value: undefined, done: true } : result;
      },
      (error: unknown) => {
        this.end();
        throw error;
      },
    );
  }

  async return(): Promise<IteratorResult<T, void>> {
    const inner = this.inner;
    this.end();
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

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.inner) this.observer.onEnd();
  }
}

/** `stream` observed by `observer` (if any): for transports that do not call it natively. */
export function observe<T>(
  open: () => AsyncGenerator<T>,
  observer: { onOpen(): void; onEvent(event: T): void; onEnd(): void } | undefined,
): AsyncGenerator<T> {
  if (!observer) return open();
  return new ObservedStream<T>({
    open: () => {
      observer.onOpen();
      return open();
    },
    onEvent: (event) => observer.onEvent(event),
    onEnd: () => observer.onEnd(),
  });
}
