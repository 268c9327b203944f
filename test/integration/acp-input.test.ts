// `codex-harness acp` given bad input (real codex, ScriptedModel): invalid JSON-RPC answered with
// the request's id where it can be read, session folders that are not absolute existing folders,
// and sessions the agent does not know, on every method that names one.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk";
import { responseTo, sendLines } from "../support/acp-editor.js";
import { allow, openSession, withAgent } from "../support/acp-session.js";

/** The JSON-RPC error of a response (fails when it is not one). */
const errorOf = (response: Record<string, unknown>) => {
  const error = response.error as { code: number; message: string; data?: unknown } | undefined;
  assert.ok(error, `an error: ${JSON.stringify(response)}`);
  return error;
};

/** A rejection that is a JSON-RPC error `code` whose message matches `message`. */
const rpcError =
  (code: number, message: RegExp) => (error: { code?: number; message?: string }) => {
    assert.equal(error.code, code, String(error.message));
    assert.match(String(error.message), message);
    return true;
  };

describe("codex-harness acp: bad input (real codex, ScriptedModel)", () => {
  it("an invalid message is -32600 with its id where one can be read; unparseable is -32700, id null", async () => {
    await withAgent([], async ({ agent }) => {
      const initialize = { protocolVersion: PROTOCOL_VERSION };
      sendLines(
        agent,
        JSON.stringify({ jsonrpc: "1.0", id: 11, method: "initialize", params: initialize }),
        JSON.stringify({ id: 12, method: "initialize", params: initialize }),
        JSON.stringify({ jsonrpc: "2.0", id: 13, method: 42 }),
        JSON.stringify({ jsonrpc: "2.0", id: 14 }),
        JSON.stringify({ jsonrpc: "2.0", id: "s-15", params: {} }),
        "{ not json",
      );
      for (const id of [11, 12, 13, 14, "s-15"]) {
        const error = errorOf(await responseTo(agent, id));
        assert.equal(error.code, -32600, `${id}: ${error.message}`);
      }
      assert.match(errorOf(await responseTo(agent, 11)).message, /"jsonrpc" must be "2\.0"/);
      assert.match(errorOf(await responseTo(agent, 13)).message, /"method" must be a string/);
      assert.match(errorOf(await responseTo(agent, 14)).message, /no "method"/);
      assert.equal(errorOf(await responseTo(agent, null)).code, -32700);
      // An id that is not a string or a number cannot be answered with; a response is not answered.
      sendLines(
        agent,
        JSON.stringify({ jsonrpc: "2.0", id: { no: 1 }, method: "initialize" }),
        JSON.stringify({ jsonrpc: "2.0", id: 99, result: {} }),
        JSON.stringify({ jsonrpc: "2.0", id: 16, method: "initialize", params: initialize }),
      );
      assert.ok((await responseTo(agent, 16)).result, "the connection goes on");
      const unreadable = agent.sent.filter((message) => message.id === null);
      assert.deepEqual(
        unreadable.map((message) => errorOf(message).code),
        [-32700, -32600],
      );
      assert.ok(!agent.sent.some((message) => message.id === 99), "a response gets no answer");
    });
  });

  it("session/new, load and resume want an absolute, existing folder without NUL: -32602 saying so", async () => {
    await withAgent([], async ({ agent, workspace }) => {
      const { editor, sessionId } = await openSession(agent, workspace, allow("reject_once"));
      const file = path.join(workspace, "notes.txt");
      await writeFile(file, "not a folder\n");
      const bad: [string, RegExp][] = [
        ["workspace", /cwd must be an absolute path.*"workspace"/],
        [path.join(workspace, "missing"), /cwd .*missing.* is not a folder codex can open/],
        [file, /cwd .*notes\.txt.* is not a folder/],
        [`${workspace}\u0000x`, /cwd must not contain a NUL character/],
      ];
      for (const [cwd, message] of bad) {
        await assert.rejects(
          editor.agent.request("session/new", { cwd, mcpServers: [] }),
          rpcError(-32602, message),
        );
        for (const method of ["session/load", "session/resume"] as const) {
          await assert.rejects(
            editor.agent.request(method, { sessionId, cwd, mcpServers: [] }),
            rpcError(-32602, message),
          );
        }
      }
      await assert.rejects(
        editor.agent.request("session/new", {
          cwd: workspace,
          mcpServers: [],
          additionalDirectories: ["../elsewhere"],
        }),
        rpcError(-32602, /additionalDirectories\[0\] must be an absolute path/),
      );
    });
  });

  it("an unknown session is -32002 on every method that names one", async () => {
    await withAgent([], async ({ agent, workspace }) => {
      sendLines(
        agent,
        JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: PROTOCOL_VERSION },
        }),
      );
      await responseTo(agent, 0);
      const requests = (sessionId: string): [string, Record<string, unknown>][] => [
        ["session/load", { sessionId, cwd: workspace, mcpServers: [] }],
        ["session/resume", { sessionId, cwd: workspace, mcpServers: [] }],
        ["session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] }],
        ["session/set_mode", { sessionId, modeId: "read-only" }],
        ["session/set_config_option", { sessionId, configId: "model", value: "x" }],
        ["session/close", { sessionId }],
        ["session/delete", { sessionId }],
      ];
      let id = 100;
      // Not a codex thread id at all, and one that could be but is not.
      for (const sessionId of ["nope", "01a00000-0000-7000-8000-000000000000"]) {
        for (const [method, params] of requests(sessionId)) {
          sendLines(agent, JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }));
          const error = errorOf(await responseTo(agent, id));
          assert.equal(error.code, -32002, `${method} ${sessionId}: ${error.message}`);
          assert.deepEqual(error.data, { sessionId }, method);
        }
      }
    });
  });
});
