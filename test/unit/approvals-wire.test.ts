import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AppServerClient } from "../../src/app-server/client.js";
import { ApprovalBroker, type ApprovalTarget } from "../../src/approvals/broker.js";
import { mergeApprovals } from "../../src/approvals/merge.js";
import { APPROVAL_KINDS, type Approvals } from "../../src/events/approval-types.js";
import {
  isDecision,
  toApprovalRequest,
  toWireResult,
} from "../../src/events/server-requests/index.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import { threadStartParams } from "../../src/turns/thread-params.js";

describe("decisions on the wire (pinned protocol shapes)", () => {
  const command = "item/commandExecution/requestApproval";
  it("command decisions", () => {
    assert.deepEqual(toWireResult(command, "accept"), { decision: "accept" });
    assert.deepEqual(toWireResult(command, "acceptForSession"), { decision: "acceptForSession" });
    assert.deepEqual(toWireResult(command, "decline"), { decision: "decline" });
    assert.deepEqual(toWireResult(command, "cancel"), { decision: "cancel" });
    assert.deepEqual(toWireResult(command, { acceptWithExecpolicyAmendment: ["npm", "install"] }), {
      decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["npm", "install"] } },
    });
    assert.deepEqual(
      toWireResult(command, {
        applyNetworkPolicyAmendment: { host: "example.com", action: "allow" },
      }),
      {
        decision: {
          applyNetworkPolicyAmendment: {
            network_policy_amendment: { host: "example.com", action: "allow" },
          },
        },
      },
    );
  });

  it("v1 approvals get ReviewDecision values", () => {
    assert.deepEqual(toWireResult("execCommandApproval", "accept"), { decision: "approved" });
    assert.deepEqual(toWireResult("execCommandApproval", "acceptForSession"), {
      decision: "approved_for_session",
    });
    assert.deepEqual(toWireResult("applyPatchApproval", "cancel"), { decision: "abort" });
    assert.deepEqual(toWireResult("applyPatchApproval", "decline"), {
      decision: { denied: { rejection: "Declined by the client." } },
    });
  });

  it("permissions, questions, elicitations, dynamic tools, token refresh", () => {
    assert.deepEqual(toWireResult("item/permissions/requestApproval", "decline"), {
      permissions: {},
      scope: "turn",
    });
    assert.deepEqual(
      toWireResult("item/permissions/requestApproval", {
        grant: { network: { enabled: true } },
        scope: "session",
      }),
      { permissions: { network: { enabled: true } }, scope: "session" },
    );
    assert.deepEqual(toWireResult("item/tool/requestUserInput", { answers: { q: ["Yes"] } }), {
      answers: { q: { answers: ["Yes"] } },
    });
    assert.deepEqual(toWireResult("item/tool/requestUserInput", "decline"), { answers: {} });
    assert.deepEqual(toWireResult("mcpServer/elicitation/request", { accept: { name: "x" } }), {
      action: "accept",
      content: { name: "x" },
      _meta: null,
    });
    assert.deepEqual(toWireResult("mcpServer/elicitation/request", "cancel"), {
      action: "cancel",
      content: null,
      _meta: null,
    });
    assert.deepEqual(toWireResult("item/tool/call", { output: "42" }), {
      contentItems: [{ type: "inputText", text: "42" }],
      success: true,
    });
    assert.equal(
      (toWireResult("item/tool/call", "decline") as { success: boolean }).success,
      false,
    );
    assert.deepEqual(
      toWireResult("account/chatgptAuthTokens/refresh", {
        accessToken: "t",
        chatgptAccountId: "a",
      }),
      { accessToken: "t", chatgptAccountId: "a", chatgptPlanType: null },
    );
    assert.throws(
      () => toWireResult("account/chatgptAuthTokens/refresh", "decline"),
      /no ChatGPT tokens/,
    );
  });

  it("recognises valid decisions per kind and refuses the rest", () => {
    assert.ok(isDecision("commandExecution", "acceptForSession"));
    assert.ok(!isDecision("fileChange", { acceptWithExecpolicyAmendment: ["x"] }));
    assert.ok(!isDecision("commandExecution", "yes"));
    assert.ok(!isDecision("commandExecution", { acceptWithExecpolicyAmendment: [1] }));
    assert.ok(isDecision("userInput", { answers: { a: ["b"] } }));
    assert.ok(!isDecision("userInput", { answers: { a: "b" } }));
    assert.ok(isDecision("permissions", { grant: {}, scope: "turn" }));
    assert.ok(!isDecision("permissions", { grant: {}, scope: "forever" }));
    for (const kind of APPROVAL_KINDS) {
      assert.ok(isDecision(kind, "decline"), `${kind} accepts decline`);
    }
  });
});

