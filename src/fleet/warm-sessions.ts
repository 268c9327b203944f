// The sessions a worker keeps warm: after a turn it recorded, the session's codex stays open (its
// thread loaded, its session home claimed) so that the session's next turn, if it comes to this
// worker before another moved the session on, skips codex's start and the thread's resume.
import { CodexHarnessError } from "../errors.js";
import type { LiveSession } from "../session/live-session.js";
import type { ClaimedHome } from "./session-files.js";

/** A session kept warm, and the stored state it is warm for. */
export interface WarmSession {
  sessionId: string;
  live: LiveSession;
  claimed: ClaimedHome;
  /** The session's version in the store once its turn here was recorded. */
  version: number;
  /** The installed target's manifest hash the turn ran with. */
  manifestHash: string;
}

/** How many sessions a worker keeps warm, and for how long, by default. */
export const DEFAULT_WARM = { sessions: 4, idleMs: 120_000 } as const;

/** At most `max` warm sessions, each closed after `idleMs` unused; the oldest goes first. */
export class WarmSessions {
  private readonly warm = new Map<string, { session: WarmSession; timer: NodeJS.Timeout }>();
  private closed = false;

  /**
   * @param forget told, after it is closed, of a session that left because it was idle or the
   *   oldest (the store then stops naming this worker as its warm one); a failure is logged.
   */
  constructor(
    private readonly max: number,
    private readonly idleMs: number,
    private readonly log: (line: string) => void,
    private readonly forget: (sessionId: string) => Promise<void> = async () => undefined,
  ) {}

  /** Whether a session given to {@link keep} now is kept (not closed at once). */
  get keeps(): boolean {
    return !this.closed && this.max > 0;
  }

  /** Refuses a count or idle time a worker cannot keep. */
  static check(max: number, idleMs: number): void {
    if (!Number.isInteger(max) || max < 0) {
      throw new CodexHarnessError(
        "invalid_option",
        `warmSessions must be a whole number >= 0 (0 keeps none), got ${JSON.stringify(max)}.`,
      );
    }
    if (!Number.isFinite(idleMs) || idleMs < 0) {
      throw new CodexHarnessError(
        "invalid_option",
        `warmIdleMs must be a number of milliseconds >= 0, got ${JSON.stringify(idleMs)}.`,
      );
    }
  }

  /**
   * Takes `sessionId`'s warm session if it is warm for the stored `version` and `manifestHash`;
   * one warm for anything else is closed (another worker moved the session on, or its target
   * changed). Resolves undefined when there is none to use; never rejects.
   */
  async take(
    sessionId: string,
    version: number | undefined,
    manifestHash: string,
  ): Promise<WarmSession | undefined> {
    const session = this.remove(sessionId);
    if (!session) return undefined;
    if (session.version === version && session.manifestHash === manifestHash) return session;
    await this.discard(session, "moved on elsewhere");
    return undefined;
  }

  /**
   * Keeps `session` warm, closing the oldest when full (at once when this is closed or keeps
   * none). Never rejects.
   */
  async keep(session: WarmSession): Promise<void> {
    if (this.closed || this.max === 0) return this.discard(session, "not kept");
    // The map changes before anything is awaited: a turn ending meanwhile sees it as it is.
    const replaced = this.remove(session.sessionId);
    const evicted: (WarmSession | undefined)[] = [];
    while (this.warm.size >= this.max) {
      evicted.push(this.remove(this.warm.keys().next().value as string));
    }
    const timer = setTimeout(() => {
      if (this.warm.get(session.sessionId)?.session !== session) return;
      this.remove(session.sessionId);
      void this.drop(session, "idle");
    }, this.idleMs);
    timer.unref();
    this.warm.set(session.sessionId, { session, timer });
    await Promise.all([
      replaced ? this.discard(replaced, "replaced") : undefined,
      ...evicted.map((old) => (old ? this.drop(old, "the oldest warm") : undefined)),
    ]);
  }

  /** Closes every warm session; later ones are closed as they come. */
  async close(): Promise<void> {
    this.closed = true;
    const sessions = [...this.warm.keys()].map((sessionId) => this.remove(sessionId));
    await Promise.all(
      sessions.map((session) => (session ? this.discard(session, "closing") : undefined)),
    );
  }

  /** Forgets `sessionId`'s warm session (and its idle timer); returns it, to be closed or used. */
  private remove(sessionId: string): WarmSession | undefined {
    const entry = this.warm.get(sessionId);
    if (!entry) return undefined;
    this.warm.delete(sessionId);
    clearTimeout(entry.timer);
    return entry.session;
  }

  /** Closes a session that left the warm ones, and says so to {@link forget}. */
  private async drop(session: WarmSession, why: string): Promise<void> {
    await this.discard(session, why);
    await this.forget(session.sessionId).catch((error: Error) =>
      this.log(`forgetting session ${session.sessionId} as warm (${why}) failed: ${error.message}`),
    );
  }

  /** Closes a session that is not (or no longer) kept; a close that fails is logged. */
  async discard(session: WarmSession, why: string): Promise<void> {
    await closeWarm(session).catch((error: Error) =>
      this.log(
        `closing session ${session.sessionId}'s warm codex (${why}) failed: ${error.message}`,
      ),
    );
  }
}

/** Ends a warm session's codex and lets go of its session home. */
async function closeWarm(session: WarmSession): Promise<void> {
  try {
    await session.live.close();
  } finally {
    await session.claimed.release();
  }
}
