// A turn transport whose implementation is imported on its first turn, so that importing the
// package does not load what only one transport needs (the exec transport's process and parsers).
import type { WithRaw } from "../events/raw.js";
import type { ExtendedThreadEvent } from "../events/types.js";
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

  async *runTurn(request: TurnRequest): AsyncGenerator<WithRaw<ExtendedThreadEvent>> {
    // Runs on the first next(): the transport loads then, not when the stream is made.
    const transport = await this.transport();
    // Closed before it was loaded: a closed transport refuses the turn in its own words.
    if (this.closed) await transport.close();
    yield* transport.runTurn(request);
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
