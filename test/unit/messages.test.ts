import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classifyMessage } from "../../src/protocol/messages.js";

describe("classifyMessage", () => {
  it("sorts requests, notifications, responses and errors", () => {
    assert.equal(classifyMessage({ id: 3, method: "item/tool/call", params: {} }).kind, "request");
    assert.equal(classifyMessage({ id: "abc", method: "x" }).kind, "request");
    assert.equal(classifyMessage({ method: "turn/started", params: {} }).kind, "notification");
    assert.equal(classifyMessage({ id: 3, result: null }).kind, "response");
    assert.equal(
      classifyMessage({ id: 3, error: { code: -32001, message: "busy" } }).kind,
      "error",
    );
    assert.equal(
      classifyMessage({ id: null, error: { code: -32700, message: "parse" } }).kind,
      "error",
    );
  });

  it("treats a message with a method as a request even when it also looks like a response", () => {
    assert.equal(classifyMessage({ id: 0, method: "x", result: 1 }).kind, "request");
  });

  it("marks malformed messages invalid with a reason", () => {
    for (const value of [
      null,
      [],
      "text",
      42,
      { method: 5 },
      { id: {}, method: "x" },
      { id: 1 },
      { id: 1, error: { message: "no code" } },
      { id: true, result: 1 },
    ]) {
      const classified = classifyMessage(value);
      assert.equal(classified.kind, "invalid", JSON.stringify(value));
      assert.ok(classified.kind === "invalid" && classified.reason.length > 0);
    }
  });
});
