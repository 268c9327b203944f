// Who may answer, as the web inbox shows it: the gate opens only on the runtime's own yes, the words
// that stand in for the answers, and where a request that needs several accepts stands.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  approvalWords,
  INBOX_RIGHTS_JS,
  mayAnswer,
  notAnswerableWords,
} from "../../src/channels/inbox-rights.js";

describe("inbox rights", () => {
  it("offers answers only when the runtime said this viewer may answer (fail closed)", () => {
    assert.equal(mayAnswer({ viewer: { mayAnswer: true } }), true);
    assert.equal(mayAnswer({ viewer: { mayAnswer: false, reason: "no" } }), false);
    // An older runtime (no viewer), or anything but true: read-only.
    assert.equal(mayAnswer({}), false);
    assert.equal(mayAnswer(undefined), false);
    const odd = JSON.parse('{"viewer":{"mayAnswer":"true"}}');
    assert.equal(mayAnswer(odd), false);
  });

  it("puts the runtime's reason in place of the answers, or says it is read-only", () => {
    const reason = "Only group:release may answer this request, and bob is not among them.";
    assert.equal(notAnswerableWords({ viewer: { mayAnswer: false, reason } }), reason);
    assert.equal(
      notAnswerableWords({ viewer: { mayAnswer: false } }),
      "You may not answer this request.",
    );
    assert.match(notAnswerableWords({}), /did not say whether you may answer.*read-only/);
  });

  it("says how many accepts a request has of those it needs, and whose", () => {
    const routing = { approvals: 2 };
    const at = "2026-11-27T12:00:00.000Z";
    assert.equal(approvalWords({ routing }), "0 of 2 approvals");
    assert.equal(
      approvalWords({ routing, approvals: [{ by: "alice", name: "Alice", at }] }),
      "1 of 2 approvals · Alice",
    );
    assert.equal(
      approvalWords({
        routing,
        approvals: [
          { by: "alice", name: "Alice", at },
          { by: "carol", at },
        ],
      }),
      "2 of 2 approvals · Alice, carol",
    );
    // One answer settles it: nothing to count.
    assert.equal(approvalWords({ routing: { approvals: 1 } }), undefined);
    assert.equal(approvalWords({}), undefined);
  });

  it("is browser code that defines the gate and uses nothing but the page's el", () => {
    const made: unknown[] = [];
    const el = (tag: string, attributes: unknown, text: string) => ({ tag, attributes, text });
    const gate = new Function("el", `${INBOX_RIGHTS_JS}; return answerControls;`)(el) as (
      interaction: unknown,
      make: () => unknown[],
    ) => unknown[];
    const make = () => {
      made.push("controls");
      return ["controls"];
    };
    assert.deepEqual(gate({ viewer: { mayAnswer: true } }, make), ["controls"]);
    const shown = gate({ viewer: { mayAnswer: false, reason: "Not yours." } }, make);
    assert.deepEqual(shown, [
      { tag: "p", attributes: { class: "not-yours", role: "note" }, text: "Not yours." },
    ]);
    assert.deepEqual(made, ["controls"], "make() runs only behind an open gate");
  });
});
