// runGoal against a scripted connection, notifications in the order a test chooses: a goal update
// that comes before codex's answer to the set (the thread's earlier goal, paused, said late) is not
// taken for the new goal's state.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AppServerClient } from "../../src/app-server/client.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import { runGoal, type ThreadGoal } from "../../src/goals.js";
import type { RpcNotification } from "../../src/protocol/messages.js";
import type { FollowedThread, FollowedTurn } from "../../src/turns/turn-transport.js";

const THREAD = "thread-1";

function goalOf(objective: string, status: ThreadGoal["status"], at: number): ThreadGoal {
  return {
    threadId: THREAD,
    objective,
    status,
    tokenBudget: null,
    tokensUsed: 0,
    timeUsedSeconds: 0,
    createdAt: at,
    updatedAt: at,
  };
}

/** One turn's stream: started, then completed with `text` (each event `pauseMs` after the last). */
async function* turnEvents(
  text: string,
  turnId = "t1",
  pauseMs = 0,
): AsyncGenerator<ExtendedThreadEvent> {
  const pause = () => new Promise((resolve) => setTimeout(resolve, pauseMs));
  yield { type: "turn.started", turn_id: turnId } as ExtendedThreadEvent;
  await pause();
  yield {
    type: "item.completed",
    item: { id: `m-${turnId}`, type: "agent_message", text },
  } as ExtendedThreadEvent;
  await pause();
  yield {
    type: "turn.completed",
    turn_id: turnId,
    usage: {
      input_tokens: 1,
      cached_input_tokens: 0,
      output_tokens: 1,
      reasoning_output_tokens: 0,
    },
  } as ExtendedThreadEvent;
}

/**
 * A connection that answers `thread/goal/set` after `beforeAnswer` ran (it may notify), then runs
 * one turn for the goal and completes it.
 */
function scriptedConnection(
  beforeAnswer: (notify: (n: RpcNotification) => void) => void,
  turns: FollowedTurn[] = [{ id: "t1", events: turnEvents("done") }],
) {
  const listeners = new Set<(n: RpcNotification) => void>();
  const notify = (notification: RpcNotification) => {
    for (const listener of listeners) listener(notification);
  };
  const updated = (goal: ThreadGoal) =>
    notify({ method: "thread/goal/updated", params: { threadId: THREAD, turnId: null, goal } });
  let onTurn: ((turn: FollowedTurn) => void) | undefined;
  const sets: unknown[] = [];
  const client = {
    onAnyNotification(listener: (n: RpcNotification) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onClose: () => () => {},
    async request(method: string, params: { objective?: string; status?: string }) {
      if (method !== "thread/goal/set") throw new Error(`unexpected ${method}`);
      sets.push(params);
      beforeAnswer(notify);
      const goal = goalOf(params.objective ?? "new", "active", 200);
      // codex works on it: a turn, then the goal complete (after the answer, as codex does).
      setTimeout(() => {
        for (const turn of turns) onTurn?.(turn);
        setTimeout(() => updated({ ...goal, status: "complete", updatedAt: 201 }), 5);
      }, 5);
      return { goal };
    },
  } as unknown as AppServerClient;
  const follow = async (turns: (turn: FollowedTurn) => void): Promise<FollowedThread> => {
    onTurn = turns;
    return { client, stopTurns() {}, async adoptInProgress() {}, async close() {} };
  };
  return { follow, sets };
}

describe("runGoal", () => {
  it("ignores a goal update that comes before codex answered its set (an earlier goal's pause)", async () => {
    const { follow } = scriptedConnection((notify) =>
      notify({
        method: "thread/goal/updated",
        params: { threadId: THREAD, turnId: null, goal: goalOf("the old goal", "paused", 100) },
      }),
    );
    const run = await runGoal(follow, THREAD, "the new goal");
    assert.equal(run.goal.objective, "the new goal");
    assert.equal(run.goal.status, "complete");
    assert.equal(run.turns.length, 1, "the new goal's turn was followed");
    assert.equal(run.turns[0]?.finalResponse, "done");
  });

  it("follows the goal to its end when no stale update comes", async () => {
    const { follow, sets } = scriptedConnection(() => {});
    const run = await runGoal(follow, THREAD, "a goal", { tokenBudget: 5 });
    assert.equal(run.goal.status, "complete");
    assert.deepEqual(sets, [
      { threadId: THREAD, objective: "a goal", status: "active", tokenBudget: 5 },
    ]);
  });

  it("tells a turn's events whole before the next turn's, though codex started both", async () => {
    const { follow } = scriptedConnection(() => {}, [
      { id: "t1", events: turnEvents("first", "t1", 15) },
      { id: "t2", events: turnEvents("second", "t2") },
    ]);
    const told: string[] = [];
    const run = await runGoal(follow, THREAD, "two turns", {}, (event) =>
      told.push(
        event.type === "goal.updated"
          ? `goal:${event.goal.status}`
          : event.type === "item.completed" && event.item.type === "agent_message"
            ? event.item.text
            : event.type,
      ),
    );
    assert.equal(run.turns.length, 2);
    assert.deepEqual(told, [
      "goal:active",
      "turn.started",
      "first",
      "turn.completed",
      "turn.started",
      "second",
      "turn.completed",
      "goal:complete",
    ]);
  });
});
