// `codex-harness acp` shows every file change as ACP `diff` content an editor renders (real codex,
// ScriptedModel): an update's old text read from disk and its patch applied, a delete's old text,
// a move's new path with a note of the old, an added file — in the tool call, in its permission
// request and, once applied, as the file is.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import type * as acp from "@agentclientprotocol/sdk";
import { applyPatch, reply } from "../../src/testing/script.js";
import { allow, openSession, promptOf, withAgent } from "../support/acp-session.js";

type Diff = Extract<acp.ToolCallContent, { type: "diff" }>;
type Update = Extract<acp.SessionUpdate, { sessionUpdate: "tool_call_update" }>;
const isUpdate = (update: acp.SessionUpdate): update is Update =>
  update.sessionUpdate === "tool_call_update";
const diffsOf = (content: acp.ToolCallContent[] | null | undefined): Diff[] =>
  (content ?? []).filter((part): part is Diff => part.type === "diff");

/** `a.txt` holding `text` in the agent's workspace, and a session whose editor rejects. */
async function oneFile(setup: Parameters<Parameters<typeof withAgent>[1]>[0], text: string) {
  const file = path.join(setup.workspace, "a.txt");
  writeFileSync(file, text);
  const opened = await openSession(setup.agent, setup.workspace, allow("reject_once"));
  return { file, ...opened, prompt: promptOf(opened.editor, opened.sessionId) };
}

describe("codex-harness acp: file changes as diffs (real codex, ScriptedModel)", () => {
  it("update, delete, move and add: diffs in the tool call, the request and the end", async () => {
    await withAgent(
      [
        applyPatch("*** Update File: a.txt\n@@\n one\n-two\n+TWO\n three"),
        applyPatch("*** Delete File: b.txt"),
        applyPatch("*** Update File: c.txt\n*** Move to: d.txt\n@@\n-x\n+y"),
        applyPatch("*** Add File: e.txt\n+new"),
        reply("Done."),
      ],
      async (setup) => {
        const file = (name: string) => path.join(setup.workspace, name);
        writeFileSync(file("a.txt"), "one\ntwo\nthree\nfour\n");
        writeFileSync(file("b.txt"), "bee\n");
        writeFileSync(file("c.txt"), "x\n");
        const { editor, sessionId } = await openSession(
          setup.agent,
          setup.workspace,
          allow("allow_once"),
        );
        assert.equal((await promptOf(editor, sessionId)("Edit")).stopReason, "end_turn");
        assert.equal(readFileSync(file("a.txt"), "utf8"), "one\nTWO\nthree\nfour\n");
        assert.ok(!existsSync(file("b.txt")) && !existsSync(file("c.txt")));
        const expected: Diff[][] = [
          [
            {
              type: "diff",
              path: file("a.txt"),
              oldText: "one\ntwo\nthree\nfour\n",
              newText: "one\nTWO\nthree\nfour\n",
            },
          ],
          [{ type: "diff", path: file("b.txt"), oldText: "bee\n", newText: "" }],
          [
            {
              type: "diff",
              path: file("d.txt"),
              oldText: "x\n",
              newText: "y\n",
              _meta: { movedFrom: file("c.txt") },
            },
          ],
          [{ type: "diff", path: file("e.txt"), oldText: null, newText: "new\n" }],
        ];
        const updates = editor.updates.map((n) => n.update);
        const calls = updates.filter((u) => u.sessionUpdate === "tool_call");
        assert.deepEqual(
          calls.map((call) => diffsOf(call.content)),
          expected,
          "in the tool calls",
        );
        assert.deepEqual(
          editor.asked.map((request) => diffsOf(request.toolCall.content)),
          expected,
          "in the permission requests",
        );
        const ends = updates.filter(isUpdate).filter((u) => u.status === "completed");
        assert.deepEqual(
          ends.map((end) => diffsOf(end.content)),
          expected,
          "once applied, as the files are",
        );
        const move = calls[2];
        assert.equal(move?.title, `Edit ${file("d.txt")}`);
        assert.deepEqual(move?.locations, [{ path: file("d.txt") }]);
        assert.match(JSON.stringify(move?.content), /Moved from .*c\.txt/);
      },
    );
  });

  it("full access (applied without asking): the old text still comes out right", async () => {
    await withAgent(
      [applyPatch("*** Update File: a.txt\n@@\n-old line\n+new line"), reply("Done.")],
      async (setup) => {
        const { file, editor, sessionId, prompt } = await oneFile(setup, "keep\nold line\n");
        await editor.agent.request("session/set_mode", { sessionId, modeId: "full-access" });
        assert.equal((await prompt("Edit")).stopReason, "end_turn");
        assert.equal(editor.asked.length, 0);
        const want = {
          type: "diff",
          path: file,
          oldText: "keep\nold line\n",
          newText: "keep\nnew line\n",
        };
        const updates = editor.updates.map((n) => n.update);
        const call = updates.find((u) => u.sessionUpdate === "tool_call");
        assert.deepEqual(diffsOf(call?.content), [want]);
        assert.deepEqual(diffsOf(updates.find(isUpdate)?.content), [want]);
      },
    );
  });

  it("a rejected change: the diff asked about, the file untouched, the call failed", async () => {
    await withAgent(
      [applyPatch("*** Update File: a.txt\n@@\n-a\n+b"), reply("Fine, left it.")],
      async (setup) => {
        const { file, editor, prompt } = await oneFile(setup, "a\n");
        assert.equal((await prompt("Edit")).stopReason, "end_turn");
        assert.deepEqual(diffsOf(editor.asked[0]?.toolCall.content), [
          { type: "diff", path: file, oldText: "a\n", newText: "b\n" },
        ]);
        assert.equal(readFileSync(file, "utf8"), "a\n");
        assert.equal(editor.updates.map((n) => n.update).find(isUpdate)?.status, "failed");
      },
    );
  });
});
