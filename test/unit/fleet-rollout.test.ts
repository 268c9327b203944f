// A session's rollout as the fleet stores it: its last record tells whether codex wrote a turn's end.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { gunzipSync } from "node:zlib";
import { endsTurn, readRollout } from "../../src/fleet/session-files.js";

const home = mkdtempSync(path.join(tmpdir(), "codex-harness-rollout-"));
after(() => rmSync(home, { recursive: true, force: true }));
const dir = path.join(home, "sessions", "2026", "11", "26");
mkdirSync(dir, { recursive: true });
const file = path.join(dir, "rollout-2026-11-26T00-00-00-thread-1.jsonl");
const end = (turnId: string) =>
  JSON.stringify({
    type: "event_msg",
    payload: { type: "task_complete", turn_id: turnId, last_agent_message: "fin é ✓" },
  });

describe("readRollout", () => {
  it("gives the whole rollout and its last record, whatever ends its last line", async () => {
    for (const tail of ["\n", "\r\n", "\n\n", ""]) {
      const text = `{"type":"session_meta"}\n${end("turn-2")}${tail}`;
      writeFileSync(file, text);
      const rollout = await readRollout(home, "thread-1");
      assert.ok(rollout);
      assert.equal(rollout.relativePath, path.relative(home, file));
      assert.equal(gunzipSync(rollout.gzipped).toString("utf8"), text);
      assert.equal(endsTurn(rollout.lastRecord, "turn-2"), true, JSON.stringify(tail));
      assert.equal(endsTurn(rollout.lastRecord, "turn-1"), false, "another turn's end");
    }
  });

  it("a rollout whose last line is not whole, or not a turn's end, does not end the turn", async () => {
    writeFileSync(file, `${end("turn-2")}\n{"type":"event_msg","payload":{"type":"task_compl`);
    assert.equal((await readRollout(home, "thread-1"))?.lastRecord, undefined);
    writeFileSync(
      file,
      `${end("turn-2")}\n{"type":"response_item","payload":{"turn_id":"turn-2"}}\n`,
    );
    const rollout = await readRollout(home, "thread-1");
    assert.equal(endsTurn(rollout?.lastRecord, "turn-2"), false);
    assert.equal(endsTurn(rollout?.lastRecord, undefined), false);
    assert.equal(await readRollout(home, "thread-9"), undefined, "no rollout of that thread");
  });
});
