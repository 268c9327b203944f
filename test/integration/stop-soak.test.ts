// A short run of the random-stop campaign (`npm run soak`) on each SDK path: stops at random
// moments (before the turn exists, during an approval wait, mid-command, while streaming) on the
// real codex; every stop is answered as a stop, and nothing of its turn runs after the answer.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runCampaign } from "../../soak/campaign.js";
import { sdkPaths } from "../../soak/sdk-paths.js";

const STOPS = 12;

/**
 * Not yet held here: a remote codex's processes live on the host's machine, out of this program's
 * reach, and the command codex spawns as it is interrupted is seen alive at the answer (issue 37
 * is open for it; `npm run soak -- --path remote` measures it).
 */
const HELD = Object.entries(sdkPaths).filter(([name]) => name !== "remote");

describe("random stops on every SDK path (a short soak)", { concurrency: 1 }, () => {
  const seed = Number(process.env.SOAK_SEED ?? Date.now() % 100_000);
  for (const [name, make] of HELD) {
    it(`${STOPS} stops on ${name}, seed ${seed}: none lost, nothing after the answer`, async () => {
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
