// The ACP agent's update sender: text chunks that wait for a write join (every character, in
// order); anything else keeps its place.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type * as acp from "@agentclientprotocol/sdk";
import { UpdateSender } from "../../src/acp/update-sender.js";

const chunk = (text: string, messageId = "m1"): acp.SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  content: { type: "text", text },
  messageId,
});
const thought = (text: string): acp.SessionUpdate => ({
  sessionUpdate: "agent_thought_chunk",
  content: { type: "text", text },
  messageId: "r1",
});
const toolCall: acp.SessionUpdate = {
  sessionUpdate: "tool_call",
  toolCallId: "c1",
  title: "ls",
  kind: "execute",
};

describe("UpdateSender", () => {
  it("joins chunks that arrive together; a tool call or another message keeps the order", async () => {
    const sent: acp.SessionUpdate[] = [];
    const sender = new UpdateSender(async (update) => {
      sent.push(update);
    });
    for (const text of ["Hel", "lo", " there"]) sender.push(chunk(text));
    sender.push(thought("hm"));
    sender.push(thought("m"));
    sender.push(toolCall);
    sender.push(chunk("Done", "m2"));
    await sender.flush();
    assert.deepEqual(sent, [chunk("Hello there"), thought("hmm"), toolCall, chunk("Done", "m2")]);
  });

  it("while a write is slow, what comes meanwhile waits as one chunk", async () => {
    const sent: string[] = [];
    let release: () => void = () => undefined;
    const sender = new UpdateSender(async (update) => {
      if (sent.length === 0) await new Promise<void>((resolve) => (release = resolve));
      sent.push(
        update.sessionUpdate === "agent_message_chunk" && update.content.type === "text"
          ? update.content.text
          : "",
      );
    });
    sender.push(chunk("a"));
    await new Promise((resolve) => setImmediate(resolve));
    for (const text of ["b", "c", "d"]) {
      sender.push(chunk(text));
      await new Promise((resolve) => setImmediate(resolve));
    }
    release();
    await sender.flush();
    assert.deepEqual(sent, ["a", "bcd"]);
  });
});
