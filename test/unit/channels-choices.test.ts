// The answers each interaction kind offers and the words for how it ended, shared by the inbox and chat backends.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  choicesOf,
  chosenOf,
  itemEndWords,
  outcomeWords,
  refusalsOf,
} from "../../src/channels/choices.js";

const approval = {
  kind: "approval_request" as const,
  actions: ["accept" as const, "decline" as const, "cancel" as const],
};

describe("choices", () => {
  it("offers the kind's choices among the allowed actions", () => {
    assert.deepEqual(
      choicesOf(approval).map((choice) => choice.label),
      ["Accept", "Accept for this session", "Decline", "Interrupt the turn"],
    );
    assert.deepEqual(
      choicesOf({ kind: "approval_request", actions: ["accept"] }).map((c) => c.label),
      ["Accept", "Accept for this session"],
    );
  });

  it("finds the choice a response stands for, a missing scope being the default one", () => {
    assert.equal(chosenOf(approval, { action: "accept" })?.label, "Accept");
    assert.equal(
      chosenOf(approval, { action: "accept", values: { scope: "once" } })?.label,
      "Accept",
    );
    assert.equal(
      chosenOf(approval, { action: "accept", values: { scope: "session" } })?.label,
      "Accept for this session",
    );
    assert.equal(chosenOf(approval, { action: "accept", values: { scope: "forever" } }), undefined);
  });

  it("says how it ended, with who answered", () => {
    const respondedAt = "2026-11-22T10:00:00.000Z";
    assert.equal(
      outcomeWords({
        ...approval,
        response: {
          action: "accept",
          values: { scope: "session" },
          metadata: { answeredBy: "alice" },
          respondedAt,
        },
      }),
      "Accepted for this session by alice",
    );
    assert.equal(
      outcomeWords({ ...approval, response: { action: "cancel", respondedAt } }),
      "Declined and interrupted the turn",
    );
    assert.equal(
      outcomeWords({ ...approval, end: { reason: "timeout", at: respondedAt } }),
      "Expired: nobody answered in time",
    );
    assert.match(
      outcomeWords({ ...approval, end: { reason: "cleared", at: respondedAt } }) ?? "",
      /^Withdrawn by codex/,
    );
    assert.equal(outcomeWords(approval), undefined);
  });
});

describe("what accepts nothing, and how an item ended", () => {
  it("refusals are Decline and Interrupt the turn, among the allowed actions", () => {
    assert.deepEqual(
      refusalsOf(approval).map((choice) => choice.label),
      ["Decline", "Interrupt the turn"],
    );
    assert.deepEqual(
      refusalsOf({ kind: "permissions_request", actions: ["accept", "decline"] }).map(
        (c) => c.label,
      ),
      ["Decline"],
    );
    assert.deepEqual(refusalsOf({ kind: "approval_request", actions: ["accept"] }), []);
  });

  it("says how a command or a file change ended, from its progress update's payload", () => {
    const ran = (status: string, exitCode: number | null) =>
      itemEndWords({ event: "command", command: "ls", status, exitCode });
    assert.equal(ran("completed", 0), "The command ran (exit 0)");
    assert.equal(ran("failed", 2), "The command failed (exit 2)");
    assert.equal(ran("failed", null), "The command failed");
    assert.equal(ran("declined", null), "The command was declined");
    assert.equal(ran("in_progress", null), undefined);
    assert.equal(
      itemEndWords({ event: "file_change", status: "completed" }),
      "The change was applied",
    );
    assert.equal(itemEndWords({ event: "message", text: "hi" }), undefined);
  });
});
