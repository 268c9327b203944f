import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { AppServerClient } from "../../src/app-server/client.js";
import { NUMBER_FORMATS } from "../../src/app-server/message-validator.js";
import {
  InvalidMessageError,
  startValidation,
  type ValidateMode,
  type ValidationIssue,
  validateModeOf,
} from "../../src/app-server/validation.js";
import type { ExtendedThreadEvent } from "../../src/events/types.js";
import type { RpcMessage } from "../../src/protocol/messages.js";
import { RpcErrorCodes } from "../../src/rpc/errors.js";
import { InMemoryTransport } from "../../src/rpc/transport.js";
import { ActiveTurn, ActiveTurns } from "../../src/turns/active-turn.js";
import { applyValidationIssue } from "../../src/turns/validation-notices.js";
import { repoRoot } from "../support/paths.js";

const INITIALIZED = {
  userAgent: "codex_harness/0.169.0 (test)",
  codexHome: "/tmp/codex-home",
  platformFamily: "unix",
  platformOs: "linux",
};
const DELTA = { threadId: "t1", turnId: "u1", itemId: "i1", delta: "hi" };
const APPROVAL = { threadId: "t1", turnId: "u1", itemId: "i1", startedAtMs: 1, command: "ls" };
const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A client over an in-memory transport whose server side answers `initialize` and records the
 * rest; `send` plays codex.
 */
async function connect(validate: ValidateMode | undefined, withOption = true) {
  const [clientSide, serverSide] = InMemoryTransport.createPair();
  const received: Record<string, unknown>[] = [];
  serverSide.onmessage = (message) => {
    const record = message as Record<string, unknown>;
    if (record.method === "initialize") {
      void serverSide.send({ id: record.id as number, result: INITIALIZED });
    } else received.push(record);
  };
  await serverSide.start();
  const issues: ValidationIssue[] = [];
  const client = await AppServerClient.connect(clientSide, {
    ...(validate === undefined ? {} : { validate }),
    ...(withOption ? { onValidationIssue: (issue: ValidationIssue) => issues.push(issue) } : {}),
  });
  const errors: Error[] = [];
  client.onError((error) => errors.push(error));
  const send = async (message: RpcMessage) => {
    await serverSide.send(message);
    await tick();
  };
  return { client, issues, errors, received, send };
}

describe("validateModeOf", () => {
  it("takes the option, else $CODEX_HARNESS_VALIDATE, else off", () => {
    assert.equal(validateModeOf(undefined, {}), "off");
    assert.equal(validateModeOf(undefined, { CODEX_HARNESS_VALIDATE: "" }), "off");
    assert.equal(validateModeOf(undefined, { CODEX_HARNESS_VALIDATE: "strict" }), "strict");
    assert.equal(validateModeOf("warn", { CODEX_HARNESS_VALIDATE: "strict" }), "warn");
    assert.equal(validateModeOf("off", { CODEX_HARNESS_VALIDATE: "strict" }), "off");
  });

  it("refuses a value that is not a mode, naming where it came from", () => {
    assert.throws(
      () => validateModeOf(undefined, { CODEX_HARNESS_VALIDATE: "yes" }),
      (error: Error & { code?: string }) =>
        error.code === "invalid_option" &&
        /CODEX_HARNESS_VALIDATE must be "off", "warn" or "strict", got "yes"/.test(error.message),
    );
    assert.throws(
      () => validateModeOf("loud" as ValidateMode, {}),
      (error: Error & { code?: string }) =>
        error.code === "invalid_option" && /^validate must be/.test(error.message),
    );
  });

  it('"off" loads no validator', async () => {
    assert.equal(await startValidation("off", () => {}), undefined);
  });
});

describe('validate: "off"', () => {
  it("delivers whatever codex sends, unchecked", async () => {
    const { client, issues, errors, send, received } = await connect("off");
    assert.equal(client.validate, "off");
    const seen: unknown[] = [];
    client.onNotification("item/agentMessage/delta", (params) => seen.push(params));
    await send({ method: "item/agentMessage/delta", params: { ...DELTA, delta: 5 } });
    assert.deepEqual(seen, [{ ...DELTA, delta: 5 }]);
    assert.deepEqual(await answer(client, received, send), { data: 3 });
    assert.deepEqual([issues, errors], [[], []]);
    await client.close();
  });
});

