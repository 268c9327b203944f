// Unit tests of finding codex: a bare command name looked up on the PATH codex gets, as spawn would.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { CODEX_PATH_ENV, findCodexBinary } from "../../src/app-server/codex-binary.js";
import { CodexHarnessError } from "../../src/errors.js";

const root = mkdtempSync(path.join(tmpdir(), "codex-harness-binary-"));
after(() => rmSync(root, { recursive: true, force: true }));

const real = findCodexBinary().executablePath;
const bin = path.join(root, "bin");
const other = path.join(root, "other");
mkdirSync(bin);
mkdirSync(other);
symlinkSync(real, path.join(bin, "codex"));
writeFileSync(path.join(other, "codex"), "not executable\n", { mode: 0o644 });

const notFound = (pattern: RegExp) => (error: unknown) =>
  error instanceof CodexHarnessError &&
  error.code === "codex_not_found" &&
  pattern.test(error.message);

describe("findCodexBinary with a bare command name", () => {
  it("finds it on the PATH of the env codex will get, skipping files that are not executable", () => {
    const found = findCodexBinary({
      codexPathOverride: "codex",
      env: { PATH: [other, bin].join(path.delimiter) },
    });
    assert.deepEqual(found, {
      executablePath: path.join(bin, "codex"),
      pathDirs: [],
      source: "option",
    });
  });

  it("takes the name from CODEX_HARNESS_CODEX_PATH the same way", () => {
    const found = findCodexBinary({ env: { [CODEX_PATH_ENV]: "codex", PATH: bin } });
    assert.equal(found.executablePath, path.join(bin, "codex"));
    assert.equal(found.source, "env");
  });

  it("falls back to this process's PATH when the env has none", () => {
    const found = findCodexBinary({ codexPathOverride: path.basename(process.execPath), env: {} });
    assert.equal(path.basename(found.executablePath), path.basename(process.execPath));
    assert.ok(path.isAbsolute(found.executablePath));
  });

  it("says which PATH it searched when the command is not there", () => {
    assert.throws(
      () => findCodexBinary({ codexPathOverride: "codex", env: { PATH: other } }),
      notFound(
        new RegExp(
          `No "codex" command \\(given by the codexPathOverride option\\) on the PATH codex would run with \\(${other}\\)`,
        ),
      ),
    );
  });

  it("keeps taking a path with a folder as a path", () => {
    assert.equal(
      findCodexBinary({ codexPathOverride: path.join(bin, "codex") }).executablePath,
      path.join(bin, "codex"),
    );
    assert.throws(
      () => findCodexBinary({ codexPathOverride: "./codex", env: { PATH: bin } }),
      notFound(/does not exist or is not a file/),
    );
  });
});