describe("request objects", () => {
  it("normalises command approvals, with v1 argv joined", () => {
    const request = toApprovalRequest("item/commandExecution/requestApproval", 7, {
      kind: "command",
      threadId: "t",
      turnId: "u",
      itemId: "i",
      command: "/bin/bash -lc 'ls'",
      cwd: "/w",
      reason: "why",
      commandActions: [{ type: "listFiles", command: "ls", path: null }],
      proposedExecpolicyAmendment: ["ls"],
    });
    assert.equal(request?.kind, "commandExecution");
    assert.ok(request?.kind === "commandExecution");
    assert.equal(request.request_id, 7);
    assert.equal(request.thread_id, "t");
    assert.deepEqual(request.proposed_execpolicy_amendment, ["ls"]);
    const v1 = toApprovalRequest("execCommandApproval", "x", {
      conversationId: "c",
      callId: "k",
      command: ["git", "status"],
      cwd: "/w",
      reason: null,
      parsedCmd: [
        { type: "list_files", cmd: "ls src", path: "src" },
        { type: "unknown", cmd: "git status" },
      ],
    });
    assert.ok(
      v1?.kind === "commandExecution" && v1.command === "git status" && v1.thread_id === "c",
    );
    // v1's parsed commands become v2 command actions (`cmd` -> `command`), as policies read them.
    assert.deepEqual(v1.command_actions, [
      { type: "listFiles", command: "ls src", path: "src" },
      { type: "unknown", command: "git status" },
    ]);
  });

  it("gives a file change the files of its item", () => {
    const request = toApprovalRequest(
      "item/fileChange/requestApproval",
      1,
      { threadId: "t", turnId: "u", itemId: "fc" },
      (id) => (id === "fc" ? [{ path: "/w/a.txt", kind: "add" }] : []),
    );
    assert.ok(request?.kind === "fileChange");
    assert.deepEqual(request.changes, [{ path: "/w/a.txt", kind: "add" }]);
  });

  it("returns undefined for methods no handler answers", () => {
    assert.equal(toApprovalRequest("currentTime/read", 1, {}), undefined);
  });
});

/** A stand-in for the client: records handlers so the test can play codex. */
function fakeClient() {
  const handlers = new Map<
    string,
    (params: unknown, context: { id: number; method: string; signal: AbortSignal }) => unknown
  >();
  const listeners = new Map<string, (params: unknown) => void>();
  const client = {
    setRequestHandler: (method: string, handler: never) => {
      handlers.set(method, handler);
      return () => {};
    },
    onNotification: (method: string, listener: never) => {
      listeners.set(method, listener);
      return () => {};
    },
  } as unknown as Pick<AppServerClient, "setRequestHandler" | "onNotification">;
  const request = async (method: string, params: unknown, id = 1) =>
    handlers.get(method)?.(params, { id, method, signal: new AbortController().signal });
  return { client, handlers, listeners, request };
}

function target(approvals: Approvals | undefined, interactive = false) {
  const events: ExtendedThreadEvent[] = [];
  const end = new AbortController();
  const value: ApprovalTarget = {
    approvals,
    interactive,
    emit: (event) => events.push(event),
    answerable: end.signal,
    changesOf: () => [],
  };
  return { value, events, end };
}

