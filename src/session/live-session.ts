// A session's codex left open after a turn for the session's next one: the fleet's workers keep
// them, so a session's next turn here skips codex's start and the thread's resume.
import type { AppServerClient } from "../app-server/client.js";
import type { Codex } from "../codex.js";
import type { CodexSession } from "./codex-session.js";
import type { RunTurnRequest } from "./run-turn.js";

/** What a turn opens codex with: a later turn reuses an open codex only for the same. */
export interface Opening {
  /** The session's codex home. */
  home: string;
  cwd: string;
  env: Record<string, string>;
  /** The model the thread runs (the request's, else the home's). */
  model: string | undefined;
  request: Pick<
    RunTurnRequest,
    | "codexPathOverride"
    | "eventsOutputPath"
    | "approvals"
    | "permissionHandler"
    | "startedBy"
    | "routing"
  >;
}

/** An open codex, its session and thread, as the last turn left them. */
export class LiveSession {
  private readonly key: string;

  private constructor(
    readonly codex: Codex,
    readonly session: CodexSession,
    private readonly opening: Opening,
    /** The thread the session runs. */
    readonly threadId: string,
    private readonly client: AppServerClient,
  ) {
    this.key = keyOf(opening, threadId);
  }

  /** Keeps `session` (on `codex`, whose thread `threadId` it runs) open after its turn. */
  static async keep(
    codex: Codex,
    session: CodexSession,
    opening: Opening,
    threadId: string,
  ): Promise<LiveSession> {
    return new LiveSession(codex, session, opening, threadId, await codex.appServer.client());
  }

  /** The id of the last turn it ran. */
  get turnId(): string | undefined {
    return this.session.lastResult?.id ?? undefined;
  }

  /**
   * Whether a turn of thread `threadId` opened with `opening` may run here: the same home,
   * folder, environment, model, binary, handlers and routing (who the turn runs for, the run's
   * rules), and the same codex process, still up.
   */
  fits(opening: Opening, threadId: string): boolean {
    return (
      this.session.getState() === "running" &&
      this.client.closedReason === undefined &&
      keyOf(opening, threadId) === this.key &&
      opening.request.approvals === this.opening.request.approvals &&
      opening.request.permissionHandler === this.opening.request.permissionHandler
    );
  }

  /** Ends the session and its codex. */
  async close(): Promise<void> {
    await this.session.stop("complete").catch(() => undefined);
    await this.codex.close();
  }
}

function keyOf(opening: Opening, threadId: string): string {
  const { home, cwd, env, model, request } = opening;
  return JSON.stringify([
    home,
    cwd,
    env,
    model ?? null,
    threadId,
    request.codexPathOverride ?? null,
    request.eventsOutputPath ?? null,
    // The session's approvals route by these: another person's turn, or other rules, open anew.
    request.startedBy ?? null,
    request.routing?.rules ?? null,
  ]);
}