describe('validate: "warn"', () => {
  it("delivers a notification that does not fit and reports its method and field", async () => {
    const { client, issues, errors, send } = await connect("warn");
    assert.equal(client.validate, "warn");
    const seen: unknown[] = [];
    client.onNotification("item/agentMessage/delta", (params) => seen.push(params));
    await send({ method: "item/agentMessage/delta", params: DELTA });
    assert.equal(issues.length, 0, "a message that fits is no finding");
    await send({ method: "item/agentMessage/delta", params: { ...DELTA, delta: 5 } });
    assert.equal(seen.length, 2);
    assert.equal(issues.length, 1);
    const issue = issues[0] as ValidationIssue;
    assert.equal(issue.mode, "warn");
    assert.equal(issue.kind, "notification");
    assert.equal(issue.method, "item/agentMessage/delta");
    assert.equal(issue.path, "params.delta");
    assert.equal(issue.threadId, "t1");
    assert.equal(issue.message, "item/agentMessage/delta: params.delta must be string (got 5)");
    assert.deepEqual(errors, []);
    await client.close();
  });

  it("names the field of a tagged union's variant and the values it allows", async () => {
    const { client, issues, send } = await connect("warn");
    const item = {
      type: "commandExecution",
      id: "c1",
      command: "ls",
      cwd: "/tmp",
      processId: null,
      source: "agent",
      status: "done",
      commandActions: [],
      aggregatedOutput: null,
      exitCode: 0,
      durationMs: 1,
    };
    await send({
      method: "item/completed",
      params: { threadId: "t1", turnId: "u1", completedAtMs: 1, item },
    });
    assert.equal(
      issues[0]?.message,
      'item/completed: params.item.status must be one of "inProgress", "completed", "failed", "declined" (got "done")',
    );
    await client.close();
  });

  it("resolves a result that does not fit, and hands a server request to its handler", async () => {
    const { client, issues, send, received } = await connect("warn");
    assert.deepEqual(await answer(client, received, send), { data: 3 });
    assert.equal(issues[0]?.kind, "result");
    assert.equal(issues[0]?.message, "thread/loaded/list: result.data must be array (got 3)");
    let handled = 0;
    client.setRequestHandler("item/commandExecution/requestApproval", () => {
      handled++;
      return { decision: "decline" };
    });
    await send({
      id: 7,
      method: "item/commandExecution/requestApproval",
      params: { ...APPROVAL, startedAtMs: undefined },
    });
    await tick();
    assert.equal(handled, 1);
    assert.equal(
      issues[1]?.message,
      "item/commandExecution/requestApproval: params.startedAtMs is missing",
    );
    await client.close();
  });

  it("without onValidationIssue, warns the process once per method and field", async () => {
    const { client, send } = await connect("warn", false);
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const bad = { method: "item/agentMessage/delta", params: { ...DELTA, delta: 5 } } as const;
      await send(bad);
      await send(bad);
      await tick();
      const ours = warnings.filter(
        (warning) => (warning as { code?: string }).code === "CODEX_HARNESS_INVALID_MESSAGE",
      );
      assert.equal(ours.length, 1);
      assert.match(ours[0]?.message ?? "", /item\/agentMessage\/delta: params\.delta/);
    } finally {
      process.off("warning", onWarning);
      await client.close();
    }
  });
});

