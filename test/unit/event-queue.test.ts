// The turn's event queue: a ring addressed by sequence numbers, read in order however it wraps,
// grows, discards or puts back.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EventQueue } from "../../src/turns/event-queue.js";

async function take(queue: EventQueue<number>, count: number): Promise<number[]> {
  const taken: number[] = [];
  for (let n = 0; n < count; n++) {
    const next = await queue.next();
    assert.ok(!next.done, "an item was waiting");
    taken.push(next.value);
  }
  return taken;
}

describe("EventQueue", () => {
  it("keeps order while the ring wraps around and then grows with its start mid-way", async () => {
    const queue = new EventQueue<number>();
    let pushed = 0;
    const expected: number[] = [];
    const got: number[] = [];
    // 50 in, 40 out, over and over: the start moves round the 64 slots, and the count grows past
    // 64, 128 and 256 with the start anywhere.
    for (let round = 0; round < 30; round++) {
      for (let n = 0; n < 50; n++) {
        expected.push(pushed);
        queue.push(pushed++);
      }
      got.push(...(await take(queue, 40)));
    }
    queue.end();
    for await (const item of queue) got.push(item);
    assert.deepEqual(got, expected);
  });

  it("skips discarded items, and gives the numbers of discarded last ones again", async () => {
    const queue = new EventQueue<string>();
    const seqs = ["a", "b", "c", "d"].map((item) => queue.push(item));
    assert.deepEqual(seqs, [0, 1, 2, 3]);
    queue.discard(1);
    queue.discard(3);
    assert.equal(queue.lastSeq, 2, "the discarded last one is gone");
    assert.equal(queue.at(1), undefined);
    assert.equal(queue.push("e"), 3, "its number is given again");
    queue.end();
    const got: string[] = [];
    for await (const item of queue) got.push(item);
    assert.deepEqual(got, ["a", "c", "e"]);
  });

  it("hands the consumer what onTake makes of an item, with its number (-1 when it waited)", async () => {
    const queue = new EventQueue<string>();
    const seen: [string, number][] = [];
    queue.onTake = (item, seq) => {
      seen.push([item, seq]);
      return item.toUpperCase();
    };
    const waiting = queue.next();
    queue.push("now");
    queue.push("later");
    assert.deepEqual(await waiting, { value: "NOW", done: false });
    assert.deepEqual(await queue.next(), { value: "LATER", done: false });
    assert.deepEqual(seen, [
      ["now", -1],
      ["later", 0],
    ]);
  });

  it("puts the rest of an item back in front, and refuses any other", async () => {
    const queue = new EventQueue<string>();
    queue.onTake = (item, seq) => {
      if (item.length <= 2) return item;
      queue.putBack(seq, item.slice(2));
      return item.slice(0, 2);
    };
    queue.push("abcde");
    queue.push("fg");
    queue.end();
    const got: string[] = [];
    for await (const item of queue) got.push(item);
    assert.deepEqual(got, ["ab", "cd", "e", "fg"]);
    const other = new EventQueue<string>();
    other.push("x");
    assert.throws(() => other.putBack(0, "y"), /not the item just taken/);
  });
});
