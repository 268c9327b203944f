// Approvals that follow the person: the first answer of the editor and channels wins; with
// --away-after the editor has that long alone, unless it leaves the request, which then goes to
// channels at once.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { firstAnswer } from "../../src/acp/follow-person.js";
import type { ApprovalContext, Approvals } from "../../src/events/approval-types.js";

const request = { kind: "commandExecution", command: "ls" } as never;
const context = (): ApprovalContext =>
  ({ signal: new AbortController().signal }) as ApprovalContext;

/** The commandExecution handler of `approvals`, called as the broker would. */
function ask(approvals: Approvals): Promise<unknown> {
  const handler = approvals.commandExecution as (r: never, c: ApprovalContext) => Promise<unknown>;
  return handler(request, context());
}

describe("acp: approvals that follow the person", () => {
  it("with --away-after, a request the editor leaves goes to channels at once", async () => {
    let channelsAskedAt = 0;
    const started = Date.now();
    const approvals = firstAnswer(
      { commandExecution: async () => undefined },
      {
        commandExecution: async () => {
          channelsAskedAt = Date.now() - started;
          return "accept" as const;
        },
      },
      { awayAfterMs: 10_000 },
    );
    assert.equal(await ask(approvals), "accept");
    assert.ok(channelsAskedAt < 1_000, `channels asked after ${channelsAskedAt} ms`);
  });

  it("with --away-after, channels waits while the editor may still answer; the editor's answer wins", async () => {
    let channelsAsked = false;
    const approvals = firstAnswer(
      {
        commandExecution: async () => {
          await sleep(100);
          return "decline" as const;
        },
      },
      {
        commandExecution: async () => {
          channelsAsked = true;
          return "accept" as const;
        },
      },
      { awayAfterMs: 5_000 },
    );
    assert.equal(await ask(approvals), "decline");
    assert.equal(channelsAsked, false, "channels was never asked");
  });

  it("with --away-after, an editor that stays silent loses the request to channels after that long", async () => {
    const started = Date.now();
    const approvals = firstAnswer(
      {
        commandExecution: (_r, { signal }) =>
          new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
      },
      { commandExecution: async () => "accept" as const },
      { awayAfterMs: 200 },
    );
    assert.equal(await ask(approvals), "accept");
    assert.ok(Date.now() - started >= 190, "after the editor's time alone");
  });
});
