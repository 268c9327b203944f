// The ACP agent's file diffs: codex's file changes (add, update, delete, move) as the old and new
// texts an editor diffs, read from a file system given as a map.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { appliedTexts, changeTexts, diffContent } from "../../src/acp/file-diffs.js";
import { SessionView } from "../../src/acp/session-view.js";

const files = (entries: Record<string, string>) => (file: string) => entries[file];
const PATCH = "@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n";

describe("changeTexts and diffContent", () => {
  it("an added file: no old text, codex's text as the new one, absolute", () => {
    const texts = changeTexts({ path: "a.txt", kind: "add", diff: "hi\n" }, "/w", files({}));
    assert.deepEqual(texts, { path: "/w/a.txt", oldText: null, newText: "hi\n" });
  });

  it("an update: the old text read from disk, the patch applied to it", () => {
    const read = files({ "/w/a.txt": "one\ntwo\n" });
    const texts = changeTexts({ path: "/w/a.txt", kind: "update", diff: PATCH }, "/w", read);
    assert.deepEqual(texts, { path: "/w/a.txt", oldText: "one\ntwo\n", newText: "one\nTWO\n" });
    assert.deepEqual(diffContent(texts ?? assert.fail()), [
      { type: "diff", path: "/w/a.txt", oldText: "one\ntwo\n", newText: "one\nTWO\n" },
    ]);
  });

  it("an update applied already: the file is the new text, the patch undone the old", () => {
    const read = files({ "/w/a.txt": "one\nTWO\n" });
    const texts = changeTexts({ path: "/w/a.txt", kind: "update", diff: PATCH }, "/w", read);
    assert.deepEqual(texts, { path: "/w/a.txt", oldText: "one\ntwo\n", newText: "one\nTWO\n" });
  });

  it("a delete: codex's old text, an empty new one", () => {
    const texts = changeTexts({ path: "/w/b", kind: "delete", diff: "bee\n" }, "/w", files({}));
    assert.deepEqual(texts, { path: "/w/b", oldText: "bee\n", newText: "" });
  });

  it("a move (codex's note in the diff): the new path, and where it was", () => {
    const change = {
      path: "/w/c.txt",
      kind: "update" as const,
      diff: "@@ -1 +1 @@\n-x\n+y\n\n\nMoved to: /w/d.txt",
    };
    const before = changeTexts(change, "/w", files({ "/w/c.txt": "x\n" }));
    assert.deepEqual(before, {
      path: "/w/d.txt",
      oldText: "x\n",
      newText: "y\n",
      movedFrom: "/w/c.txt",
    });
    // Moved already: read at the new path, undone.
    assert.deepEqual(changeTexts(change, "/w", files({ "/w/d.txt": "y\n" })), before);
    const content = diffContent(before ?? assert.fail());
    assert.equal(content[0]?.type === "diff" && content[0].path, "/w/d.txt");
    assert.deepEqual(content[1], {
      type: "content",
      content: { type: "text", text: "Moved from /w/c.txt" },
    });
  });

  it("a patch that fits nothing: no texts (shown as the patch)", () => {
    const read = files({ "/w/a.txt": "other\n" });
    assert.equal(
      changeTexts({ path: "/w/a.txt", kind: "update", diff: PATCH }, "/w", read),
      undefined,
    );
  });

  it("applied: the file as it is now", () => {
    const before = { path: "/w/a.txt", oldText: "one\n", newText: "one\ntwo\n" };
    assert.deepEqual(appliedTexts(before, files({ "/w/a.txt": "one\ntwo!\n" })), {
      ...before,
      newText: "one\ntwo!\n",
    });
  });
});

describe("SessionView", () => {
  it("keeps a change's old text from its first reading, and shows the applied file after", () => {
    const disk: Record<string, string> = { "/w/a.txt": "one\ntwo\n" };
    const view = new SessionView({ cwd: "/w", send: async () => undefined, read: files(disk) });
    const changes = [{ path: "a.txt", kind: "update" as const, diff: PATCH }];
    const asked = view.fileContent("item", changes);
    disk["/w/a.txt"] = "one\nTWO\n";
    const done = view.fileContent("item", changes, true);
    assert.deepEqual(asked, done);
    assert.deepEqual(done, [
      { type: "diff", path: "/w/a.txt", oldText: "one\ntwo\n", newText: "one\nTWO\n" },
    ]);
  });

  it("sends a tool call once, and tells each notice once, marked", async () => {
    const sent: unknown[] = [];
    const view = new SessionView({ cwd: "/w", send: async (update) => void sent.push(update) });
    await view.announce({ toolCallId: "c1", title: "ls", status: "pending", kind: "execute" });
    await view.announce({ toolCallId: "c1", title: "ls", status: "pending", kind: "execute" });
    assert.deepEqual(sent, [
      {
        sessionUpdate: "tool_call",
        toolCallId: "c1",
        title: "ls",
        status: "pending",
        kind: "execute",
      },
    ]);
    assert.equal(view.sent("c1"), true);
    const notice = view.notice("Config is odd\nline two");
    assert.ok(notice?.sessionUpdate === "agent_message_chunk" && notice.content.type === "text");
    assert.equal(notice.content.text, "\n\n> ⚠️ **codex notice:** Config is odd\n> line two\n\n");
    assert.equal(view.notice("Config is odd\nline two"), undefined);
  });
});
