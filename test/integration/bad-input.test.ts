import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { AppServerClient } from "../../src/app-server/client.js";
import { CODEX_PATH_ENV } from "../../src/app-server/codex-binary.js";
import { spawnLink } from "../../src/app-server/links.js";
import { AppServerExitedError } from "../../src/app-server/process-errors.js";
import { CodexHarnessError } from "../../src/errors.js";
import { RpcLocalError } from "../../src/rpc/errors.js";
import { repoRoot } from "../support/paths.js";

let scratch: string;

before(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "codex-harness-bad-"));
});

after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** Runs `start` and returns its error and how long it took to fail. */
async function failure(start: () => Promise<unknown>): Promise<{ error: Error; ms: number }> {
  const began = Date.now();
  try {
    await start();
  } catch (error) {
    return { error: error as Error, ms: Date.now() - began };
  }
  assert.fail("expected the start to fail");
}

describe("bad input gives one clear error, never a hang", () => {
  it("a codex path that does not exist", async () => {
    const { error } = await failure(() =>
      AppServerClient.start({ codexPathOverride: path.join(scratch, "nope", "codex") }),
    );
    assert.ok(error instanceof CodexHarnessError);
    assert.equal(error.code, "codex_not_found");
    assert.match(error.message, /codexPathOverride/);
  });

  it("a codex path from the environment variable that does not exist", async () => {
    const { error } = await failure(() =>
      AppServerClient.start({ env: { [CODEX_PATH_ENV]: "/no/such/codex", PATH: "/usr/bin" } }),
    );
    assert.ok(error instanceof CodexHarnessError);
    assert.match(error.message, new RegExp(CODEX_PATH_ENV));
  });

  it("a file that is not executable", async () => {
    const file = path.join(scratch, "not-executable");
    await writeFile(file, "just text\n", { mode: 0o644 });
    const { error } = await failure(() => AppServerClient.start({ codexPathOverride: file }));
    assert.ok(error instanceof RpcLocalError);
    assert.equal(error.code, "spawn_failed");
    assert.match(error.message, /EACCES/);
    assert.match(error.message, /codex-harness doctor/);
  });

  it("a binary that is not codex and exits", async () => {
    const { error, ms } = await failure(() =>
      AppServerClient.start({ codexPathOverride: "/bin/true" }),
    );
    assert.ok(error instanceof AppServerExitedError);
    assert.equal(error.exitCode, 0);
    assert.match(error.message, /exited before answering initialize/);
    assert.match(error.message, /Is it a codex binary\?/);
    assert.ok(ms < 5_000, `took ${ms} ms`);
  });

  it("a binary that closed its input: its exit is waited for, not only the write it broke", async () => {
    // The write of initialize hits EPIPE at once; the exit comes later (a loaded machine took
    // over 200 ms to report `/bin/true`'s, and the error then said only "write EPIPE").
    const script = path.join(scratch, "closes-input");
    await writeFile(script, "#!/bin/sh\nexec 0<&-\nsleep 0.6\nexit 3\n", { mode: 0o755 });
    const link = await spawnLink({ codexPathOverride: script });
    const broken = new RpcLocalError("write_failed", "Cannot write to codex: write EPIPE");
    const error = await link.explainStartFailure(broken);
    assert.ok(error instanceof AppServerExitedError, `got ${String(error)}`);
    assert.equal(error.exitCode, 3);
    assert.match(error.message, /exited before answering initialize/);
    await link.transport.close();
  });

  it("a binary that is not codex and never answers", async () => {
    const { error, ms } = await failure(() =>
      AppServerClient.start({
        codexPathOverride: path.join(repoRoot, "test/fixtures/silent-server.mjs"),
        initializeTimeoutMs: 300,
        closeGraceMs: 200,
      }),
    );
    assert.ok(error instanceof RpcLocalError);
    assert.equal(error.code, "timeout");
    assert.match(error.message, /did not answer initialize in time/);
    assert.ok(ms < 3_000, `took ${ms} ms`);
  });

  it("a CODEX_HOME that cannot be created", async () => {
    const file = path.join(scratch, "a-file");
    await writeFile(file, "");
    const { error } = await failure(() =>
      AppServerClient.start({ codexHome: path.join(file, "home") }),
    );
    assert.ok(error instanceof CodexHarnessError);
    assert.equal(error.code, "codex_home_unavailable");
    assert.match(error.message, /Pick a folder you can write to/);
  });

  it("a config codex refuses: approval_policy = untrusted", async () => {
    const { error, ms } = await failure(() =>
      AppServerClient.start({
        codexHome: path.join(scratch, "home-untrusted"),
        config: { approval_policy: "untrusted" },
      }),
    );
    assert.ok(error instanceof AppServerExitedError);
    assert.equal(error.exitCode, 1);
    assert.match(error.message, /approval_policy = "untrusted" is no longer supported/);
    assert.ok(!/\d+: <unknown>/.test(error.message), "backtrace noise is left out");
    assert.ok(ms < 10_000, `took ${ms} ms`);
  });

  it("config values TOML cannot hold", async () => {
    const { error } = await failure(() =>
      AppServerClient.start({ config: { model_reasoning_effort: Number.POSITIVE_INFINITY } }),
    );
    assert.ok(error instanceof CodexHarnessError);
    assert.equal(error.code, "invalid_config");
  });
});
