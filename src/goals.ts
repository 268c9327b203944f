// A thread's goal (codex's thread/goal/*, its `goals` feature): once set, codex works on it by
// itself, turn after turn, until the model marks it complete or blocked, a budget runs out, or it
// is paused. runGoal() sets one and follows those turns to the end, with a limit of its own.
import { CodexHarnessError } from "./errors.js";
import type { ExtendedThreadEvent } from "./events/types.js";
import type { ThreadGoal } from "./protocol/generated/ts/v2/ThreadGoal.js";
import type { RpcNotification } from "./protocol/messages.js";
import { type ExtendedRunResult, RunResultBuilder } from "./turns/run-result.js";
import type { FollowedThread, FollowedTurn } from "./turns/turn-transport.js";

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
 * Sets `objective` as the goal of the thread `follow` holds (see `TurnTransport.followTurns`), and
 * follows the turns codex runs for it — ordinary turns of the thread (its approvals, the idle
 * watchdog, the one undo) — until the goal is no longer active and its last turn ended. Past `maxTurns` the goal is paused (and so
 * stops); an aborted signal or a failed turn pauses it, stops its running turn, and rejects.
 * Either way nothing of the goal's turns runs when it settles.
 */
export async function runGoal(
  follow: (onTurn: (turn: FollowedTurn) => void) => Promise<FollowedThread>,
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
  let goal: ThreadGoal | undefined;
  let endedBy: GoalRun["endedBy"] = "goal";
  /** The goal's turns whose streams are being read. */
  let reading = 0;
  /** Why the goal is being stopped here (limit, abort, failure), once it is. */
  let stopping: { error?: unknown } | undefined;
  /** Whether codex has paused the goal this run is stopping. */
  let paused = false;
  let finish!: (error?: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => {
    finish = (error) => (error === undefined ? resolve() : reject(error));
  });
  // Read once the goal is set; an end before that (codex gone) is no unhandled rejection.
  finished.catch(() => undefined);
  const followed = await follow(followTurn);
  const client = followed.client;
  let setting: Promise<{ goal: ThreadGoal }> | undefined;
  function maybeDone(): void {
    if (reading > 0) return;
    if (stopping) {
      if (paused) finish(stopping.error);
      return;
    }
    if (goal && goal.status !== "active") finish();
  }
  /**
   * Stops codex working on the goal: its turns are stopped from now on (through their undo), and
   * once the goal is set it is paused (a pause sent before would be undone by the set). The run
   * then ends with `error`, if any, once no turn of it is read any more.
   */
  function stop(error?: unknown): void {
    if (stopping) return;
    stopping = { error };
    followed.stopTurns();
    (setting ?? Promise.resolve())
      .then(() => client.request("thread/goal/set", { threadId, status: "paused" }))
      .then(async (answer) => {
        goal = answer.goal;
        // One codex started as the pause came, not seen starting yet: stopped too.
        await followed.adoptInProgress();
      })
      .then(
        () => {
          paused = true;
          maybeDone();
        },
        (failure: unknown) => finish(error ?? failure),
      );
  }
  /** Reads a turn codex ran for the goal; one that ends once the goal is being stopped is not counted. */
  function followTurn(turn: FollowedTurn): void {
    reading++;
    readTurn(turn, options.onEvent).then(
      (result) => {
        reading--;
        if (stopping === undefined) turns.push(result);
        if (turns.length >= maxTurns && goal?.status === "active" && stopping === undefined) {
          endedBy = "max_turns";
          stop();
        }
        maybeDone();
      },
      (error: unknown) => {
        reading--;
        // Stopped here: its stream's end is the stop's; anything else stops the goal with it.
        stop(error);
        maybeDone();
      },
    );
  }
  // codex's goal updates count from its answer to our set on: one that comes before it (a pause
  // of the thread's earlier goal, said late) is not this goal's state. The answer carries the
  // goal as set, and it cannot have ended by then (that takes a turn).
  let counting = false;
  const off = client.onAnyNotification((notification: RpcNotification) => {
    const params = (notification.params ?? {}) as { threadId?: unknown; goal?: ThreadGoal };
    if (params.threadId !== threadId || notification.method !== "thread/goal/updated") return;
    if (!params.goal || !counting) return;
    goal = params.goal;
    maybeDone();
  });
  const onAbort = () => stop(options.signal?.reason);
  // codex gone (crashed, closed): nothing more will come, so the run ends with why.
  const offClose = client.onClose((reason) => finish(reason));
  try {
    setting = client.request("thread/goal/set", {
      threadId,
      objective,
      status: "active",
      ...(options.tokenBudget === undefined ? {} : { tokenBudget: options.tokenBudget }),
    });
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const set = await setting;
    counting = true;
    // A pause asked meanwhile (stop) answers after this: its goal wins then.
    goal ??= set.goal;
    maybeDone();
    await finished;
    return { goal: goal ?? set.goal, turns, endedBy };
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    offClose();
    off();
    // Nothing of the goal's turns runs once the run settles (an undo's failure is the run's).
    await followed.close();
  }
}

/** Reads one turn of the goal to its end: its result (its stream's error, if it failed). */
async function readTurn(
  turn: FollowedTurn,
  onEvent: RunGoalOptions["onEvent"],
): Promise<ExtendedRunResult> {
  const result = new RunResultBuilder();
  for await (const event of turn.events) {
    result.add(event);
    onEvent?.(event);
  }
  return result.partial();
}
