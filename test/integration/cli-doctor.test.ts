import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import type { DoctorCheck } from "../../src/cli/doctor.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { repoRoot } from "../support/paths.js";
import { PINNED_CODEX_VERSION } from "../support/pinned-codex.js";

const run = promisify(execFile);
const bin = path.join(repoRoot, "bin/codex-harness.js");

async function doctor(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bin, "doctor", ...args], {
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("codex-harness doctor", () => {
  it("reports the bundled binary, the pinned version, a working app-server and the login", async () => {
    const home = await mkdtemp(path.join(tmpdir(), "codex-harness-doctor-"));
    const model = await ScriptedModel.start({ responses: [] });
    try {
      // A provider that needs no OpenAI login (the scripted one).
      await model.writeCodexHome(home);
      const { code, stdout } = await doctor(["--codex-home", home, "--json"]);
      assert.equal(code, 0, stdout);
      const checks = JSON.parse(stdout) as DoctorCheck[];
      assert.deepEqual(
        checks.map((check) => [check.name, check.ok]),
        [
          ["codex binary", true],
          ["version", true],
          ["app-server", true],
          ["login", true],
          ["provider", true],
        ],
      );
      assert.match(checks[3]?.detail ?? "", /needs no OpenAI login/);
      assert.match(
        checks[4]?.detail ?? "",
        new RegExp(`answers at ${model.url}.* \\(HTTP \\d+\\)`),
      );
      assert.match(checks[0]?.detail ?? "", /bundled @openai\/codex/);
      assert.equal(checks[1]?.detail, `codex ${PINNED_CODEX_VERSION} (the pinned version)`);
      assert.match(checks[2]?.detail ?? "", /answered initialize in \d+ ms/);
      assert.ok(checks[2]?.detail.includes(home));
    } finally {
      await model.close();
      await rm(home, { recursive: true, force: true });
    }
  });

  it("says when codex is not logged in, what to do, and exits 1 (not ready)", async () => {
    const home = await mkdtemp(path.join(tmpdir(), "codex-harness-doctor-"));
    try {
      const { code, stdout } = await doctor(["--codex-home", home]);
      assert.equal(code, 1, stdout);
      assert.match(stdout, /✓ app-server: answered initialize/);
      assert.match(stdout, /✗ login: not logged in, .*`codex login`/);
      assert.doesNotMatch(stdout, /ready/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it("says when the configured provider does not answer, and exits 1 (not ready)", async () => {
    const home = await mkdtemp(path.join(tmpdir(), "codex-harness-doctor-"));
    const model = await ScriptedModel.start({ responses: [] });
    try {
      await model.writeCodexHome(home);
      await model.close(); // Nothing listens there any more.
      const { code, stdout } = await doctor(["--codex-home", home]);
      assert.equal(code, 1, stdout);
      assert.match(stdout, /✓ login: /);
      assert.match(
        stdout,
        new RegExp(`✗ provider: cannot reach \\S+ at ${model.url} \\(ECONNREFUSED\\).*base_url`),
      );
      assert.doesNotMatch(stdout, /ready/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it("says what is wrong, and exits 1, for a binary that is not codex", async () => {
    const { code, stdout } = await doctor(["--codex-path", "/bin/true"]);
    assert.equal(code, 1);
    assert.match(stdout, /✓ codex binary: \/bin\/true \(from --codex-path\)/);
    assert.match(stdout, /✗ version: .*not a codex version/);
    assert.match(stdout, /✗ app-server: .*exited before answering initialize/);
    assert.match(stdout, /2 check\(s\) failed\./);
  });

  it("refuses a path that does not exist, naming the flag, before checking anything", async () => {
    const { code, stdout, stderr } = await doctor(["--codex-path", "/no/such/codex"]);
    assert.equal(code, 1);
    assert.equal(stdout, "");
    assert.match(
      stderr,
      /--codex-path <path>' argument '\/no\/such\/codex' is invalid.*not a file/,
    );
    assert.doesNotMatch(stderr, /codexPathOverride/);
  });
});
