// Unit tests of auto review: verdicts as approval.resolved, the handlers it would bypass, exec's refusal.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkApprovalsReviewer, checkReviewerConflict } from "../../src/approvals/reviewer.js";
import { CodexHarnessError } from "../../src/errors.js";
import { autoReviewResolved } from "../../src/events/auto-review.js";
import type { GuardianApprovalReviewAction } from "../../src/protocol/generated/ts/v2/GuardianApprovalReviewAction.js";
import type { GuardianApprovalReviewStatus } from "../../src/protocol/generated/ts/v2/GuardianApprovalReviewStatus.js";
import { execRunFor } from "../../src/turns/exec-turns.js";

const scope = { thread_id: "t", turn_id: "u" };

function completed(action: GuardianApprovalReviewAction, status: GuardianApprovalReviewStatus) {
  return {
    threadId: "t",
    turnId: "u",
    startedAtMs: 1,
    completedAtMs: 2,
    reviewId: "r1",
    targetItemId: "item",
    decisionSource: "agent" as const,
    review: { status, riskLevel: null, userAuthorization: null, rationale: null },
    action,
  };
}

const errorWith = (code: string, message: RegExp) => (error: unknown) =>
  error instanceof CodexHarnessError && error.code === code && message.test(error.message);

describe("autoReviewResolved", () => {
  it("gives each reviewed action the kind and decision a handler of it would give", () => {
    const cases: [GuardianApprovalReviewAction, string, unknown, unknown][] = [
      [
        { type: "command", source: "shell", command: "ls", cwd: "/w" },
        "commandExecution",
        "accept",
        "decline",
      ],
      [
        { type: "networkAccess", target: "x", host: "x", protocol: "https", port: 443 },
        "commandExecution",
        "accept",
        "decline",
      ],
      [{ type: "applyPatch", cwd: "/w", files: ["/w/a"] }, "fileChange", "accept", "decline"],
      [
        {
          type: "mcpToolCall",
          server: "s",
          toolName: "t",
          connectorId: null,
          connectorName: null,
          toolTitle: null,
        },
        "elicitation",
        { accept: null },
        "decline",
      ],
      [
        {
          type: "requestPermissions",
          reason: null,
          permissions: { network: { enabled: true }, fileSystem: null },
        },
        "permissions",
        { grant: { network: { enabled: true } }, scope: "turn" },
        "decline",
      ],
    ];
    for (const [action, kind, accepted, denied] of cases) {
      const yes = autoReviewResolved(completed(action, "approved"), scope);
      const no = autoReviewResolved(completed(action, "denied"), scope);
      assert.equal(yes?.kind, kind, action.type);
      assert.deepEqual(yes?.decision, accepted, action.type);
      assert.deepEqual(no?.decision, denied, action.type);
      assert.equal(no?.decided_by, "auto_review");
      assert.equal(no?.item_id, "item");
    }
  });

  it("says a timed-out review declined and an aborted one cancelled; one in progress is no verdict", () => {
    const command: GuardianApprovalReviewAction = {
      type: "command",
      source: "shell",
      command: "ls",
      cwd: "/w",
    };
    const late = autoReviewResolved(completed(command, "timedOut"), scope);
    assert.equal(late?.decision, "decline");
    assert.equal(late?.review?.status, "timed_out");
    assert.equal(late?.reason, "auto review timed out");
    assert.equal(autoReviewResolved(completed(command, "aborted"), scope)?.decision, "cancel");
    assert.equal(autoReviewResolved(completed(command, "inProgress"), scope), undefined);
    const unknown = { type: "teleport" } as unknown as GuardianApprovalReviewAction;
    assert.equal(autoReviewResolved(completed(unknown, "approved"), scope), undefined);
  });
});

describe("approvalsReviewer checks", () => {
  it("refuses a reviewer codex does not know", () => {
    assert.doesNotThrow(() => checkApprovalsReviewer("auto_review"));
    assert.throws(
      () => checkApprovalsReviewer("robot"),
      errorWith("unsupported_option", /"robot".*"user" or "auto_review"/),
    );
  });

  it("names every handler auto review would bypass, and lets the others be", () => {
    const accept = () => "accept" as const;
    assert.throws(
      () => checkReviewerConflict("auto_review", { commandExecution: accept, fileChange: accept }),
      errorWith(
        "auto_review_conflict",
        /commandExecution, fileChange handlers would never be asked/,
      ),
    );
    assert.doesNotThrow(() =>
      checkReviewerConflict("auto_review", {
        userInput: () => ({ answers: {} }),
        elicitation: () => "decline",
      }),
    );
    assert.doesNotThrow(() => checkReviewerConflict("user", { commandExecution: accept }));
    assert.doesNotThrow(() => checkReviewerConflict(undefined, { commandExecution: accept }));
    // A reviewer codex does not know is named as such, not taken for an auto reviewer.
    assert.throws(
      () => checkReviewerConflict("robot" as never, { commandExecution: accept }),
      errorWith("unsupported_option", /"robot"/),
    );
  });

  it("exec refuses approvalsReviewer on a thread and on a turn", () => {
    const base = { threadId: null, input: [{ type: "text" as const, text: "hi" }] };
    assert.throws(
      () =>
        execRunFor({
          ...base,
          threadOptions: { approvalsReviewer: "auto_review" },
          turnOptions: {},
        }),
      errorWith("unsupported_option", /approvalsReviewer need the app-server transport/),
    );
    assert.throws(
      () => execRunFor({ ...base, threadOptions: {}, turnOptions: { approvalsReviewer: "user" } }),
      errorWith("unsupported_option", /approvalsReviewer need the app-server transport/),
    );
  });
});
