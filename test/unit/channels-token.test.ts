// The runtime's token file: made private, and refused when an existing one is unsafe.
import assert from "node:assert/strict";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { loadOrCreateToken, MIN_TOKEN_LENGTH, readToken } from "../../src/channels/token.js";
import { CodexHarnessError } from "../../src/errors.js";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "channels-token-"));
  dirs.push(dir);
  return dir;
}

const strong = "k".repeat(43);

async function refused(dir: string, code: string, pattern: RegExp): Promise<void> {
  await assert.rejects(loadOrCreateToken(dir), (error: unknown) => {
    assert.ok(error instanceof CodexHarnessError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    return true;
  });
}

describe("channels token file", () => {
  it("makes an existing 0755 data directory 0700 and a new token 0600", async () => {
    const dir = dataDir();
    chmodSync(dir, 0o755);
    const { token, created, file } = await loadOrCreateToken(dir);
    assert.equal(created, true);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(token.length >= MIN_TOKEN_LENGTH);
    // A second start reuses it.
    assert.deepEqual(await loadOrCreateToken(dir), { token, file, created: false });
  });

  it("refuses an existing token file others can read, saying to delete it or chmod 600", async () => {
    for (const mode of [0o644, 0o640, 0o604, 0o660, 0o602]) {
      const dir = dataDir();
      writeFileSync(path.join(dir, "token"), `${strong}\n`);
      chmodSync(path.join(dir, "token"), mode);
      await refused(dir, "unsafe_token_file", /others may have read it.*delete it.*chmod 600/);
    }
  });

  it("refuses a token file that is a symlink, even to a private file", async () => {
    const dir = dataDir();
    const target = path.join(dataDir(), "elsewhere");
    writeFileSync(target, `${strong}\n`, { mode: 0o600 });
    symlinkSync(target, path.join(dir, "token"));
    await refused(dir, "unsafe_token_file", /symbolic link/);
    const system = dataDir();
    symlinkSync("/etc/hostname", path.join(system, "token"));
    await refused(system, "unsafe_token_file", /symbolic link/);
    assert.equal(await readFileSync(target, "utf8"), `${strong}\n`, "the target is untouched");
  });

  it("refuses a short token and a token file that is a directory", async () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, "token"), "hunter2\n", { mode: 0o600 });
    await refused(
      dir,
      "unsafe_token_file",
      new RegExp(`7 characters, fewer than ${MIN_TOKEN_LENGTH}`),
    );
    const folder = dataDir();
    mkdirSync(path.join(folder, "token"), { mode: 0o700 });
    await assert.rejects(readToken(path.join(folder, "token")), CodexHarnessError);
  });

  it("takes a private, long enough existing token", async () => {
    const dir = dataDir();
    writeFileSync(path.join(dir, "token"), `${strong}\n`, { mode: 0o600 });
    assert.equal((await loadOrCreateToken(dir)).token, strong);
    assert.equal(await readToken(path.join(dataDir(), "none")), undefined);
  });
});
