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

  constructor(
    private readonly max: number,
    private readonly idleMs: number,
    private readonly log: (line: string) => void,
  ) {}

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
   * changed). Resolves undefined when there is none to use.
   */
  async take(
    sessionId: string,
    version: number | undefined,
    manifestHash: string,
  ): Promise<WarmSession | undefined> {
    const entry = this.warm.get(sessionId);
    if (!entry) return undefined;
    this.warm.delete(sessionId);
    clearTimeout(entry.timer);
    const { session } = entry;
    if (session.version === version && session.manifestHash === manifestHash) return session;
    await closeWarm(session);
    return undefined;
  }

  /** Keeps `session` warm (closing the oldest when full); closes it when this is closed. */
  async keep(session: WarmSession): Promise<void> {
    if (this.closed || this.max === 0) return closeWarm(session);
    const previous = this.warm.get(session.sessionId);
    if (previous) await this.drop(session.sessionId, previous);
    while (this.warm.size >= this.max) {
      const [oldest, entry] = this.warm.entries().next().value as [
        string,
        { session: WarmSession; timer: NodeJS.Timeout },
      ];
      await this.drop(oldest, entry);
    }
    const timer = setTimeout(() => {
      const entry = this.warm.get(session.sessionId);
      if (entry?.session === session) {
        void this.drop(session.sessionId, entry).catch((error: Error) =>
          this.log(`closing idle session ${session.sessionId}'s codex failed: ${error.message}`),
        );
      }
    }, this.idleMs);
    timer.unref();
    this.warm.set(session.sessionId, { session, timer });
  }

  /** Closes every warm session; later ones are closed as they come. */
  async close(): Promise<void> {
    this.closed = true;
    const entries = [...this.warm];
    this.warm.clear();
    await Promise.all(
      entries.map(async ([, entry]) => {
        clearTimeout(entry.timer);
        await closeWarm(entry.session);
      }),
    );
  }

  private async drop(
    sessionId: string,
    entry: { session: WarmSession; timer: NodeJS.Timeout },
  ): Promise<void> {
    this.warm.delete(sessionId);
    clearTimeout(entry.timer);
    await closeWarm(entry.session);
  }
}

/** Ends a warm session's codex and lets go of its session home. */
export async function closeWarm(session: WarmSession): Promise<void> {
  try {
    await session.live.close();
  } finally {
    await session.claimed.release();
  }
}
