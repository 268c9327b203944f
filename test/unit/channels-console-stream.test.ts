// The fleet console's live stream without a database: runs' changes coalesced (≤ 4 messages a
// second, ids and statuses only), workers' diffs from the poll, one subscription while clients
// are connected, none after.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type {
  ConsoleRunStatus,
  ConsoleWorker,
  FleetConsoleSource,
} from "../../src/channels/console/console-source.js";
import {
  type ConsoleStreamClient,
  FleetConsoleStream,
} from "../../src/channels/console/console-stream.js";
import { eventually } from "../support/eventually.js";

/** A source whose runs and workers the test sets, counting its subscriptions. */
class FakeSource {
  statuses = new Map<string, ConsoleRunStatus>();
  workerList: ConsoleWorker[] = [];
  notify: ((runId: string) => void) | undefined;
  subscriptions = 0;
  asked: string[][] = [];

  readonly source = {
    onRunChange: async (onRun: (runId: string) => void) => {
      this.subscriptions += 1;
      this.notify = onRun;
      return async () => {
        this.subscriptions -= 1;
        this.notify = undefined;
      };
    },
    statuses: async (ids: string[]) => {
      this.asked.push(ids);
      return ids.flatMap((runId) => {
        const status = this.statuses.get(runId);
        return status ? [{ runId, status }] : [];
      });
    },
    workers: async () => this.workerList,
    listening: async () => undefined,
  } as unknown as FleetConsoleSource;
}

/** A client that keeps what it is sent. */
function recorder(): ConsoleStreamClient & {
  messages: { event: string; data: unknown; at: number }[];
} {
  const messages: { event: string; data: unknown; at: number }[] = [];
  return {
    messages,
    send: (event: string, data: unknown) => {
      messages.push({ event, data, at: Date.now() });
      return true;
    },
    end: () => undefined,
  };
}

const worker = (name: string, alive: boolean, running: string[] = []): ConsoleWorker => ({
  name,
  alive,
  heartbeatAgeMs: 0,
  epoch: 1,
  leaseMs: 1_500,
  running,
});

describe("the fleet console's live stream", () => {
  it("coalesces run changes: a burst is one message, the next waits half a second", async () => {
    const fake = new FakeSource();
    const stream = new FleetConsoleStream(fake.source);
    const one = recorder();
    const two = recorder();
    try {
      await stream.add(one);
      await stream.add(two);
      assert.equal(fake.subscriptions, 1, "one subscription for every client");
      for (let n = 0; n < 30; n++) {
        fake.statuses.set(`run-${n}`, "queued");
        fake.notify?.(`run-${n}`);
      }
      fake.notify?.("unknown-run");
      const first = await eventually("the burst's message", () =>
        one.messages.find((m) => m.event === "run"),
      );
      assert.equal((first.data as unknown[]).length, 30, "every run once; an unknown one left out");
      assert.deepEqual((first.data as unknown[])[0], { run_id: "run-0", status: "queued" });
      fake.statuses.set("run-3", "running");
      fake.notify?.("run-3");
      fake.notify?.("run-3");
      const second = await eventually(
        "the next message",
        () => one.messages.filter((m) => m.event === "run")[1],
      );
      assert.deepEqual(second.data, [{ run_id: "run-3", status: "running" }]);
      assert.ok(second.at - first.at >= 450, `${second.at - first.at} ms between messages`);
      assert.deepEqual(
        two.messages.filter((m) => m.event === "run").map((m) => m.data),
        one.messages.filter((m) => m.event === "run").map((m) => m.data),
        "every client gets the same",
      );
      assert.equal(fake.asked.length, 2, "one query a message");
    } finally {
      stream.close();
    }
    await eventually("unsubscribed", () => fake.subscriptions === 0);
  });

  it("sends the workers that came, changed or left, polled every third of the shortest lease", async () => {
    const fake = new FakeSource();
    fake.workerList = [worker("a", true), worker("b", true)];
    const stream = new FleetConsoleStream(fake.source);
    const client = recorder();
    try {
      await stream.add(client);
      await new Promise((resolve) => setTimeout(resolve, 100));
      fake.workerList = [worker("a", true, ["run-1"]), worker("b", false)];
      const changed = await eventually("a diff", () =>
        client.messages.find((m) => m.event === "workers"),
      );
      assert.deepEqual(changed.data, { changed: ["a", "b"], gone: [] });
      fake.workerList = [worker("a", true, ["run-1"])];
      const gone = await eventually(
        "b leaves",
        () => client.messages.filter((m) => m.event === "workers")[1],
      );
      assert.deepEqual(gone.data, { changed: [], gone: ["b"] });
      assert.ok(
        gone.at - changed.at >= 450 && gone.at - changed.at < 1_500,
        "a poll a third of 1.5 s",
      );
    } finally {
      stream.remove(client);
    }
    // The last client gone, the subscription goes.
    await eventually("unsubscribed", () => fake.subscriptions === 0);
  });

  it("a client cut off (its sends refused) still leaves, and the subscription with it", async () => {
    const fake = new FakeSource();
    const stream = new FleetConsoleStream(fake.source);
    const refusing = { ...recorder(), send: () => false };
    await stream.add(refusing);
    fake.statuses.set("run-1", "queued");
    fake.notify?.("run-1");
    await eventually("the change is read", () => fake.asked.length === 1);
    stream.remove(refusing);
    await eventually("unsubscribed", () => fake.subscriptions === 0);
    const next = recorder();
    await stream.add(next);
    assert.equal(fake.subscriptions, 1, "one subscription again, not two");
    stream.close();
    await eventually("unsubscribed", () => fake.subscriptions === 0);
  });
});
