// WarmCodex: codex started once, early; what sessions read of it kept (or not), bounded waits.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WarmCodex, type WarmRead } from "../../src/acp/warm-codex.js";

/** A codex whose start the test ends, counting the starts. */
function fakeCodex() {
  let finish: (error?: Error) => void = () => {};
  const codex = {
    starts: 0,
    start: () => {
      codex.starts++;
      return new Promise<unknown>((resolve, reject) => {
        finish = (error) => (error ? reject(error) : resolve(codex));
      });
    },
    finish: (error?: Error) => finish(error),
  };
  return codex;
}

/** A read counting its calls, answering `values` in turn. */
function counted<T>(key: string, values: T[], keep?: (value: T) => boolean) {
  const read = {
    calls: 0,
    key,
    read: async () => values[Math.min(read.calls++, values.length - 1)] as T,
    ...(keep ? { keep } : {}),
  };
  return read satisfies WarmRead<T>;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("WarmCodex", () => {
  it("starts codex once, then reads each value once for every later session", async () => {
    const codex = fakeCodex();
    const warm = new WarmCodex(codex);
    const config = counted("config", [{ model: "a" }]);
    warm.start([config]);
    warm.start([config]);
    assert.equal(codex.starts, 1);
    assert.equal(config.calls, 0, "nothing is read before codex is up");
    codex.finish();
    await warm.ready(1_000);
    await settle();
    assert.equal(config.calls, 1);
    assert.deepEqual(await warm.get(config), { model: "a" });
    assert.deepEqual(await warm.get(config), { model: "a" });
    assert.equal(config.calls, 1);
  });

  it("a value `keep` refuses is read again next time; forget() drops every kept value", async () => {
    const warm = new WarmCodex(fakeCodex());
    const login = counted("login", ["missing", "ok"], (state) => state === "ok");
    assert.equal(await warm.get(login), "missing");
    await settle();
    assert.equal(await warm.get(login), "ok");
    await settle();
    assert.equal(await warm.get(login), "ok");
    assert.equal(login.calls, 2);
    warm.forget();
    assert.equal(await warm.get(login), "ok");
    assert.equal(login.calls, 3);
  });

  it("a failed read is not kept: the next one reads again", async () => {
    const warm = new WarmCodex(fakeCodex());
    let calls = 0;
    const flaky: WarmRead<string> = {
      key: "models",
      read: async () => {
        if (calls++ === 0) throw new Error("codex stopped");
        return "models";
      },
    };
    await assert.rejects(warm.get(flaky), /codex stopped/);
    await settle();
    assert.equal(await warm.get(flaky), "models");
  });

  it("ready() waits at most its bound for a slow start, and never rejects for a failed one", async () => {
    const slow = new WarmCodex(fakeCodex());
    slow.start([]);
    // ready()'s timer does not keep a process alive (the editor's connection does): this does.
    const alive = setTimeout(() => {}, 5_000);
    const began = performance.now();
    await slow.ready(50);
    clearTimeout(alive);
    assert.ok(performance.now() - began < 1_000);

    const codex = fakeCodex();
    const lines: string[] = [];
    const failing = new WarmCodex(codex, (line) => lines.push(line));
    const read = counted("config", [1]);
    failing.start([read]);
    codex.finish(new Error("spawn codex ENOENT"));
    await failing.ready(1_000);
    assert.match(lines.join("\n"), /did not start early \(spawn codex ENOENT\)/);
    assert.equal(read.calls, 0, "nothing read from a codex that did not start");

    await new WarmCodex(fakeCodex()).ready(60_000); // never started: at once
  });
});
