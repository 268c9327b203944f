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
  /** Each event of the goal's turns, in order (extended events); `runGoal` only. */
  onEvent?: (event: ExtendedThreadEvent) => void;
}

/**
 * An event of a goal's run (`Thread.runGoalStreamed`): each of the goal's turns' events in order
 * (a turn's `turn.started` to its end, then the next turn's), codex's updates of the goal as they
 * come, and last `goal.ended` with how the run ended.
 */
export type GoalEvent =
  | ExtendedThreadEvent
  | { type: "goal.updated"; goal: ThreadGoal }
  | ({ type: "goal.ended" } & GoalRun);

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
 * watchdog, the one undo) — until the goal is no longer active and its last turn ended. Past
 * `maxTurns` the goal is paused (and so stops); an aborted signal or a failed turn pauses it, stops
 * its running turn, and rejects. Either way nothing of the goal's turns runs when it settles.
 * `emit` gets the turns' events, one turn after the other, and codex's updates of the goal.
 */
export async function runGoal(
  follow: (onTurn: (turn: FollowedTurn) => void) => Promise<FollowedThread>,
  threadId: string,
  objective: string,
  options: RunGoalOptions = {},
  emit: (event: GoalEvent) => void = () => {},
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
  /** The goal's turns whose streams are being read or wait to be. */
  let reading = 0;
  /** The reading of the last turn adopted: each turn is read once the one before it ended. */
  let lastRead: Promise<unknown> = Promise.resolve();
  /** Tells a goal update after the turns adopted before it (their events come first). */
  const updated = (changed: ThreadGoal) => {
    lastRead = lastRead.then(() => emit({ type: "goal.updated", goal: changed }));
  };
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
        updated(goal);
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
    const read = lastRead.then(() => readTurn(turn, emit));
    lastRead = read.catch(() => undefined);
    read.then(
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
    updated(goal);
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
    if (goal === undefined) {
      goal = set.goal;
      updated(goal);
    }
    maybeDone();
    await finished;
    await lastRead;
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
  emit: (event: GoalEvent) => void,
): Promise<ExtendedRunResult> {
  const result = new RunResultBuilder();
  for await (const event of turn.events) {
    result.add(event);
    emit(event);
  }
  return result.partial();
}
