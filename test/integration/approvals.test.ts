import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { fromPermissions } from "../../src/approvals/policies.js";
import { CodexHarnessError } from "../../src/errors.js";
import type { CommandDecision } from "../../src/events/approval-types.js";
import type { ApprovalResolvedEvent, ExtendedThreadEvent } from "../../src/events/types.js";
import { toolOutputs } from "../../src/testing/recorded.js";
import {
  applyPatch,
  execCommand,
  functionCall,
  reply,
  requestUserInput,
} from "../../src/testing/script.js";
import { type CodexApiFixture, collect, startCodexApi } from "../support/codex-api-fixture.js";

let fixture: CodexApiFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** read-only + on-request (ScriptedModel's default config): escalated commands ask. */
const ASKING = {};

const resolvedOf = (events: ExtendedThreadEvent[]) =>
  events.filter((e): e is ApprovalResolvedEvent => e.type === "approval.resolved");
const commandItems = (events: ExtendedThreadEvent[]) =>
  events.flatMap((e) =>
    e.type === "item.completed" && e.item.type === "command_execution" ? [e.item] : [],
  );

describe("approvals (real codex, ScriptedModel)", () => {
  it("accept: the command runs, and approval.resolved says the handler decided", async () => {
    fixture = await startCodexApi(
      "app-server",
      [
        execCommand("echo yes > accepted.txt", { escalated: true, justification: "write it" }),
        reply("ok"),
      ],
      {
        config: ASKING,
        codex: {
          approvals: {
            commandExecution: (request) => {
              assert.equal(request.reason, "write it");
              assert.match(request.command, /echo yes > accepted\.txt/);
              assert.equal(request.cwd, fixture?.workdir);
              return "accept";
            },
          },
        },
      },
    );
    const { events } = await fixture.codex
      .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
      .runStreamed("go");
    const all = await collect(events);
    assert.equal(readFileSync(path.join(fixture.workdir, "accepted.txt"), "utf8"), "yes\n");
    const [resolved] = resolvedOf(all);
    assert.equal(resolved?.kind, "commandExecution");
    assert.equal(resolved?.decision, "accept");
    assert.equal(resolved?.decided_by, "handler");
    assert.equal(commandItems(all)[0]?.status, "completed");
  });

  it("decline: the command does not run and its item is declined", async () => {
    fixture = await startCodexApi(
      "app-server",
      [execCommand("echo no > declined.txt", { escalated: true }), reply("ok")],
      { config: ASKING, codex: { approvals: { commandExecution: () => "decline" } } },
    );
    const result = await fixture.codex
      .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
      .run("go");
    assert.equal(existsSync(path.join(fixture.workdir, "declined.txt")), false);
    const command = result.items.find((item) => item.type === "command_execution");
    assert.equal(command?.type === "command_execution" && command.status, "declined");
  });

  it("acceptForSession: the same command later in the session is not asked again", async () => {
    let asked = 0;
    fixture = await startCodexApi(
      "app-server",
      [
        execCommand("touch session.txt", { escalated: true }),
        reply("first"),
        execCommand("touch session.txt", { escalated: true }),
        reply("second"),
      ],
      {
        config: ASKING,
        codex: {
          approvals: {
            commandExecution: () => {
              asked++;
              return "acceptForSession";
            },
          },
        },
      },
    );
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    await thread.run("first");
    const second = await thread.run("again");
    assert.equal(asked, 1);
    const command = second.items.find((item) => item.type === "command_execution");
    assert.equal(command?.type === "command_execution" && command.status, "completed");
  });

  it("accepts with an execpolicy amendment: later commands with that prefix are not asked", async () => {
    const asked: string[] = [];
    fixture = await startCodexApi(
      "app-server",
      [
        execCommand("touch first.txt", { escalated: true, prefixRule: ["touch"] }),
        execCommand("touch second.txt", { escalated: true }),
        reply("done"),
      ],
      {
        config: ASKING,
        codex: {
          approvals: {
            commandExecution: (request) => {
              asked.push(request.command);
              return {
                acceptWithExecpolicyAmendment: request.proposed_execpolicy_amendment ?? ["touch"],
              };
            },
          },
        },
      },
    );
    await fixture.codex
      .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
      .run("go");
    assert.ok(existsSync(path.join(fixture.workdir, "first.txt")));
    assert.ok(existsSync(path.join(fixture.workdir, "second.txt")));
    assert.equal(asked.length, 1, `asked for ${asked.join(", ")}`);
  });

  for (const decision of ["accept", "decline"] as const) {
    it(`file change ${decision}: the file is ${decision === "accept" ? "present" : "absent"}`, async () => {
      fixture = await startCodexApi(
        "app-server",
        [applyPatch("*** Add File: patched.md\n+hello"), reply("ok")],
        {
          config: ASKING,
          codex: {
            approvals: {
              fileChange: (request) => {
                assert.deepEqual(
                  request.changes.map((change) => [path.basename(change.path), change.kind]),
                  [["patched.md", "add"]],
                );
                return decision;
              },
            },
          },
        },
      );
      await fixture.codex
        .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
        .run("patch");
      assert.equal(existsSync(path.join(fixture.workdir, "patched.md")), decision === "accept");
    });
  }

  it("answers a question; the answer is in the model's next request", async () => {
    fixture = await startCodexApi(
      "app-server",
      [
        requestUserInput(
          [
            {
              id: "db",
              header: "Database",
              question: "Which one?",
              options: [
                { label: "Postgres", description: "" },
                { label: "SQLite", description: "" },
              ],
            },
          ],
          { callId: "q1" },
        ),
        reply("Using SQLite."),
      ],
      {
        config: ASKING,
        codex: {
          approvals: {
            userInput: (request) => {
              assert.equal(request.questions[0]?.question, "Which one?");
              return { answers: { db: ["SQLite"] } };
            },
          },
        },
      },
    );
    const result = await fixture.codex
      .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
      .run("pick");
    assert.equal(result.finalResponse, "Using SQLite.");
    assert.match(fixture.model.toolOutput("q1")?.output ?? "", /SQLite/);
  });

  it("calls a dynamic tool declared at thread start and gives the model its output", async () => {
    fixture = await startCodexApi(
      "app-server",
      [functionCall("lookup_price", { sku: "A-1" }, { callId: "t1" }), reply("It costs 42.")],
      {
        config: ASKING,
        codex: {
          approvals: {
            dynamicTool: (request) => {
              assert.equal(request.tool, "lookup_price");
              assert.deepEqual(request.arguments, { sku: "A-1" });
              return { output: "price: 42 EUR" };
            },
          },
        },
      },
    );
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
      dynamicTools: [
        {
          type: "function",
          name: "lookup_price",
          description: "Price of a product",
          inputSchema: {
            type: "object",
            properties: { sku: { type: "string" } },
            required: ["sku"],
          },
        },
      ],
    });
    const result = await thread.run("how much is A-1?");
    assert.equal(result.finalResponse, "It costs 42.");
    const body = fixture.model.modelRequests[0]?.body as
      | { tools?: { name?: string }[] }
      | undefined;
    const tools = body?.tools ?? [];
    assert.ok(
      tools.some((tool) => tool.name === "lookup_price"),
      "the tool was offered to the model",
    );
    assert.match(fixture.model.toolOutput("t1")?.output ?? "", /price: 42 EUR/);
  });

  it("declines at the timeout when nobody answers", async () => {
    fixture = await startCodexApi(
      "app-server",
      [execCommand("touch late.txt", { escalated: true }), reply("ok")],
      {
        config: ASKING,
        codex: { approvals: { commandExecution: () => new Promise(() => {}), timeoutMs: 300 } },
      },
    );
    const { events } = await fixture.codex
      .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
      .runStreamed("go");
    const all = await collect(events);
    assert.equal(resolvedOf(all)[0]?.decided_by, "timeout");
    assert.equal(resolvedOf(all)[0]?.decision, "decline");
    assert.equal(resolvedOf(all)[0]?.reason, "nobody answered within 300 ms");
    assert.equal(existsSync(path.join(fixture.workdir, "late.txt")), false);
  });

  it("declines when the handler throws, and says so with an error event", async () => {
    fixture = await startCodexApi(
      "app-server",
      [execCommand("touch thrown.txt", { escalated: true }), reply("ok")],
      {
        config: ASKING,
        codex: {
          approvals: {
            commandExecution: () => {
              throw new Error("policy service down");
            },
          },
        },
      },
    );
    const { events } = await fixture.codex
      .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
      .runStreamed("go");
    const all = await collect(events);
    assert.equal(resolvedOf(all)[0]?.decided_by, "error");
    assert.ok(all.some((e) => e.type === "error" && /policy service down/.test(e.message)));
    assert.equal(existsSync(path.join(fixture.workdir, "thrown.txt")), false);
  });

  it("with no handler, run() declines at once; runStreamed() asks through approval.requested", async () => {
    fixture = await startCodexApi(
      "app-server",
      [
        execCommand("touch unasked.txt", { escalated: true }),
        reply("first"),
        execCommand("touch asked.txt", { escalated: true }),
        reply("second"),
      ],
      { config: ASKING },
    );
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    await thread.run("nobody can answer");
    assert.equal(existsSync(path.join(fixture.workdir, "unasked.txt")), false);
    const { events } = await thread.runStreamed("someone answers");
    const all: ExtendedThreadEvent[] = [];
    for await (const event of events) {
      all.push(event);
      if (event.type === "approval.requested") {
        assert.equal(event.kind, "commandExecution");
        assert.equal(event.request.kind, event.kind);
        // The handler docs/approvals.md shows: it matches the command as the model wrote it.
        if (event.kind === "commandExecution") {
          assert.match(event.request.command, /^\S*bash -lc /);
          event.respond(event.request.script.startsWith("touch asked") ? "accept" : "decline");
        }
      }
    }
    assert.ok(existsSync(path.join(fixture.workdir, "asked.txt")));
    assert.equal(resolvedOf(all)[0]?.decided_by, "stream");
  });

  // Without the fail-closed decline the request would wait the default 10 minutes: fail fast instead.
  it("a decision of another kind through respond() throws invalid_decision and declines at once", {
    timeout: 60_000,
  }, async () => {
    fixture = await startCodexApi(
      "app-server",
      [execCommand("touch wrong.txt", { escalated: true, callId: "c1" }), reply("declined")],
      { config: ASKING }, // no handler, default timeout (10 minutes): only the stream can answer
    );
    const { events } = await fixture.codex
      .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
      .runStreamed("go");
    const all: ExtendedThreadEvent[] = [];
    let thrown: unknown;
    let respondedAt = 0;
    let resolvedAt = 0;
    for await (const event of events) {
      all.push(event);
      if (event.type === "approval.resolved") resolvedAt = Date.now();
      if (event.type === "approval.requested" && event.kind === "commandExecution") {
        respondedAt = Date.now();
        // A JavaScript caller (or a cast) answering a command with a question's answers.
        const wrong = { answers: { q: ["yes"] } } as unknown as CommandDecision;
        try {
          event.respond(wrong);
        } catch (error) {
          thrown = error;
        }
        event.respond("accept"); // too late: the first answer declined the request
      }
    }
    assert.ok(thrown instanceof CodexHarnessError, `threw ${String(thrown)}`);
    assert.equal(thrown.code, "invalid_decision");
    assert.match(
      thrown.message,
      /\{"answers":\{"q":\["yes"\]\}\} is not a commandExecution decision/,
    );
    assert.match(
      thrown.message,
      /commandExecution accepts "accept", "acceptForSession", "decline"/,
    );
    assert.match(thrown.message, /the request was declined/);
    const [resolved] = resolvedOf(all);
    assert.deepEqual(
      [resolved?.kind, resolved?.decision, resolved?.decided_by],
      ["commandExecution", "decline", "error"],
    );
    assert.ok(resolvedAt - respondedAt < 5_000, `resolved ${resolvedAt - respondedAt} ms later`);
    // codex saw the decline: the command did not run, its item is declined, the turn went on.
    assert.equal(existsSync(path.join(fixture.workdir, "wrong.txt")), false);
    assert.deepEqual(
      commandItems(all).map((item) => item.status),
      ["declined"],
    );
    assert.ok(fixture.model.toolOutput("c1"), "the model got the command's (declined) result");
    const last = all.at(-1);
    assert.equal(last?.type === "turn.completed" && last.status, "completed");
  });

  it("interrupting while an approval is pending aborts the handler's signal; resolved says cleared", async () => {
    let signalAborted: Promise<void> | undefined;
    fixture = await startCodexApi(
      "app-server",
      [execCommand("touch pending.txt", { escalated: true }), reply("never")],
      {
        config: ASKING,
        codex: {
          approvals: {
            commandExecution: (_request, { signal }) => {
              signalAborted = new Promise((resolve) =>
                signal.addEventListener("abort", () => resolve()),
              );
              return new Promise(() => {});
            },
          },
        },
      },
    );
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    const { events } = await thread.runStreamed("go");
    const all: ExtendedThreadEvent[] = [];
    for await (const event of events) {
      all.push(event);
      if (event.type === "item.started" && event.item.type === "command_execution") {
        await new Promise((resolve) => setTimeout(resolve, 200));
        await thread.interrupt();
      }
    }
    await signalAborted;
    assert.equal(all.at(-1)?.type, "turn.completed");
    assert.equal((all.at(-1) as { status?: string }).status, "interrupted");
    assert.equal(resolvedOf(all)[0]?.decided_by, "cleared");
    assert.equal(existsSync(path.join(fixture.workdir, "pending.txt")), false);
  });

  it("two threads waiting at once, answered in reverse order, each get their own answer", async () => {
    fixture = await startCodexApi(
      "app-server",
      [
        (request) =>
          execCommand(
            `touch ${JSON.stringify(request.body).includes("thread A") ? "a" : "b"}.txt`,
            { escalated: true },
          ),
        (request) =>
          execCommand(
            `touch ${JSON.stringify(request.body).includes("thread A") ? "a" : "b"}.txt`,
            { escalated: true },
          ),
        reply("done"),
        reply("done"),
      ],
      { config: ASKING },
    );
    const f = fixture;
    const requests = new Map<string, (decision: "accept" | "decline") => void>();
    let bothAsked!: () => void;
    const asked = new Promise<void>((resolve) => {
      bothAsked = resolve;
    });
    const drive = async (name: string) => {
      const { events } = await f.codex
        .startThread({ workingDirectory: f.workdir, skipGitRepoCheck: true })
        .runStreamed(`thread ${name}`);
      for await (const event of events) {
        if (event.type === "approval.requested" && event.kind === "commandExecution") {
          requests.set(name, event.respond);
          if (requests.size === 2) bothAsked();
        }
      }
    };
    const runs = [drive("A"), drive("B")];
    await asked;
    requests.get("B")?.("accept");
    await new Promise((resolve) => setTimeout(resolve, 100));
    requests.get("A")?.("decline");
    await Promise.all(runs);
    assert.equal(existsSync(path.join(f.workdir, "a.txt")), false, "A was declined");
    assert.equal(existsSync(path.join(f.workdir, "b.txt")), true, "B was accepted");
    const outputs = f.model.modelRequests.flatMap((request) => toolOutputs(request));
    assert.ok(outputs.length >= 2);
  });
});

describe("policies on the real codex", () => {
  it("fromPermissions allows `ls` and declines `rm -rf`", async () => {
    fixture = await startCodexApi(
      "app-server",
      [
        execCommand("ls", { escalated: true, callId: "ls" }),
        execCommand("rm -rf ./keep", { escalated: true, callId: "rm" }),
        reply("done"),
      ],
      {
        config: ASKING,
        codex: {
          approvals: fromPermissions({
            exec: { commands: ["ls"] },
            deny: { exec: ["rm -rf *"] },
          }),
        },
      },
    );
    mkdirSync(path.join(fixture.workdir, "keep"));
    const { events } = await fixture.codex
      .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
      .runStreamed("go");
    const all = await collect(events);
    assert.deepEqual(
      resolvedOf(all).map((e) => [e.decision, e.decided_by, e.reason]),
      [
        ["accept", "handler", 'allowed by [exec] commands "ls" in the permissions object'],
        ["decline", "handler", 'denied by [deny] exec "rm -rf *" in the permissions object'],
      ],
    );
    assert.ok(existsSync(path.join(fixture.workdir, "keep")), "rm -rf was declined");
    assert.deepEqual(
      commandItems(all).map((item) => item.status),
      ["completed", "declined"],
    );
  });
});
