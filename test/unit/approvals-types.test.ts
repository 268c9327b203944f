// approval.requested / approval.resolved are typed per kind, checked by the compiler: `npm test`
// builds this file, so a `respond` that accepts another kind's decision fails the build.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type {
  ApprovalKind,
  ApprovalRequestedEvent,
  ApprovalResolvedEvent,
  CommandDecision,
  CommandExecutionRequest,
  DecisionOf,
  ExtendedThreadEvent,
  FileChangeDecision,
  UserInputDecision,
} from "../../src/index.js";
import type { Equal } from "../support/type-equality.js";

type RequestedOf<K extends ApprovalKind> = Extract<ApprovalRequestedEvent, { kind: K }>;
type ResolvedOf<K extends ApprovalKind> = Extract<ApprovalResolvedEvent, { kind: K }>;

const CHECKS = {
  oneMemberPerKind: true satisfies Equal<ApprovalRequestedEvent["kind"], ApprovalKind>,
  requestFollowsKind: true satisfies Equal<
    RequestedOf<"commandExecution">["request"],
    CommandExecutionRequest
  >,
  respondFollowsKind: true satisfies Equal<
    Parameters<RequestedOf<"commandExecution">["respond"]>[0],
    CommandDecision
  >,
  genericIsTheKind: true satisfies Equal<
    ApprovalRequestedEvent<"userInput">,
    RequestedOf<"userInput">
  >,
  decisionFollowsKind: true satisfies Equal<
    ResolvedOf<"fileChange">["decision"],
    FileChangeDecision
  >,
  resolvedDecisionsAreEveryKinds: true satisfies Equal<
    ApprovalResolvedEvent["decision"],
    DecisionOf<ApprovalKind>
  >,
};

/** What a stream reader writes: narrow on `event.kind`, then answer with that kind's decisions. */
function answer(event: ExtendedThreadEvent): void {
  if (event.type !== "approval.requested") return;
  if (event.kind === "commandExecution") {
    const command: string = event.request.command;
    event.respond(command.includes("rm ") ? "decline" : "accept");
    return;
  }
  if (event.kind === "userInput") {
    event.respond({ answers: { [event.request.questions[0]?.id ?? ""]: ["yes"] } });
    return;
  }
  // Unnarrowed, respond takes only what every kind takes.
  event.respond("decline");
}

/** Never called: each `@ts-expect-error` line must fail to compile (or the build fails). */
function wrongDecisions(event: ApprovalRequestedEvent, resolved: ApprovalResolvedEvent): void {
  if (event.kind === "commandExecution") {
    // @ts-expect-error a question's answers are not a command decision
    event.respond({ answers: { q: ["yes"] } });
  }
  if (event.kind === "fileChange") {
    // @ts-expect-error a file change takes no execpolicy amendment
    event.respond({ acceptWithExecpolicyAmendment: ["ls"] });
  }
  // @ts-expect-error unnarrowed, "accept" is not a decision of every kind
  event.respond("accept");
  if (event.request.kind === "commandExecution") {
    // The nested kind narrows `request` only…
    const command: string = event.request.command;
    // @ts-expect-error …not the event: `respond` still takes only what every kind takes
    event.respond(command === "" ? "decline" : "accept");
  }
  if (resolved.kind === "commandExecution") {
    const decision: CommandDecision = resolved.decision;
    // @ts-expect-error a command's decision is not a question's
    const answers: UserInputDecision = resolved.decision;
    void [decision, answers];
  }
  // @ts-expect-error unnarrowed, the decision may be any kind's
  const unnarrowed: FileChangeDecision = resolved.decision;
  void unnarrowed;
}

/** An approval.requested event of `kind` whose respond records its decisions. */
function requested(kind: ApprovalKind, request: object, decisions: unknown[]): ExtendedThreadEvent {
  return {
    type: "approval.requested",
    kind,
    request: { kind, ...request },
    respond: (decision: unknown) => decisions.push(decision),
  } as unknown as ApprovalRequestedEvent;
}

describe("approval events are typed per kind", () => {
  it("compiles the checks (each a type equality or an expected error the build verifies)", () => {
    assert.ok(Object.values(CHECKS).every((check) => check === true));
    assert.equal(typeof wrongDecisions, "function");
  });

  it("narrowing on event.kind answers each kind with its own decisions", () => {
    const decisions: unknown[] = [];
    answer(requested("commandExecution", { command: "ls" }, decisions));
    answer(requested("commandExecution", { command: "rm -rf x" }, decisions));
    answer(requested("userInput", { questions: [{ id: "db" }] }, decisions));
    answer(requested("fileChange", { changes: [] }, decisions));
    assert.deepEqual(decisions, ["accept", "decline", { answers: { db: ["yes"] } }, "decline"]);
  });
});
