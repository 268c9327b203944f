// A session's folders (cwd, additionalDirectories): absolute paths without NUL, and existing
// folders as codex sees them — asked through fs/getMetadata; a codex without that method (an older
// one, a stand-in) is not asked, and thread/start then judges the folder.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkSessionFolders } from "../../src/acp/session-folders.js";
import type { Codex } from "../../src/codex.js";
import { MethodNotSupportedError, RpcWireError } from "../../src/rpc/errors.js";

/** A codex whose fs/getMetadata answers with `answer` (a value, or a rejection). */
function codexAnswering(answer: () => Promise<unknown>): Codex<"extended"> {
  return { appServer: { request: answer } } as unknown as Codex<"extended">;
}

const invalidParams = (pattern: RegExp) => (error: unknown) =>
  (error as { code?: number }).code === -32602 && pattern.test((error as Error).message);

describe("acp: a session's folders", () => {
  it("takes an existing folder, refuses a file and what codex cannot open", async () => {
    await checkSessionFolders(
      codexAnswering(async () => ({ isDirectory: true })),
      { cwd: "/work" },
    );
    await assert.rejects(
      checkSessionFolders(
        codexAnswering(async () => ({ isDirectory: false })),
        { cwd: "/etc/hosts" },
      ),
      invalidParams(/cwd "\/etc\/hosts" is not a folder: name a folder, not a file/),
    );
    const refused = new RpcWireError({ code: -32600, message: "no such file" }, "fs/getMetadata");
    await assert.rejects(
      checkSessionFolders(
        codexAnswering(() => Promise.reject(refused)),
        { cwd: "/work", additionalDirectories: ["/nowhere"] },
      ),
      invalidParams(/cwd "\/work" is not a folder codex can open/),
    );
  });

  it("refuses a relative path or a NUL before codex is asked", async () => {
    const never = codexAnswering(() => Promise.reject(new Error("codex was asked")));
    await assert.rejects(
      checkSessionFolders(never, { cwd: "work" }),
      invalidParams(/cwd must be an absolute path/),
    );
    await assert.rejects(
      checkSessionFolders(never, { cwd: "/work", additionalDirectories: ["/a\0b"] }),
      invalidParams(/additionalDirectories\[0\] must not contain a NUL/),
    );
  });

  it("leaves the folders to thread/start when codex has no fs/getMetadata", async () => {
    const missing = new MethodNotSupportedError(
      { code: -32601, message: "fs/getMetadata failed: unknown method (code -32601)" },
      "fs/getMetadata",
      "0.0.0",
    );
    await checkSessionFolders(
      codexAnswering(() => Promise.reject(missing)),
      { cwd: "/work", additionalDirectories: ["/data"] },
    );
  });
});
