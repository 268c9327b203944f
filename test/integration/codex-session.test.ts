import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { CodexHarnessError } from "../../src/errors.js";
import { CodexSession, type CodexSessionOptions } from "../../src/session/codex-session.js";
import type { PermissionRequest, UnifiedSessionEvent } from "../../src/session/unified-types.js";
import type { ScriptStep } from "../../src/testing/script.js";
import { applyPatch, execCommand, reply, response } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";

interface Fixture {
  model: ScriptedModel;
  root: string;
  workdir: string;
  codexHome: string;
  sessions: CodexSession[];
  session(options?: Partial<CodexSessionOptions>): {
    session: CodexSession;
    events: UnifiedSessionEvent[];
  };
}

let fixture: Fixture | undefined;

afterEach(async () => {
  if (!fixture) return;
  await Promise.all(fixture.sessions.map((session) => session.stop()));
  await fixture.model.close();
  rmSync(fixture.root, { recursive: true, force: true });
  fixture = undefined;
});

/** A ScriptedModel and a codex home for it (read-only sandbox, on-request approvals). */
async function start(responses: ScriptStep[]): Promise<Fixture> {
  const root = mkdtempSync(path.join(os.tmpdir(), "codex-harness-session-"));
  const workdir = path.join(root, "work");
  const codexHome = path.join(root, "home");
  mkdirSync(workdir);
  const model = await ScriptedModel.start({ responses });
  await model.writeCodexHome(codexHome);
  const sessions: CodexSession[] = [];
  return {
    model,
    root,
    workdir,
    codexHome,
    sessions,
    session(options = {}) {
      const session = new CodexSession({ cwd: workdir, codexHome, ...options });
      sessions.push(session);
      const events: UnifiedSessionEvent[] = [];
      session.onEvent((event) => events.push(event));
      return { session, events };
    },
  };
}

const allow = {
  isAutoAllowed: () => false,
  requestPermission: async () => ({ allowed: true }),
};

/** The events without codex's warnings (it warns that the scripted model has no metadata). */
const withoutNotices = (events: UnifiedSessionEvent[]) =>
  events.filter((event) => event.type !== "notice");

