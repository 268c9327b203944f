// `run --target T --session ID`: the session's codex thread, from and to its runTurn record.
import { CodexHarnessError } from "../errors.js";
import {
  readSessionRecord,
  type SessionRecord,
  saveCodexSessionRecord,
} from "../session/session-store.js";

/**
 * An external session as the CLI continues it: the codex thread its record names (the record
 * `runTurn` keeps too, so both continue the same conversation), remembered once a thread starts.
 */
export class TargetSession {
  private constructor(
    private readonly aspHome: string,
    private readonly record: SessionRecord | null,
    private readonly sessionId: string,
    /** The thread this turn continues, if any. */
    readonly continued: string | undefined,
  ) {}

  /**
   * Reads the session's record. `resume` (a thread id) wins over it; `newSession` ignores it. A
   * session of another harness, or a damaged record, throws a {@link CodexHarnessError}.
   */
  static async open(
    aspHome: string,
    sessionId: string,
    options: { resume?: string | undefined; newSession?: boolean | undefined },
  ): Promise<TargetSession> {
    const record = await readSessionRecord(aspHome, sessionId);
    if (record && record.harness !== "codex") {
      throw new CodexHarnessError(
        "harness_session_not_found",
        `session ${JSON.stringify(sessionId)} belongs to harness ${JSON.stringify(record.harness)}; use another --session`,
      );
    }
    const thread = options.newSession ? undefined : (options.resume ?? record?.harnessSessionId);
    return new TargetSession(aspHome, record, sessionId, thread);
  }

  /** Records `threadId` as the session's thread (the next turn continues it). */
  async remember(threadId: string): Promise<void> {
    await saveCodexSessionRecord(this.aspHome, this.record, {
      externalSessionId: this.sessionId,
      harnessSessionId: threadId,
    });
  }
}
