// Turns that outlive their connection: codex app-server keeps a thread's turn running when a
// WebSocket client goes away, and a client that resumes the thread gets its events (and its
// pending approvals, asked again). So a dropped remote connection is rejoined, not failed.
import type { AppServerClient } from "../app-server/client.js";
import { CodexHarnessError } from "../errors.js";
import type { ExtendedThreadEvent } from "../events/types.js";
import { RemoteDisconnectedError } from "../rpc/errors.js";
import type { ActiveTurn, ActiveTurns } from "./active-turn.js";

/** How long a dropped connection may take to come back before its running turns fail. */
export const REJOIN_WITHIN_MS = 30_000;

/** The connection a running turn is on, and the hold that keeps the program alive for it. */
export class TurnClient {
  constructor(
    public client: AppServerClient,
    private unhold: () => void,
  ) {}

  /** The turn goes on over `client` (its old connection is gone). */
  moveTo(client: AppServerClient): void {
    this.unhold();
    this.client = client;
    this.unhold = client.hold();
  }

  release(): void {
    this.unhold();
  }
}

/** What {@link rejoinTurns} needs of the transport. */
export interface RejoinHost {
  router: ActiveTurns;
  /** The (new) connection; rejects while codex cannot be reached. */
  connection(): Promise<AppServerClient>;
  /** The turn's thread is loaded on `client`: route, hold and stop the turn there from now on. */
  attached(turn: ActiveTurn, client: AppServerClient): void;
}

/**
 * Reconnects (with backoff, for up to {@link REJOIN_WITHIN_MS}), resumes each running turn's
 * thread and carries on: a notice says the connection dropped and another that the turn was
 * rejoined; what codex completed meanwhile is completed on the stream once. A turn that cannot
 * be rejoined (codex gone for good, the turn unknown to it) fails with the lost connection's
 * error.
 */
export async function rejoinTurns(host: RejoinHost, lost: RemoteDisconnectedError): Promise<void> {
  const turns = host.router.all();
  for (const turn of turns) {
    turn.emit(
      notice(
        turn,
        "connection_lost",
        `${lost.message} codex keeps the turn running: reconnecting to rejoin it.`,
      ),
    );
  }
  const client = await reconnect(host, lost).catch((error: unknown) => {
    for (const turn of turns) fail(host, turn, lost, error);
    return undefined;
  });
  if (!client) return;
  for (const turn of turns) {
    // Let go of, and not being stopped: nothing to rejoin.
    if (turn.released.aborted && turn.stop === undefined) continue;
    try {
      const resumed = await client.request("thread/resume", { threadId: turn.threadId });
      const state = resumed.thread.turns.find((candidate) => candidate.id === turn.turnId);
      if (!state) {
        throw new CodexHarnessError(
          "turn_lost",
          `codex no longer has turn ${turn.turnId} of thread ${turn.threadId}`,
        );
      }
      host.attached(turn, client);
      turn.rejoin(
        state,
        notice(
          turn,
          "turn_rejoined",
          `Reconnected: the turn goes on (codex says it is ${state.status}).`,
        ),
      );
    } catch (error) {
      fail(host, turn, lost, error);
    }
  }
}

async function reconnect(
  host: RejoinHost,
  lost: RemoteDisconnectedError,
): Promise<AppServerClient> {
  const deadline = Date.now() + REJOIN_WITHIN_MS;
  let wait = 250;
  for (;;) {
    let client: AppServerClient;
    try {
      client = await host.connection();
    } catch (error) {
      // Nothing listens there any more: that codex is gone, and its turns with it.
      const gone = ["ECONNREFUSED", "ENOENT"].includes(
        ((error as { cause?: NodeJS.ErrnoException }).cause?.code ?? "") as string,
      );
      const final =
        gone ||
        (error instanceof CodexHarnessError &&
          (error.code === "codex_closed" || error.code === "app_server_failed"));
      if (final || Date.now() + wait > deadline) throw error;
      await sleep(wait);
      wait = Math.min(wait * 2, 4_000);
      continue;
    }
    if (!client.closedReason) return client;
    // The lost connection itself, until the supervisor has let go of it.
    if (Date.now() > deadline) throw lost;
    await sleep(10);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function fail(
  host: RejoinHost,
  turn: ActiveTurn,
  lost: RemoteDisconnectedError,
  why: unknown,
): void {
  const reason = why instanceof Error ? why.message : String(why);
  const error = new RemoteDisconnectedError(
    lost.endpoint,
    `the turn could not be rejoined (${reason.replace(/\.$/, "")})`,
    lost.closeCode,
    { cause: why },
  );
  host.router.remove(turn);
  turn.lost(error);
}

function notice(turn: ActiveTurn, code: string, message: string): ExtendedThreadEvent {
  return {
    type: "notice",
    thread_id: turn.threadId,
    ...(turn.turnId === undefined ? {} : { turn_id: turn.turnId }),
    code,
    message,
  };
}
