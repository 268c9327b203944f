// The runtime's data directory is made private, but a folder shared with others (/tmp) is never closed.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { ensurePrivateDir } from "../../src/channels/private-files.js";

const root = mkdtempSync(path.join(os.tmpdir(), "codex-harness-private-"));
after(() => rmSync(root, { recursive: true, force: true }));

describe("ensurePrivateDir", () => {
  it("creates a missing folder 0700 and closes an existing one of its own", () => {
    const made = path.join(root, "a", "b");
    ensurePrivateDir(made);
    assert.equal(statSync(made).mode & 0o777, 0o700);
    const open = path.join(root, "open");
    ensurePrivateDir(open);
    chmodSync(open, 0o755);
    ensurePrivateDir(open);
    assert.equal(statSync(open).mode & 0o777, 0o700);
  });

  it("refuses a shared folder like /tmp (sticky, world-writable) and leaves its mode alone", () => {
    const shared = path.join(root, "shared");
    ensurePrivateDir(shared);
    chmodSync(shared, 0o1777);
    assert.throws(
      () => ensurePrivateDir(shared),
      (error: Error & { code?: string }) =>
        error.code === "data_dir_unusable" &&
        /shared with other users \(mode 1777\).*give a folder of its own/.test(error.message),
    );
    assert.equal(statSync(shared).mode & 0o7777, 0o1777);
    const writable = path.join(root, "writable");
    ensurePrivateDir(writable);
    chmodSync(writable, 0o777);
    assert.throws(() => ensurePrivateDir(writable), /shared with other users \(mode 777\)/);
    assert.equal(statSync(writable).mode & 0o777, 0o777);
  });
});