describe('validate: "strict"', () => {
  it("rejects a request whose result does not fit with invalid_message", async () => {
    const { client, received, send } = await connect("strict");
    assert.equal(client.validate, "strict");
    await assert.rejects(answer(client, received, send), (error: unknown) => {
      assert.ok(error instanceof InvalidMessageError);
      assert.equal(error.code, "invalid_message");
      assert.equal(error.kind, "result");
      assert.equal(error.method, "thread/loaded/list");
      assert.equal(error.path, "result.data");
      assert.match(error.message, /^thread\/loaded\/list: result\.data must be array/);
      return true;
    });
    await client.close();
  });

  it("drops a notification that does not fit and reports it as an error", async () => {
    const { client, issues, errors, send } = await connect("strict");
    const seen: unknown[] = [];
    client.onNotification("item/agentMessage/delta", (params) => seen.push(params));
    await send({ method: "item/agentMessage/delta", params: { ...DELTA, delta: 5 } });
    await send({ method: "item/agentMessage/delta", params: DELTA });
    assert.deepEqual(seen, [DELTA]);
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof InvalidMessageError);
    assert.equal(errors[0].kind, "notification");
    assert.equal(issues[0]?.mode, "strict");
    assert.equal(issues[0]?.error, errors[0]);
    await client.close();
  });

  it("answers a server request that does not fit with an error, never its handler", async () => {
    const { client, errors, send, received } = await connect("strict");
    let handled = 0;
    client.setRequestHandler("item/commandExecution/requestApproval", () => {
      handled++;
      return { decision: "accept" };
    });
    await send({
      id: 7,
      method: "item/commandExecution/requestApproval",
      params: { ...APPROVAL, itemId: 3 },
    });
    await tick();
    assert.equal(handled, 0, "an approval that does not fit is never approved");
    const reply = received.find((message) => message.id === 7) as {
      error?: { code: number; message: string };
    };
    assert.equal(reply?.error?.code, RpcErrorCodes.InvalidParams);
    assert.equal(
      reply?.error?.message,
      "item/commandExecution/requestApproval: params.itemId must be string (got 3)",
    );
    assert.ok(errors[0] instanceof InvalidMessageError);
    // One that fits is handled as usual.
    await send({ id: 8, method: "item/commandExecution/requestApproval", params: APPROVAL });
    await tick();
    assert.equal(handled, 1);
    await client.close();
  });

  it("lets through methods the pinned schema does not know", async () => {
    const { client, issues, send } = await connect("strict");
    const seen: unknown[] = [];
    client.onAnyNotification((notification) => seen.push(notification.method));
    await send({ method: "some/futureNotification", params: { anything: 1 } });
    assert.deepEqual(seen, ["some/futureNotification"]);
    assert.deepEqual(issues, []);
    await client.close();
  });
});

describe("a finding during a turn", () => {
  const issueOf = (mode: "warn" | "strict"): ValidationIssue => {
    const message = "item/agentMessage/delta: params.delta must be string (got 5)";
    return {
      mode,
      kind: "notification",
      method: "item/agentMessage/delta",
      path: "params.delta",
      message,
      threadId: "t1",
      error: new InvalidMessageError(
        "notification",
        "item/agentMessage/delta",
        "params.delta",
        message,
      ),
    };
  };

  it('"warn": the turn\'s stream gets a notice naming the method and the field', async () => {
    const router = new ActiveTurns();
    const turn = new ActiveTurn("t1");
    router.add(turn);
    turn.start("u1");
    applyValidationIssue(router, issueOf("warn"));
    turn.events.end();
    const events: ExtendedThreadEvent[] = [];
    for await (const event of turn.events) events.push(event);
    assert.deepEqual(events, [
      {
        type: "notice",
        thread_id: "t1",
        turn_id: "u1",
        code: "invalid_message",
        message: "item/agentMessage/delta: params.delta must be string (got 5)",
      },
    ]);
  });

  it('"strict": the turn\'s stream fails with the error', async () => {
    const router = new ActiveTurns();
    const turn = new ActiveTurn("t1");
    router.add(turn);
    turn.start("u1");
    let givenUp = 0;
    turn.onGiveUp = () => givenUp++;
    const issue = issueOf("strict");
    applyValidationIssue(router, issue);
    await assert.rejects(async () => {
      for await (const _ of turn.events) {
        // Nothing comes before the failure.
      }
    }, issue.error);
    // The transport is told to stop the turn at codex.
    assert.equal(givenUp, 1);
  });
});

/** Sends thread/loaded/list and answers it with `{ data: 3 }` (not a list). */
async function answer(
  client: AppServerClient,
  received: Record<string, unknown>[],
  send: (message: RpcMessage) => Promise<void>,
): Promise<unknown> {
  const pending = client.request("thread/loaded/list", {});
  // Handled here too: it may reject while the answer is still being sent.
  pending.catch(() => {});
  await tick();
  const request = received.find((message) => message.method === "thread/loaded/list");
  await send({ id: request?.id as number, result: { data: 3 } });
  return pending;
}

describe("the pinned schema's formats", () => {
  it("are all known to the validator (Ajv refuses to compile a check with an unknown one)", () => {
    const bundle = readFileSync(
      path.join(repoRoot, "src/protocol/generated/schema/codex_app_server_protocol.schemas.json"),
      "utf8",
    );
    const formats = new Set([...bundle.matchAll(/"format": "([^"]+)"/g)].map((m) => m[1]));
    assert.deepEqual(
      [...formats].filter((format) => !((format as string) in NUMBER_FORMATS)),
      [],
    );
  });
});
