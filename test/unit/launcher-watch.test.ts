// A command npm started (npx) stops once its parent is gone; other commands are not watched.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { stopWithLauncher } from "../../src/cli/launcher-watch.js";

describe("stopWithLauncher", () => {
  it("stops a command npm started once its parent changed", async () => {
    let parent = 100;
    let stopped = 0;
    const unwatch = stopWithLauncher(
      { npm_command: "exec" },
      () => parent,
      () => stopped++,
    );
    await sleep(600);
    assert.equal(stopped, 0, "the parent is there");
    parent = 1;
    await sleep(600);
    assert.equal(stopped, 1);
    await sleep(600);
    assert.equal(stopped, 1, "once");
    unwatch();
  });

  it("watches nothing outside npm", async () => {
    let stopped = 0;
    let looked = 0;
    stopWithLauncher(
      {},
      () => {
        looked++;
        return looked;
      },
      () => stopped++,
    );
    await sleep(600);
    assert.equal(looked, 0);
    assert.equal(stopped, 0);
  });
});