describe("ApprovalBroker", () => {
  it("handles every server request method of the pinned protocol and currentTime/read of older ones", () => {
    const { client, handlers } = fakeClient();
    new ApprovalBroker(
      client,
      () => undefined,
      () => undefined,
    );
    assert.deepEqual([...handlers.keys()].sort(), [
      "account/chatgptAuthTokens/refresh",
      "applyPatchApproval",
      "attestation/generate",
      "currentTime/read",
      "execCommandApproval",
      "item/commandExecution/requestApproval",
      "item/fileChange/requestApproval",
      "item/permissions/requestApproval",
      "item/tool/call",
      "item/tool/requestUserInput",
      "mcpServer/elicitation/request",
    ]);
  });

  it("declines at once when nobody can answer (no handler, not interactive)", async () => {
    const { client, request } = fakeClient();
    const turn = target(undefined);
    new ApprovalBroker(
      client,
      () => turn.value,
      () => undefined,
    );
    assert.deepEqual(
      await request("item/permissions/requestApproval", {
        threadId: "t",
        permissions: { network: { enabled: true } },
      }),
      {
        permissions: {},
        scope: "turn",
      },
    );
    assert.deepEqual(
      await request("mcpServer/elicitation/request", {
        threadId: "t",
        serverName: "s",
        mode: "form",
        message: "?",
      }),
      {
        action: "decline",
        content: null,
        _meta: null,
      },
    );
    const resolved = turn.events.filter((e) => e.type === "approval.resolved");
    assert.deepEqual(
      resolved.map((e) => e.type === "approval.resolved" && [e.kind, e.decided_by]),
      [
        ["permissions", "default"],
        ["elicitation", "default"],
      ],
    );
  });

  it("treats a handler's invalid answer as a failure: declined, with an error event", async () => {
    const { client, request } = fakeClient();
    const turn = target({ fileChange: () => "sure" as never });
    new ApprovalBroker(
      client,
      () => turn.value,
      () => undefined,
    );
    assert.deepEqual(
      await request("item/fileChange/requestApproval", { threadId: "t", itemId: "i" }),
      { decision: "decline" },
    );
    assert.ok(
      turn.events.some((e) => e.type === "error" && /not a fileChange decision/.test(e.message)),
    );
  });

  it("clears a pending request when codex resolves it, and reports it once", async () => {
    const { client, request, listeners } = fakeClient();
    let handlerSignal: AbortSignal | undefined;
    const turn = target({
      commandExecution: (_request, { signal }) => {
        handlerSignal = signal;
        return new Promise(() => {});
      },
    });
    new ApprovalBroker(
      client,
      () => turn.value,
      () => undefined,
    );
    const answer = request(
      "item/commandExecution/requestApproval",
      { threadId: "t", command: "x" },
      42,
    );
    await new Promise((resolve) => setImmediate(resolve));
    listeners.get("serverRequest/resolved")?.({ threadId: "t", requestId: 42 });
    assert.deepEqual(await answer, { decision: "decline" });
    assert.equal(handlerSignal?.aborted, true);
    const resolved = turn.events.filter((e) => e.type === "approval.resolved");
    assert.equal(resolved.length, 1);
    assert.equal(resolved[0]?.type === "approval.resolved" && resolved[0].decided_by, "cleared");
  });

  it("answers currentTime/read in whole seconds and refuses attestation", async () => {
    const { client, request } = fakeClient();
    new ApprovalBroker(
      client,
      () => undefined,
      () => undefined,
    );
    const { currentTimeAt } = (await request("currentTime/read", { threadId: "t" })) as {
      currentTimeAt: number;
    };
    assert.ok(Math.abs(currentTimeAt - Date.now() / 1000) < 5 && Number.isInteger(currentTimeAt));
    await assert.rejects(request("attestation/generate", {}), /attestations/);
  });

  it("uses the Codex's handlers for a thread with no running turn", async () => {
    const { client, request } = fakeClient();
    new ApprovalBroker(
      client,
      () => undefined,
      () => ({ tokenRefresh: () => ({ accessToken: "a", chatgptAccountId: "b" }) }),
    );
    assert.deepEqual(
      await request("account/chatgptAuthTokens/refresh", { reason: "unauthorized" }),
      {
        accessToken: "a",
        chatgptAccountId: "b",
        chatgptPlanType: null,
      },
    );
  });
});

describe("approval settings", () => {
  it("a thread's handlers replace the Codex's per kind", () => {
    const base: Approvals = {
      commandExecution: () => "decline",
      fileChange: () => "decline",
      timeoutMs: { userInput: 5 },
    };
    const thread: Approvals = { commandExecution: () => "accept", timeoutMs: { fileChange: 7 } };
    const merged = mergeApprovals(base, thread);
    assert.equal(merged?.commandExecution, thread.commandExecution);
    assert.equal(merged?.fileChange, base.fileChange);
    assert.deepEqual(merged?.timeoutMs, { userInput: 5, fileChange: 7 });
  });

  it("never turns on YOLO by itself: no approval policy or sandbox unless asked", () => {
    const params = threadStartParams({});
    assert.equal(params.approvalPolicy, null);
    assert.equal(params.sandbox, null);
    const yolo = threadStartParams({ approvalPolicy: "never", sandboxMode: "danger-full-access" });
    assert.equal(yolo.approvalPolicy, "never");
    assert.equal(yolo.sandbox, "danger-full-access");
  });
});
