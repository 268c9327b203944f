// A session's turns run in order even when one is retried: the queue runs a session's jobs one at a
// time, but a failed job is retried later and the next one could go first — so a run whose earlier
// turn has not ended does not start (real PostgreSQL; the attempt is run here, not by a worker).
// And a run's events written together (a batch) keep their order.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CodexHarnessError } from "../../src/errors.js";
import { cancelFleetRun } from "../../src/fleet/cancel.js";
import { FleetStore } from "../../src/fleet/store.js";
import { submitTurn } from "../../src/fleet/submit.js";
import { runFleetAttempt } from "../../src/fleet/turn.js";
import { fleetRows } from "../support/fleet.js";
import { postgresForFile } from "../support/postgres-file.js";

const { missing, url: postgresUrl } = postgresForFile();

describe("fleet order", { skip: missing }, () => {
  it("a run whose earlier turn has not ended waits: no attempt starts until that one ends", async () => {
    const url = postgresUrl();
    const store = await FleetStore.open(url);
    try {
      for (const n of [1, 2]) {
        const run = await submitTurn({
          store,
          externalSessionId: "ordered",
          externalRunId: `ordered-${n}`,
          target: "dev",
          prompt: `turn ${n}`,
        });
        await run.close();
      }
      const logged: string[] = [];
      const context = {
        name: "here",
        project: "/nonexistent",
        aspHome: "/nonexistent/.asp",
        epoch: 1,
        leaseSignal: new AbortController().signal,
        running: new Map<string, AbortController>(),
        log: (line: string) => logged.push(line),
      };
      await assert.rejects(runFleetAttempt(store, "ordered-2", context), (error: unknown) => {
        assert.ok(error instanceof CodexHarnessError);
        assert.equal(error.code, "run_waits");
        assert.match(error.message, /ordered-2 waits for ordered-1/);
        return true;
      });
      const rows = await fleetRows(
        url,
        "SELECT run_id, status, attempts FROM codex_harness_fleet_runs ORDER BY run_id",
      );
      assert.deepEqual(
        rows.map((row) => [row.run_id, row.status, row.attempts]),
        [
          ["ordered-1", "queued", 0],
          ["ordered-2", "queued", 0],
        ],
        "no attempt of the later run started",
      );
      // Once the earlier turn has ended (here: cancelled), nothing holds the later one back.
      await cancelFleetRun(store, "ordered-1");
      assert.equal(await store.unfinishedBefore("ordered-2"), undefined);
      assert.equal(await store.unfinishedBefore("ordered-1"), undefined);
    } finally {
      await store.close();
    }
  });

  it("events written together keep their order: consecutive sequences after the run's last", async () => {
    const url = postgresUrl();
    const store = await FleetStore.open(url);
    try {
      const run = await submitTurn({
        store,
        externalSessionId: "batched",
        externalRunId: "batched-1",
        target: "dev",
        prompt: "go",
      });
      await run.close();
      await store.transaction((client) => store.appendEvent(client, "batched-1", { n: 0 }));
      const text = 'quotes " backslashes \\ braces {} commas , and a NUL \u0000';
      const batch = Array.from({ length: 300 }, (_, n) => ({ n: n + 1, text }));
      const seqs = await store.transaction((client) =>
        store.appendEvents(client, "batched-1", batch),
      );
      assert.deepEqual(
        seqs,
        batch.map((_, n) => n + 2),
      );
      const stored = await store.events("batched-1");
      assert.deepEqual(
        stored.map(({ seq, event }) => [seq, (event as unknown as { n: number }).n]),
        Array.from({ length: 301 }, (_, n) => [n + 1, n]),
      );
      const second = stored[1];
      assert.ok(second);
      assert.equal(
        (second.event as unknown as { text: string }).text,
        text.replace("\u0000", "\ufffd"),
        "the text arrives whole (NUL as U+FFFD, which jsonb needs)",
      );
    } finally {
      await store.close();
    }
  });
});
