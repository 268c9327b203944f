// The fleet's event writer: in order, batched while a write is under way, stopped by a refusal.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EventWriter } from "../../src/fleet/event-writer.js";

/** A write that waits until `release()` is called, recording each batch. */
function gatedWrites() {
  const batches: object[][] = [];
  let release: () => void = () => undefined;
  const write = async (batch: object[]) => {
    batches.push(batch);
    await new Promise<void>((resolve) => {
      release = resolve;
    });
  };
  return { batches, write, release: () => release() };
}

describe("EventWriter", () => {
  it("writes the first event at once and the ones that came meanwhile together, in order", async () => {
    const gate = gatedWrites();
    const writer = new EventWriter(gate.write, () => assert.fail("nothing is refused"));
    writer.add({ n: 1 });
    writer.add({ n: 2 });
    writer.add({ n: 3 });
    assert.deepEqual(gate.batches, [[{ n: 1 }]]);
    gate.release();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(gate.batches[1], [{ n: 2 }, { n: 3 }]);
    writer.add({ n: 4 });
    gate.release();
    await new Promise((resolve) => setImmediate(resolve));
    gate.release();
    await writer.drain();
    assert.deepEqual(gate.batches.flat(), [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
  });

  it("batches at most 256 events", async () => {
    const batches: number[] = [];
    const writer = new EventWriter(
      async (batch) => {
        batches.push(batch.length);
      },
      () => undefined,
    );
    for (let n = 0; n < 600; n++) writer.add({ n });
    await writer.drain();
    assert.deepEqual(batches, [1, 256, 256, 87]);
  });

  it("a refused write stops it: told once, neither that batch nor later events are written", async () => {
    const written: object[] = [];
    const refusals: Error[] = [];
    let calls = 0;
    const writer = new EventWriter(
      async (batch) => {
        calls++;
        if (calls === 2) throw new Error("fenced");
        written.push(...batch);
      },
      (error) => refusals.push(error),
    );
    writer.add({ n: 1 });
    writer.add({ n: 2 });
    writer.add({ n: 3 });
    await writer.drain();
    writer.add({ n: 4 });
    await writer.drain();
    assert.deepEqual(written, [{ n: 1 }]);
    assert.deepEqual(
      refusals.map((error) => error.message),
      ["fenced"],
    );
    assert.equal(calls, 2);
  });

  it("drain resolves at once when nothing is being written", async () => {
    const writer = new EventWriter(
      async () => assert.fail("nothing to write"),
      () => undefined,
    );
    await writer.drain();
  });
});
