import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
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
        new RegExp(
          `✗ provider: cannot reach \\S+ at ${model.url} \\(ECONNREFUSED\\).*a server on this machine: start it`,
        ),
      );
      assert.doesNotMatch(stdout, /ready/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it("--target checks a target's codex home: the example's offline target, its model running", async () => {
    const project = await mkdtemp(path.join(tmpdir(), "codex-harness-doctor-project-"));
    const model = await ScriptedModel.start({ responses: [] });
    try {
      await cp(path.join(repoRoot, "examples", "spaces-project"), project, { recursive: true });
      // The offline space names scripted-model's port (4545); this test's model listens elsewhere.
      const space = path.join(project, "spaces", "offline-model", "space.toml");
      await writeFile(
        space,
        (await readFile(space, "utf8")).replace("127.0.0.1:4545", new URL(model.url).host),
      );
      const { code, stdout } = await doctor(["--target", "offline", "--project", project]);
      assert.equal(code, 0, stdout);
      assert.match(stdout, /CODEX_HOME \S*asp_modules\/offline\/codex\/codex\.home/);
      assert.match(stdout, /✓ provider: scripted answers at/);
      assert.match(stdout, /codex-harness is ready\./);
      const both = await doctor(["--target", "offline", "--codex-home", project]);
      assert.equal(both.code, 1);
      assert.match(both.stderr, /--target and --codex-home both say which codex home/);
    } finally {
      await model.close();
      await rm(project, { recursive: true, force: true });
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
