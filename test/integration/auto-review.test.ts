// codex's auto review (`approvalsReviewer: "auto_review"`): its reviewer judges what codex would ask
// about, each verdict is an `approval.resolved` event, and handlers it would bypass refuse the turn.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { fromPermissions } from "../../src/approvals/policies.js";
import { CodexHarnessError } from "../../src/errors.js";
import type { ApprovalResolvedEvent, ExtendedThreadEvent } from "../../src/events/types.js";
import type { RecordedRequest } from "../../src/testing/recorded.js";
import { execCommand, httpError, reply, type ScriptStep } from "../../src/testing/script.js";
import { type CodexApiFixture, collect, startCodexApi } from "../support/codex-api-fixture.js";

let fixture: CodexApiFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** What codex's reviewer answers: its JSON verdict, as the model's message. */
const verdict = (outcome: "allow" | "deny", rationale: string) =>
  reply(
    JSON.stringify({
      outcome,
      risk_level: outcome === "allow" ? "low" : "high",
      user_authorization: outcome === "allow" ? "high" : "low",
      rationale,
    }),
  );

const resolvedOf = (events: ExtendedThreadEvent[]) =>
  events.filter((e): e is ApprovalResolvedEvent => e.type === "approval.resolved");

/** Whether a model request is codex's reviewer's (its answer must follow the verdict schema). */
function isReview(request: RecordedRequest): boolean {
  const body = request.body as { text?: { format?: { type?: string; schema?: unknown } } };
  const schema = body.text?.format?.schema as { properties?: Record<string, unknown> } | undefined;
  return body.text?.format?.type === "json_schema" && schema?.properties?.outcome !== undefined;
}

/** One turn of a thread under codex's auto review (on-request approvals), on `steps`: its events. */
async function autoReviewedTurn(steps: ScriptStep[]): Promise<ExtendedThreadEvent[]> {
  fixture = await startCodexApi("app-server", steps, { config: {} });
  const thread = fixture.codex.startThread({
    workingDirectory: fixture.workdir,
    skipGitRepoCheck: true,
    approvalsReviewer: "auto_review",
  });
  return collect((await thread.runStreamed("go")).events);
}

describe("auto review (real codex, ScriptedModel)", () => {
  it("codex's reviewer denies one command and allows another; each verdict is approval.resolved", async () => {
    const events = await autoReviewedTurn([
      execCommand("echo no > denied.txt", { escalated: true, justification: "write it" }),
      verdict("deny", "writes outside the task"),
      execCommand("echo yes > allowed.txt", { escalated: true, justification: "write it" }),
      verdict("allow", "the user asked for it"),
      reply("done"),
    ]);
    assert.ok(fixture);

    assert.equal(events.filter((e) => e.type === "approval.requested").length, 0, "nobody asked");
    const [denied, allowed] = resolvedOf(events);
    assert.ok(denied && allowed, "two verdicts");
    assert.equal(denied.kind, "commandExecution");
    assert.equal(denied.decision, "decline");
    assert.equal(denied.decided_by, "auto_review");
    assert.equal(denied.item_id, "call_1_0");
    assert.deepEqual(denied.review && { ...denied.review, review_id: "" }, {
      review_id: "",
      status: "denied",
      risk_level: "high",
      user_authorization: "low",
      rationale: "writes outside the task",
    });
    assert.equal(denied.request_id, denied.review?.review_id);
    assert.equal(denied.reason, "auto review denied (risk: high): writes outside the task");
    assert.equal(allowed.decision, "accept");
    assert.equal(allowed.review?.status, "approved");

    assert.equal(existsSync(path.join(fixture.workdir, "denied.txt")), false, "denied never ran");
    assert.equal(existsSync(path.join(fixture.workdir, "allowed.txt")), true, "allowed ran");
    const statuses = events.flatMap((e) =>
      e.type === "item.completed" && e.item.type === "command_execution" ? [e.item.status] : [],
    );
    assert.deepEqual(statuses, ["declined", "completed"]);
    assert.deepEqual(
      fixture.model.requests.map(isReview),
      [false, true, false, true, false],
      "codex asked its reviewer after each escalated command",
    );
  });

  it("fails closed: a reviewer that cannot answer denies the command", async () => {
    const events = await autoReviewedTurn([
      execCommand("echo x > unreviewed.txt", { escalated: true, justification: "write it" }),
      httpError(400, { message: "the reviewer's model refused the request" }),
      reply("done"),
    ]);
    assert.ok(fixture);
    const [resolved] = resolvedOf(events);
    assert.equal(resolved?.decided_by, "auto_review");
    assert.equal(resolved?.decision, "decline");
    assert.equal(resolved?.review?.status, "denied");
    assert.match(resolved?.reason ?? "", /Automatic approval review failed/);
    assert.equal(existsSync(path.join(fixture.workdir, "unreviewed.txt")), false);
    fixture.model.assertAllConsumed();
  });

  it("refuses a turn whose command handlers codex would bypass, also when the config chose the reviewer", async () => {
    fixture = await startCodexApi("app-server", [reply("never asked")], {
      config: { approvals_reviewer: "auto_review" },
      codex: { approvals: fromPermissions({ deny: { exec: ["git push"] } }) },
    });
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    await assert.rejects(thread.run("push it"), (error: unknown) => {
      assert.ok(error instanceof CodexHarnessError);
      assert.equal(error.code, "auto_review_conflict");
      assert.match(error.message, /commandExecution/);
      assert.match(error.message, /approvalsReviewer: "user"/);
      return true;
    });
    assert.equal(fixture.model.requests.length, 0, "the turn never reached the model");
  });

  it('a turn with approvalsReviewer "user" asks the handlers again, and codex keeps it', async () => {
    const asked: string[] = [];
    fixture = await startCodexApi(
      "app-server",
      [
        execCommand("echo one > one.txt", { escalated: true, justification: "first" }),
        reply("one"),
        execCommand("echo two > two.txt", { escalated: true, justification: "second" }),
        reply("two"),
      ],
      {
        config: { approvals_reviewer: "auto_review" },
        codex: {
          approvals: {
            commandExecution: (request) => {
              asked.push(request.reason ?? "");
              return "accept";
            },
          },
        },
      },
    );
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
    });
    const first = await thread.run("one", { approvalsReviewer: "user" });
    assert.equal(first.finalResponse, "one");
    // codex keeps a turn's reviewer for the later turns: the next one needs no override.
    const second = await thread.run("two");
    assert.equal(second.finalResponse, "two");
    assert.deepEqual(asked, ["first", "second"]);
    assert.equal(fixture.model.requests.filter(isReview).length, 0, "no review was asked for");
  });

  it("refuses a reviewer codex does not know before anything starts", async () => {
    fixture = await startCodexApi("app-server", [reply("never")], { config: {} });
    const thread = fixture.codex.startThread({
      workingDirectory: fixture.workdir,
      skipGitRepoCheck: true,
      approvalsReviewer: "robot" as never,
    });
    await assert.rejects(thread.run("hi"), /approvalsReviewer "robot" is not one codex knows/);
    assert.equal(fixture.model.requests.length, 0);
  });
});
