// The default types are @openai/codex-sdk's, checked by the compiler: `npm test` builds this file,
// so a drift in an event or item type, or in what the default stream yields, fails the build.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type * as official from "@openai/codex-sdk";
import type * as ours from "../../src/index.js";
import type { Equal } from "../support/type-equality.js";

type Keys<T> = T extends unknown ? keyof T : never;
type ItemOf<U, K> = Extract<U, { type: K }>;
type SameItem<K extends official.ThreadItem["type"]> = Equal<
  Keys<ItemOf<ours.ThreadItem, K>>,
  Keys<ItemOf<official.ThreadItem, K>>
>;
type SameEvent<K extends official.ThreadEvent["type"]> = Equal<
  Keys<ItemOf<ours.ThreadEvent, K>>,
  Keys<ItemOf<official.ThreadEvent, K>>
>;

type DefaultStream = Awaited<ReturnType<ours.Thread["runStreamed"]>>["events"];
type DefaultRun = Awaited<ReturnType<ours.Thread["run"]>>;
type ExtendedStream = Awaited<ReturnType<ours.Thread<"extended">["runStreamed"]>>["events"];
// Never called: their return types are what `new Codex(…).startThread(…)` gives a user.
const startDefault = (codex: ours.Codex) => codex.startThread({ model: "m" });
const startExtended = (codex: ours.Codex<"extended">) => codex.startThread();
const startOverridden = (codex: ours.Codex) => codex.startThread({ events: "extended" });
const resumeOverridden = (codex: ours.Codex<"extended">) =>
  codex.resumeThread("id", { events: "sdk" });

const CHECKS = {
  eventTypes: true satisfies Equal<ours.ThreadEvent["type"], official.ThreadEvent["type"]>,
  itemTypes: true satisfies Equal<ours.ThreadItem["type"], official.ThreadItem["type"]>,
  threadStarted: true satisfies SameEvent<"thread.started">,
  turnStarted: true satisfies SameEvent<"turn.started">,
  turnCompleted: true satisfies SameEvent<"turn.completed">,
  turnFailed: true satisfies SameEvent<"turn.failed">,
  itemCompleted: true satisfies SameEvent<"item.completed">,
  error: true satisfies SameEvent<"error">,
  agentMessage: true satisfies SameItem<"agent_message">,
  reasoning: true satisfies SameItem<"reasoning">,
  command: true satisfies SameItem<"command_execution">,
  fileChange: true satisfies SameItem<"file_change">,
  mcp: true satisfies SameItem<"mcp_tool_call">,
  webSearch: true satisfies SameItem<"web_search">,
  todoList: true satisfies SameItem<"todo_list">,
  errorItem: true satisfies SameItem<"error">,
  usage: true satisfies Equal<keyof ours.Usage, keyof official.Usage>,
  commandStatus: true satisfies Equal<
    ours.CommandExecutionItem["status"],
    official.CommandExecutionItem["status"]
  >,
  runResult: true satisfies Equal<keyof ours.RunResult, keyof official.RunResult>,
  defaultStream: true satisfies Equal<DefaultStream, AsyncGenerator<ours.ThreadEvent>>,
  defaultRun: true satisfies Equal<DefaultRun, ours.RunResult>,
  extendedStream: true satisfies Equal<
    ExtendedStream,
    AsyncGenerator<ours.WithRaw<ours.ExtendedThreadEvent>>
  >,
  newCodexThread: true satisfies Equal<ReturnType<typeof startDefault>, ours.Thread<"sdk">>,
  extendedCodexThread: true satisfies Equal<
    ReturnType<typeof startExtended>,
    ours.Thread<"extended">
  >,
  threadOptionWins: true satisfies Equal<
    ReturnType<typeof startOverridden>,
    ours.Thread<"extended">
  >,
  threadOptionWinsBack: true satisfies Equal<
    ReturnType<typeof resumeOverridden>,
    ours.Thread<"sdk">
  >,
};

/** Code written for the SDK: an exhaustive switch over its event types compiles on ours. */
function describeEvent(event: ours.ThreadEvent): string {
  switch (event.type) {
    case "thread.started":
      return event.thread_id;
    case "turn.started":
      return "started";
    case "turn.completed":
      return String(event.usage.input_tokens);
    case "turn.failed":
      return event.error.message;
    case "item.started":
    case "item.updated":
    case "item.completed":
      return event.item.id;
    case "error":
      return event.message;
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

describe("the default types are @openai/codex-sdk's", () => {
  it("compiles the checks (each is a type equality the build verifies)", () => {
    assert.ok(Object.values(CHECKS).every((check) => check === true));
    assert.equal(describeEvent({ type: "turn.started" }), "started");
  });
});
