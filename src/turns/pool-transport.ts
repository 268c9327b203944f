// Spreads threads over several app-server processes: a thread always runs on the process it started on.
import type { WithRaw } from "../events/raw.js";
import type { ExtendedThreadEvent } from "../events/types.js";
import type { AppServerTurnTransport } from "./app-server-turns.js";
import type { ThreadOptions, UserInput } from "./options.js";
import type {
  FollowedThread,
  FollowedTurn,
  OpenedThread,
  TurnRequest,
  TurnTransport,
} from "./turn-transport.js";

/**
 * A transport over N app-server transports. New threads go to the least busy process; a thread
 * sticks to its process afterwards (codex lets one process at a time hold a thread).
 */
export class PoolTransport implements TurnTransport {
  readonly kind = "app-server" as const;
  private readonly affinity = new Map<string, AppServerTurnTransport>();
  private next = 0;

  constructor(readonly members: readonly AppServerTurnTransport[]) {}

  /** The process a thread lives on (the least busy one for a thread not seen yet). */
  memberFor(threadId: string | null): AppServerTurnTransport {
    const known = threadId === null ? undefined : this.affinity.get(threadId);
    if (known) return known;
    const member = this.leastBusy();
    if (threadId !== null) this.affinity.set(threadId, member);
    return member;
  }

  runTurn(request: TurnRequest): AsyncGenerator<WithRaw<ExtendedThreadEvent>> {
    const member = this.memberFor(request.threadId);
    const outer = request.observer;
    return member.runTurn({
      ...request,
      observer: {
        onOpen: () => outer?.onOpen(),
        onEvent: (event) => {
          if (event.type === "thread.started") this.affinity.set(event.thread_id, member);
          outer?.onEvent(event);
        },
        onEnd: (error) => outer?.onEnd(error),
      },
    });
  }

  async openThread(threadId: string | null, options: ThreadOptions): Promise<OpenedThread> {
    const member = this.memberFor(threadId);
    const opened = await member.openThread(threadId, options);
    this.affinity.set(opened.threadId, member);
    return opened;
  }

  followTurns(
    threadId: string,
    options: ThreadOptions,
    onTurn: (turn: FollowedTurn) => void,
    signal?: AbortSignal,
  ): Promise<FollowedThread> {
    return this.memberFor(threadId).followTurns(threadId, options, onTurn, signal);
  }

  steer(threadId: string, turnId: string, input: UserInput[]): Promise<void> {
    return this.memberFor(threadId).steer(threadId, turnId, input);
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((member) => member.close()));
  }

  /** The member with the fewest running turns; ties go round-robin. */
  private leastBusy(): AppServerTurnTransport {
    const least = Math.min(...this.members.map((member) => member.load));
    const count = this.members.length;
    for (let k = 0; k < count; k++) {
      const member = this.members[(this.next + k) % count] as AppServerTurnTransport;
      if (member.load === least) {
        this.next = (this.next + k + 1) % count;
        return member;
      }
    }
    return this.members[0] as AppServerTurnTransport;
  }
}
