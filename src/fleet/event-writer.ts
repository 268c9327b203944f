// An attempt's events on their way to PostgreSQL: written in order, those that arrive while a write
// is under way together in the next one (one fenced transaction for many), so a turn that streams
// hundreds of deltas costs a few transactions, not one each, and never waits for the database.

/** The most events written in one transaction. */
const MAX_BATCH = 256;

/** Writes events in order, in batches; the first refused write stops it (see `onRefused`). */
export class EventWriter {
  private pending: object[] = [];
  private writing: Promise<void> | undefined;
  private refused: Error | undefined;

  constructor(
    /** Writes a batch (one fenced transaction); throws when it is refused or impossible. */
    private readonly writeBatch: (events: object[]) => Promise<unknown>,
    /** Told once, of the first refused write: neither its events nor later ones are written. */
    private readonly onRefused: (error: Error) => void,
  ) {}

  /** Queues an event (ignored once a write was refused); it is written soon, after the earlier. */
  add(event: object): void {
    if (this.refused) return;
    this.pending.push(event);
    this.writing ??= this.writeAll();
  }

  /** Resolves once every queued event was written, or a write was refused. */
  async drain(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async writeAll(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, MAX_BATCH);
        try {
          await this.writeBatch(batch);
        } catch (error) {
          this.refused = error as Error;
          this.pending = [];
          this.onRefused(this.refused);
        }
      }
    } finally {
      this.writing = undefined;
    }
  }
}
