// LazyTurnTransport: the transport is imported when a turn's stream is first read, not before;
// a failed load is retried by the next turn; closing before the load still ends the transport.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WithRaw } from "../../src/events/raw.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import { LazyTurnTransport } from "../../src/turns/lazy-transport.js";
import type { TurnRequest, TurnTransport } from "../../src/turns/turn-transport.js";

const REQUEST: TurnRequest = { threadId: null, input: [], threadOptions: {}, turnOptions: {} };

/** A transport whose turns yield `thread.started` then end; it refuses turns once closed. */
class FakeTransport implements TurnTransport {
  readonly kind = "exec" as const;
  closed = false;
  ended = 0;

  runTurn(): AsyncGenerator<WithRaw<ExtendedThreadEvent>> {
    const self = this;
    return (async function* () {
      try {
        if (self.closed) throw new Error("closed");
        yield { type: "thread.started", thread_id: "t1" } as WithRaw<ExtendedThreadEvent>;
      } finally {
        self.ended += 1;
      }
    })();
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

describe("LazyTurnTransport", () => {
  it("loads on the first read of a turn, once, and passes the events through", async () => {
    const fake = new FakeTransport();
    let loads = 0;
    const lazy = new LazyTurnTransport("exec", async () => {
      loads += 1;
      return fake;
    });
    const stream = lazy.runTurn(REQUEST);
    assert.equal(loads, 0, "not loaded by runTurn()");
    const events: string[] = [];
    for await (const event of stream) events.push(event.type);
    for await (const event of lazy.runTurn(REQUEST)) events.push(event.type);
    assert.deepEqual(events, ["thread.started", "thread.started"]);
    assert.equal(loads, 1);
    assert.equal(fake.ended, 2);
  });

  it("loads nothing for a stream abandoned before its first read", async () => {
    let loads = 0;
    const lazy = new LazyTurnTransport("exec", async () => {
      loads += 1;
      return new FakeTransport();
    });
    const stream = lazy.runTurn(REQUEST);
    assert.deepEqual(await stream.return(undefined), { value: undefined, done: true });
    assert.deepEqual(await stream.next(), { value: undefined, done: true });
    await lazy.close();
    assert.equal(loads, 0);
  });

  it("rejects the turn whose load failed, and loads again for the next one", async () => {
    let loads = 0;
    const lazy = new LazyTurnTransport("exec", async () => {
      loads += 1;
      if (loads === 1) throw new Error("import failed");
      return new FakeTransport();
    });
    const failed = lazy.runTurn(REQUEST);
    await assert.rejects(failed.next(), /import failed/);
    assert.deepEqual(await failed.next(), { value: undefined, done: true }, "then it is over");
    assert.deepEqual(await failed.return(undefined), { value: undefined, done: true });
    const events: string[] = [];
    for await (const event of lazy.runTurn(REQUEST)) events.push(event.type);
    assert.deepEqual(events, ["thread.started"]);
    assert.equal(loads, 2);
  });

  it("closes the transport it loads after close(), which then refuses the turn", async () => {
    const fake = new FakeTransport();
    const lazy = new LazyTurnTransport("exec", async () => fake);
    await lazy.close();
    await assert.rejects(lazy.runTurn(REQUEST).next(), /closed/);
    assert.equal(fake.closed, true);
  });

  it("closes a loaded transport", async () => {
    const fake = new FakeTransport();
    const lazy = new LazyTurnTransport("exec", async () => fake);
    for await (const _ of lazy.runTurn(REQUEST)) break;
    await lazy.close();
    assert.equal(fake.closed, true);
    assert.equal(fake.ended, 1, "breaking out ended the inner stream");
  });
});
