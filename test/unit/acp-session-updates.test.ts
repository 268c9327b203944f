// The ACP agent's turn mapping on a session's view: a call the editor has (sent before a permission
// request) is updated, not sent again; an end never comes before its call; terminal output only
// for a call shown; codex's warnings once each, as notices.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type * as acp from "@agentclientprotocol/sdk";
import { TurnUpdates } from "../../src/acp/session-updates.js";
import { SessionView } from "../../src/acp/session-view.js";
import type { ExtendedThreadEvent, ExtendedThreadItem } from "../../src/events/types.js";

const command = (status: "in_progress" | "completed"): ExtendedThreadItem => ({
  id: "c1",
  type: "command_execution",
  command: "make",
  aggregated_output: status === "completed" ? "built\n" : "",
  exit_code: status === "completed" ? 0 : null,
  status,
  cwd: "/w",
});
const started = (item: ExtendedThreadItem) =>
  ({ type: "item.started", item }) as ExtendedThreadEvent;
const completed = (item: ExtendedThreadItem) =>
  ({ type: "item.completed", item }) as ExtendedThreadEvent;
const kinds = (updates: acp.SessionUpdate[]) => updates.map((u) => u.sessionUpdate);

const viewOf = (terminal?: "terminal_output") =>
  new SessionView({ cwd: "/w", send: async () => undefined, terminal });

describe("TurnUpdates on a session's view", () => {
  it("a call sent before its permission request is updated when its item starts", async () => {
    const view = viewOf();
    await view.announce({ toolCallId: "c1", title: "make", kind: "execute", status: "pending" });
    const turn = new TurnUpdates(view);
    const [update] = turn.map(started(command("in_progress")));
    assert.equal(update?.sessionUpdate, "tool_call_update");
    assert.equal(update && "status" in update ? update.status : undefined, "in_progress");
  });

  it("an item that ends without having started: its call first, then its end", () => {
    const turn = new TurnUpdates(viewOf());
    assert.deepEqual(kinds(turn.map(completed(command("completed")))), [
      "tool_call",
      "tool_call_update",
    ]);
  });

  it("terminal output only for a call the editor has", () => {
    const turn = new TurnUpdates(viewOf("terminal_output"));
    const delta = {
      type: "item.delta",
      item_id: "c1",
      stream: "command_output",
      delta: "built\n",
    } as ExtendedThreadEvent;
    assert.deepEqual(turn.map(delta), [], "not shown yet: left to the end");
    turn.map(started(command("in_progress")));
    assert.deepEqual(turn.map(delta)[0]?._meta, {
      terminal_output: { terminal_id: "c1", data: "built\n" },
    });
    const [end] = turn.map(completed(command("completed")));
    assert.deepEqual(end?._meta, {
      terminal_exit: { terminal_id: "c1", exit_code: 0, signal: null },
    });
  });

  it("codex's warnings and retries: notices, once per session", () => {
    const view = viewOf();
    const warning = {
      type: "notification",
      method: "configWarning",
      params: { summary: "Odd config", details: "line 3" },
    } as ExtendedThreadEvent;
    const retry = {
      type: "error",
      message: "Reconnecting",
      will_retry: true,
    } as ExtendedThreadEvent;
    const failed = { type: "error", message: "Gone", will_retry: false } as ExtendedThreadEvent;
    const first = new TurnUpdates(view);
    const said = [...first.map(warning), ...first.map(retry), ...first.map(failed)];
    assert.deepEqual(
      said.map((u) => (u.sessionUpdate === "agent_message_chunk" ? u.content : undefined)),
      [
        { type: "text", text: "\n\n> ⚠️ **codex notice:** Odd config\n> line 3\n\n" },
        { type: "text", text: "\n\n> ⚠️ **codex notice:** Reconnecting (codex retries)\n\n" },
      ],
    );
    assert.deepEqual(new TurnUpdates(view).map(warning), [], "the next turn says it no more");
  });

  it("a turn the model refused (cyber, bio, misalignment) ends as a refusal that says why", () => {
    const failed = (reason: unknown) =>
      ({
        type: "turn.failed",
        thread_id: "t",
        turn_id: "u",
        error: { message: `flagged (${String(reason)})`, codex_error_info: reason },
      }) as ExtendedThreadEvent;
    for (const reason of ["cyberPolicy", "bioPolicy", "misalignmentPolicyViolation"]) {
      const turn = new TurnUpdates(viewOf());
      const [said] = turn.map(failed(reason));
      assert.deepEqual(turn.end, { kind: "refused", message: `flagged (${reason})` });
      assert.ok(said?.sessionUpdate === "agent_message_chunk");
    }
    const other = new TurnUpdates(viewOf());
    assert.deepEqual(other.map(failed("other")), []);
    assert.deepEqual(other.end, { kind: "failed", message: "flagged (other)" });
  });
});
