// The follower of a goal's thread: a turn codex starts after the goal was stopped (as the pause
// lands) is stopped too, until a quiet window passed; an ordinary let-go does not wait.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AppServerClient } from "../../src/app-server/client.js";
import type { StopKind } from "../../src/turns/active-turn.js";
import { ActiveTurn } from "../../src/turns/active-turn.js";
import { LATE_GOAL_TURN_WINDOW_MS, ThreadFollower } from "../../src/turns/followed-thread.js";
import type { OpenedTurn } from "../../src/turns/running-turns.js";

/** A follower whose turns record how they were stopped and end once let go of. */
function follower() {
  const stops: Array<{ turnId: string; kind: StopKind }> = [];
  const seen: string[] = [];
  let released = false;
  const thread = new ThreadFollower(
    () => ({}) as AppServerClient,
    (turnId, done): OpenedTurn => {
      const turn = new ActiveTurn("thr");
      turn.start(turnId);
      let stopped = false;
      return {
        turn,
        stop: (kind) => {
          if (stopped) return;
          stopped = true;
          stops.push({ turnId, kind });
        },
        finish: () => setTimeout(() => done(), 5),
      };
    },
    async () => undefined,
    (turn) => seen.push(turn.id),
    () => {
      released = true;
    },
  );
  return { thread, stops, seen, released: () => released };
}

describe("a goal's thread follower", () => {
  it("stops a turn codex starts as the goal's stop lands, before letting go", async () => {
    const { thread, stops, seen, released } = follower();
    thread.adopt("t1");
    thread.stopTurns();
    const closing = thread.close();
    // codex starts one more after answering the pause.
    await new Promise((resolve) => setTimeout(resolve, LATE_GOAL_TURN_WINDOW_MS / 2));
    assert.equal(released(), false, "still watching");
    thread.adopt("t2");
    const began = Date.now();
    await closing;
    assert.deepEqual(seen, ["t1", "t2"]);
    assert.deepEqual(
      stops.map((stop) => `${stop.turnId}:${stop.kind}`),
      ["t1:abandon", "t2:abandon"],
    );
    // The window starts again at the late turn.
    assert.ok(Date.now() - began >= LATE_GOAL_TURN_WINDOW_MS - 20);
    assert.equal(released(), true);
    thread.adopt("t3");
    assert.deepEqual(seen, ["t1", "t2"], "nothing is adopted once let go of");
  });

  it("lets go at once when its turns were not being stopped", async () => {
    const { thread, released } = follower();
    const began = Date.now();
    await thread.close();
    assert.ok(Date.now() - began < LATE_GOAL_TURN_WINDOW_MS / 2);
    assert.equal(released(), true);
  });
});
