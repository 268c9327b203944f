// Requests a routing rule governs go to channels only under acp (the editor is told, never asked);
// requests no rule governs go where they went before.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { governedByChannels, waitingNotice } from "../../src/acp/governed-requests.js";
import type { RoutingRule } from "../../src/approvals/routing-rules.js";
import type { ApprovalContext, ApprovalRequest } from "../../src/events/approval-types.js";

const RULES: RoutingRule[] = [
  {
    name: "publish",
    exec: ["npm publish*"],
    answer: ["group:release"],
    approvals: 2,
    notSelf: true,
  },
];

const command = (text: string) =>
  ({
    kind: "commandExecution",
    request_id: 7,
    command: `/bin/bash -lc '${text}'`,
    cwd: "/work",
  }) as unknown as ApprovalRequest;

const context = (): ApprovalContext => ({ signal: new AbortController().signal });

describe("acp: requests a routing rule governs", () => {
  it("go to channels only, the editor told; the rest to the others", async () => {
    const asked: string[] = [];
    const told: string[] = [];
    const approvals = governedByChannels(
      {
        commandExecution: async () => {
          asked.push("channels");
          return "accept" as const;
        },
      },
      {
        commandExecution: async () => {
          asked.push("others");
          return "decline" as const;
        },
        tokenRefresh: async () => undefined,
      },
      { rules: RULES, startedBy: "alice" },
      (notice) => told.push(notice),
    );
    const handler = approvals.commandExecution as unknown as (
      request: ApprovalRequest,
      context: ApprovalContext,
    ) => Promise<unknown>;
    assert.equal(await handler(command("npm publish --tag next"), context()), "accept");
    assert.equal(await handler(command("npm test"), context()), "decline");
    assert.deepEqual(asked, ["channels", "others"]);
    assert.deepEqual(told, [
      "npm publish --tag next: waiting for group:release, 2 approvals, not alice (rule publish) in the channels runtime; it cannot be answered in the editor.\n",
    ]);
    assert.equal(typeof approvals.tokenRefresh, "function", "other kinds kept as they were");
  });

  it("a kind the others leave alone is declined by default when no rule governs it", async () => {
    const approvals = governedByChannels(
      { fileChange: async () => "accept" as const },
      {},
      { rules: [{ name: "deploy", write: ["deploy/**"], answer: ["group:ops"] }] },
    );
    const handler = approvals.fileChange as unknown as (
      request: ApprovalRequest,
      context: ApprovalContext,
    ) => Promise<unknown>;
    const change = (file: string) =>
      ({
        kind: "fileChange",
        request_id: 1,
        changes: [{ path: file }],
      }) as unknown as ApprovalRequest;
    assert.equal(await handler(change("/work/deploy/prod.yml"), context()), "accept");
    assert.equal(await handler(change("/work/src/app.ts"), context()), undefined);
  });

  it("the notice names the request and who is asked", () => {
    assert.equal(
      waitingNotice(command("npm publish"), { answer: ["carol", "group:release"], rule: "r" }),
      "npm publish: waiting for carol, group:release (rule r) in the channels runtime; it cannot be answered in the editor.\n",
    );
  });
});