describe("CodexSession (real codex, ScriptedModel)", () => {
  it("emits the full unified sequence of a turn: command, file change, streamed message", async () => {
    fixture = await start([
      // codex streams a command's output once it runs past its first yield: hence the sleep.
      execCommand("echo start; sleep 0.5; echo later"),
      applyPatch("*** Add File: made.txt\n+made"),
      reply("Done.", { deltas: ["Do", "ne."] }),
    ]);
    const asked: PermissionRequest[] = [];
    const { session, events } = fixture.session({
      permissionHandler: {
        isAutoAllowed: () => false,
        requestPermission: async (request) => {
          asked.push(request);
          return { allowed: true };
        },
      },
    });
    await session.start();
    await session.sendPrompt("make a file");
    await session.stop("done");

    assert.equal(readFileSync(path.join(fixture.workdir, "made.txt"), "utf8"), "made\n");
    assert.deepEqual(
      asked.map((request) => request.toolName),
      ["file_change"],
    );
    const sequence = withoutNotices(events).map((event) =>
      "toolName" in event ? `${event.type}:${event.toolName}` : event.type,
    );
    const collapsed = sequence.filter((type, index) => type !== sequence[index - 1]);
    assert.deepEqual(collapsed, [
      "agent_start",
      "turn_start",
      "tool_execution_start:command_execution",
      "tool_execution_update",
      "tool_execution_end:command_execution",
      "tool_execution_start:file_change",
      "tool_execution_end:file_change",
      "message_start",
      "message_update",
      "message_end",
      "turn_end",
      "agent_end",
    ]);
    const agentStart = events.find((event) => event.type === "agent_start");
    assert.equal(agentStart?.type === "agent_start" && agentStart.sdkSessionId, session.threadId);
    const output = events.flatMap((event) =>
      event.type === "tool_execution_update" && event.partialOutput ? [event.partialOutput] : [],
    );
    assert.match(output.join(""), /later\n$/);
    const commandEnd = events.find(
      (event) => event.type === "tool_execution_end" && event.toolName === "command_execution",
    );
    const text =
      commandEnd?.type === "tool_execution_end" ? commandEnd.result.content[0] : undefined;
    assert.ok(text?.type === "text" && text.text.endsWith(output.join("")), JSON.stringify(text));
    const deltas = events.flatMap((event) =>
      event.type === "message_update" ? [event.textDelta] : [],
    );
    assert.deepEqual(deltas, ["Do", "ne."]);
    const end = events.find((event) => event.type === "message_end");
    assert.deepEqual(end?.type === "message_end" && end.message, {
      role: "assistant",
      content: "Done.",
    });
    const turnEnd = events.find((event) => event.type === "turn_end");
    assert.equal(turnEnd?.type, "turn_end");
    if (turnEnd?.type === "turn_end") {
      assert.equal(turnEnd.payload.status, "completed");
      assert.match(turnEnd.payload.diff ?? "", /\+\+\+ .*made\.txt/);
    }
    const agentEnd = events.at(-1);
    assert.equal(agentEnd?.type === "agent_end" && agentEnd.reason, "done");
    for (const event of events) assert.ok(event.payload !== undefined, event.type);
    assert.equal(session.lastResult?.finalResponse, "Done.");
  });

  it("a permission handler that declines: the command never runs and its end isError", async () => {
    fixture = await start([
      execCommand("echo no > declined.txt", { escalated: true, justification: "write it" }),
      reply("ok"),
    ]);
    const asked: PermissionRequest[] = [];
    const { session, events } = fixture.session();
    session.setPermissionHandler({
      isAutoAllowed: () => false,
      requestPermission: async (request) => {
        asked.push(request);
        return { allowed: false, reason: "no" };
      },
    });
    await session.start();
    await session.sendPrompt("go");
    assert.equal(existsSync(path.join(fixture.workdir, "declined.txt")), false);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]?.toolName, "command_execution");
    assert.equal(asked[0]?.summary, "write it");
    assert.match(JSON.stringify(asked[0]?.input), /declined\.txt/);
    const end = events.find((event) => event.type === "tool_execution_end");
    assert.equal(end?.type === "tool_execution_end" && end.isError, true);
  });

  it("a codex config that turns on auto review does not bypass the session's person", async () => {
    fixture = await start([
      execCommand("echo no > declined.txt", { escalated: true, justification: "write it" }),
      reply("ok"),
    ]);
    // codex's own reviewer would decide (and allow) without asking anyone here.
    await fixture.model.writeCodexHome(fixture.codexHome, { approvals_reviewer: "auto_review" });
    const asked: string[] = [];
    const { session } = fixture.session({
      permissionHandler: {
        isAutoAllowed: () => false,
        requestPermission: async (request) => {
          asked.push(request.summary ?? "");
          return { allowed: false, reason: "no" };
        },
      },
    });
    await session.start();
    await session.sendPrompt("go");
    assert.deepEqual(asked, ["write it"], "the person was asked");
    assert.equal(existsSync(path.join(fixture.workdir, "declined.txt")), false);
    fixture.model.assertAllConsumed();
  });

  it("fails closed: without a permission handler a command asking approval is declined", async () => {
    fixture = await start([execCommand("echo no > nobody.txt", { escalated: true }), reply("ok")]);
    const { session } = fixture.session();
    await session.start();
    await session.sendPrompt("go");
    assert.equal(existsSync(path.join(fixture.workdir, "nobody.txt")), false);
    const command = session.lastResult?.items.find((item) => item.type === "command_execution");
    assert.equal(command?.type === "command_execution" && command.status, "declined");
  });

  it("keeps its states: idle -> running -> streaming -> running -> stopped, nothing else", async () => {
    fixture = await start([reply("one"), reply("two")]);
    const { session } = fixture.session({ permissionHandler: allow });
    assert.equal(session.getState(), "idle");
    assert.equal(session.isHealthy(), false);
    await assert.rejects(session.sendPrompt("early"), invalidState(/call start\(\) first/));
    await session.start();
    assert.equal(session.getState(), "running");
    assert.equal(session.isHealthy(), true);
    await assert.rejects(session.start(), invalidState(/Cannot start/));
    const seen: string[] = [];
    session.onEvent(() => seen.push(session.getState()));
    const turn = session.sendPrompt("first");
    assert.equal(session.getState(), "streaming");
    await assert.rejects(session.sendPrompt("overlap"), invalidState(/a turn is running/));
    await turn;
    assert.ok(seen.includes("streaming"));
    assert.equal(session.getState(), "running");
    await session.stop();
    assert.equal(session.getState(), "stopped");
    assert.equal(session.isHealthy(), false);
    await session.stop();
    await assert.rejects(session.sendPrompt("late"), invalidState(/the session is stopped/));
    assert.equal(fixture.model.requests.length, 1);
  });

  it("interrupt() ends the running turn as interrupted and the session goes on", async () => {
    fixture = await start([response(reply("too late"), { delayMs: 5_000 }), reply("second")]);
    const { session, events } = fixture.session();
    await session.start();
    const turn = session.sendPrompt("slow");
    await fixture.model.waitForRequest(1, { timeoutMs: 20_000 });
    await session.interrupt();
    await turn;
    const end = events.find((event) => event.type === "turn_end");
    assert.equal(end?.type === "turn_end" && end.payload.status, "interrupted");
    assert.equal(session.getState(), "running");
  });

  it("resumes a thread in a new session (resumeThreadId): the model sees the history", async () => {
    fixture = await start([reply("Noted: KIWI."), reply("It was KIWI.")]);
    const first = fixture.session();
    await first.session.start();
    await first.session.sendPrompt("remember KIWI");
    const threadId = first.session.threadId as string;
    await first.session.stop();
    const second = fixture.session({ resumeThreadId: threadId });
    await second.session.start();
    assert.equal(second.session.threadId, threadId);
    const agentStart = second.events.find((event) => event.type === "agent_start");
    assert.equal(agentStart?.type === "agent_start" && agentStart.sdkSessionId, threadId);
    await second.session.sendPrompt("which word?");
    const body = JSON.stringify(fixture.model.requests[1]?.body);
    assert.ok(body.includes("remember KIWI") && body.includes("Noted: KIWI."));
  });

  it("start() of a thread codex does not have fails with thread_not_found and state error", async () => {
    fixture = await start([]);
    const { session } = fixture.session({ resumeThreadId: "019a0000-0000-7000-8000-000000000000" });
    await assert.rejects(
      session.start(),
      (error) => error instanceof CodexHarnessError && error.code === "thread_not_found",
    );
    assert.equal(session.getState(), "error");
    await session.stop();
    assert.equal(session.getState(), "stopped");
  });
});

function invalidState(message: RegExp) {
  return (error: unknown) =>
    error instanceof CodexHarnessError &&
    error.code === "invalid_state" &&
    message.test(error.message);
}
