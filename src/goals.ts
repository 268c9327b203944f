// A thread's goal (codex's thread/goal/*, its `goals` feature): once set, codex works on it by
// itself, turn after turn, until the model marks it complete or blocked, a budget runs out, or it
// is paused. runGoal() sets one and follows those turns to the end, with a limit of its own.
import type { AppServerClient } from "./app-server/client.js";
import { CodexHarnessError } from "./errors.js";
import type { ExtendedThreadEvent } from "./events/types.js";
import type { ThreadGoal } from "./protocol/generated/ts/v2/ThreadGoal.js";
import type { RpcNotification } from "./protocol/messages.js";
import { type ExtendedRunResult, RunResultBuilder } from "./turns/run-result.js";
import { TurnRoute } from "./turns/turn-route.js";

export type { ThreadGoal };

/** Options of `Thread.runGoal()`. */
export interface RunGoalOptions {
  /** Tokens codex may spend on the goal (codex stops it as `budgetLimited`). */
  tokenBudget?: number;
  /** Turns to follow before the goal is paused here (default 10). */
  maxTurns?: number;
  /** Stops the goal: it is paused at codex and its running turn interrupted. */
  signal?: AbortSignal;
  /** Each event of the goal's turns, as they come (extended events). */
  onEvent?: (event: ExtendedThreadEvent) => void;
}

/** How a goal's run ended. */
export interface GoalRun {
  /** The goal as codex last described it (`complete`, `blocked`, `paused`, `…Limited`). */
  goal: ThreadGoal;
  /** Each turn codex ran for it, in order. */
  turns: ExtendedRunResult[];
  /** `"goal"` when codex ended it; `"max_turns"` when the limit paused it here. */
  endedBy: "goal" | "max_turns";
}

/**
 * Sets `objective` as thread `threadId`'s goal on `client` and follows the turns codex runs for it
 * until the goal is no longer active and its last turn ended. Past `maxTurns` the goal is paused
 * (and so stops); an aborted signal pauses it, interrupts its running turn, and rejects.
 */
export async function runGoal(
  client: AppServerClient,
  threadId: string,
  objective: string,
  options: RunGoalOptions = {},
): Promise<GoalRun> {
  const maxTurns = options.maxTurns ?? 10;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) {
    throw new CodexHarnessError(
      "invalid_option",
      `maxTurns must be a whole number ≥ 1, got ${maxTurns}.`,
    );
  }
  options.signal?.throwIfAborted();
  const turns: ExtendedRunResult[] = [];
  let running: { id: string; route: TurnRoute; result: RunResultBuilder } | undefined;
  let goal: ThreadGoal | undefined;
  let endedBy: GoalRun["endedBy"] = "goal";
  /** A turn codex started after the limit was reached (interrupted, not counted). */
  let late: string | undefined;
  let finish!: (error?: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => {
    finish = (error) => (error === undefined ? resolve() : reject(error));
  });
  /** The goal's pause and its late turn are handled: set when the limit or an abort stopped it. */
  let stopped = false;
  const maybeDone = () => {
    // Aborted: the abort's own path ends the run (after the goal is paused, the turn stopped).
    if (options.signal?.aborted) return;
    if (endedBy === "max_turns" && !stopped) return;
    if (goal && goal.status !== "active" && running === undefined) finish();
  };
  /**
   * Stops codex working on the goal: pauses it, then interrupts the turn under way — the one seen
   * starting, else one codex started as the pause came (thread/read). An error is the run's,
   * never swallowed, unless the turn had ended meanwhile.
   */
  const stop = async () => {
    await client.request("thread/goal/set", { threadId, status: "paused" });
    const turnId = running?.id ?? (await inProgressTurn(client, threadId));
    // None, or one already stopped as it started (below).
    if (turnId === undefined || turnId === late) return;
    if (endedBy === "max_turns") late = turnId;
    await interrupt(turnId);
  };
  const interrupt = async (turnId: string) => {
    try {
      await client.request("turn/interrupt", { threadId, turnId });
    } catch (error) {
      if ((await inProgressTurn(client, threadId)) === turnId) throw error;
    }
  };
  const off = client.onAnyNotification((notification: RpcNotification) => {
    const params = (notification.params ?? {}) as { threadId?: unknown; goal?: ThreadGoal };
    if (params.threadId !== threadId) return;
    if (notification.method === "thread/goal/updated" && params.goal) {
      goal = params.goal;
      maybeDone();
      return;
    }
    if (notification.method === "turn/started") {
      const id = (params as { turn?: { id?: string } }).turn?.id;
      if (typeof id !== "string") return;
      running = { id, route: new TurnRoute(threadId), result: new RunResultBuilder() };
      running.route.start(id);
      // Started after the limit, and not yet stopped by stop(): stopped, and not counted.
      if (endedBy === "max_turns" && late !== id) {
        late = id;
        interrupt(id).catch((error: unknown) => finish(error));
      }
    }
    if (!running) return;
    // (A notification of another turn of the thread is no event of this one.)
    for (const event of running.route.take(notification) ?? []) {
      running.result.add(event);
      options.onEvent?.(event);
    }
    if (notification.method === "turn/completed") {
      if (running.id !== late) turns.push(running.result.partial());
      running = undefined;
      if (turns.length >= maxTurns && goal?.status === "active" && endedBy !== "max_turns") {
        endedBy = "max_turns";
        stop().then(
          () => {
            stopped = true;
            maybeDone();
          },
          (error: unknown) => finish(error),
        );
      }
      maybeDone();
    }
  });
  const setting = client.request("thread/goal/set", {
    threadId,
    objective,
    status: "active",
    ...(options.tokenBudget === undefined ? {} : { tokenBudget: options.tokenBudget }),
  });
  // An abort pauses the goal once it is set: a pause sent before would be undone by the set.
  const onAbort = () => {
    setting
      .then(stop, () => undefined)
      .then(
        () => finish(options.signal?.reason),
        (error: unknown) => finish(error),
      );
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  // codex gone (crashed, closed): nothing more will come, so the run ends with why.
  const offClose = client.onClose((reason) => finish(reason));
  try {
    const set = await setting;
    await finished;
    return { goal: goal ?? set.goal, turns, endedBy };
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    offClose();
    off();
  }
}

/** The id of the thread's turn in progress at codex, if one is. */
async function inProgressTurn(
  client: AppServerClient,
  threadId: string,
): Promise<string | undefined> {
  const { thread } = await client.request("thread/read", { threadId, includeTurns: true });
  return thread.turns.find((turn) => turn.status === "inProgress")?.id;
}
