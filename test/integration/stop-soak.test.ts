// A short run of the random-stop campaign (`npm run soak`) on each stop path (the SDK's, ACP, the
// fleet): stops at random
// moments (before the turn exists, during an approval wait, mid-command, while streaming) on the
// real codex; every stop is answered as a stop, and nothing of its turn runs after the answer.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runCampaign } from "../../soak/campaign.js";
import { pathMissing, stopPaths } from "../../soak/paths.js";

const STOPS = 8;

describe("random stops on every stop path (a short soak)", { concurrency: 1 }, () => {
  const seed = Number(process.env.SOAK_SEED ?? Date.now() % 100_000);
  for (const [name, make] of Object.entries(stopPaths)) {
    const title = `${STOPS} stops on ${name}, seed ${seed}: none lost, nothing after the answer`;
    it(title, { skip: pathMissing(name) }, async () => {
      const report = await runCampaign(make(), { stops: STOPS, seed });
      const broken = {
        notStopped: report.notStopped,
        lostStops: report.lostStops,
        startedAfter: report.startedAfter,
        finishedAfter: report.finishedAfter,
        aliveAtAnswer: report.aliveAtAnswer,
        hangs: report.hangs,
        orphans: report.orphans,
        unhandledRejections: report.unhandledRejections,
      };
      assert.deepEqual(
        broken,
        {
          notStopped: [],
          lostStops: [],
          startedAfter: [],
          finishedAfter: [],
          aliveAtAnswer: [],
          hangs: [],
          orphans: 0,
          unhandledRejections: [],
        },
        `seed ${seed}`,
      );
      assert.equal(report.stops, STOPS);
    });
  }
});
