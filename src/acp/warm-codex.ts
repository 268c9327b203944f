// Codex started when the editor connects, not at its first session: the app-server process (or
// the --remote connection), its handshake and API-key login, and the answers every session needs
// (the login, codex's config and models) read once. `session/new` then only starts the thread.
/**
 * How long the agent's `initialize` waits for codex to be up (started when the editor connected),
 * so that the first `session/new` only starts a thread; a slower codex is waited for by that
 * session.
 */
export const INITIALIZE_WAITS_MS = 5_000;

/** A read of codex kept for later sessions: its key, how to read it, whether to keep a value. */
export interface WarmRead<T> {
  key: string;
  read: () => Promise<T>;
  /** A value this refuses is used by whoever awaits it but read again next time (default: keep). */
  keep?(value: T): boolean;
}

/**
 * Starts codex early and keeps what was read of it. Nothing here rejects for a codex that failed
 * to start: the reads that need it fail then, as they would have without warming, and are not
 * kept, so the next session tries again.
 */
export class WarmCodex {
  private started: Promise<void> | undefined;
  private readonly kept = new Map<string, Promise<unknown>>();

  /**
   * @param codex the agent's Codex (its `start()`); closing it (the editor went away) ends a start
   *   in flight
   * @param log where a failed early start is said (it is said again by the session that needs it)
   */
  constructor(
    private readonly codex: { start(): Promise<unknown> },
    private readonly log?: (line: string) => void,
  ) {}

  /** Starts codex, then reads each of `reads`; later calls do nothing. Never rejects. */
  start(reads: WarmRead<unknown>[]): void {
    if (this.started) return;
    this.started = this.codex.start().then(
      () => {
        for (const read of reads) void this.get(read).catch(() => undefined);
      },
      (error: Error) => this.log?.(`acp: codex did not start early (${error.message})`),
    );
  }

  /**
   * Resolves when the early start has ended, well or not, or after `withinMs`, whichever is first
   * (at once when it was never begun).
   */
  async ready(withinMs: number): Promise<void> {
    if (!this.started) return;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, withinMs);
      timer.unref();
    });
    try {
      await Promise.race([this.started, waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The kept value of `read.key`, else read now (and kept unless refused or failed). */
  get<T>(read: WarmRead<T>): Promise<T> {
    const kept = this.kept.get(read.key) as Promise<T> | undefined;
    if (kept) return kept;
    const reading = read.read();
    this.kept.set(read.key, reading);
    const drop = () => {
      if (this.kept.get(read.key) === reading) this.kept.delete(read.key);
    };
    reading.then((value) => {
      if (read.keep && !read.keep(value)) drop();
    }, drop);
    return reading;
  }

  /** Forgets every kept value (the login changed: who is logged in, and so the models, may differ). */
  forget(): void {
    this.kept.clear();
  }
}
