// `codex-harness login` and `logout` on the real codex, offline: an API key from stdin (doctor
// then finds the login), a browser login that prints its address and times out, logout.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { runCli } from "../support/cli.js";

const homes: string[] = [];
after(() => Promise.all(homes.map((home) => rm(home, { recursive: true, force: true }))));

async function emptyHome(): Promise<string> {
  const home = await mkdtemp(path.join(tmpdir(), "codex-harness-cli-login-"));
  homes.push(home);
  return home;
}

/** doctor's login check for `home`. */
async function loginCheck(home: string): Promise<{ ok: boolean; detail: string } | undefined> {
  const { stdout } = await runCli(["doctor", "--codex-home", home, "--json"]);
  const checks = JSON.parse(stdout) as { name: string; ok: boolean; detail: string }[];
  return checks.find((check) => check.name === "login");
}

describe("codex-harness login / logout (real codex)", () => {
  it("--api-key-stdin logs in (doctor sees it); logout logs out", async () => {
    const home = await emptyHome();
    assert.equal((await loginCheck(home))?.ok, false, "nobody logged in at first");
    const login = await runCli(["login", "--api-key-stdin", "--codex-home", home], {
      input: "sk-test-cli-login\n",
    });
    assert.equal(login.code, 0, login.stderr);
    assert.equal(login.stdout.trim(), "Logged in with an API key.");
    assert.doesNotMatch(login.stdout + login.stderr, /sk-test-cli-login/, "the key is never shown");
    const check = await loginCheck(home);
    assert.equal(check?.ok, true, check?.detail);
    const logout = await runCli(["logout", "--codex-home", home]);
    assert.equal(logout.code, 0, logout.stderr);
    assert.equal(logout.stdout.trim(), "Logged out.");
    assert.equal((await loginCheck(home))?.ok, false);
  });

  it("a browser login prints the address to open; unfinished, it ends at --timeout with exit 1", async () => {
    const home = await emptyHome();
    const started = Date.now();
    const login = await runCli(["login", "--codex-home", home, "--timeout", "1"]);
    assert.equal(login.code, 1);
    assert.match(login.stdout, /^Open this address to log in: https:\/\/auth\.openai\.com\//);
    assert.match(login.stderr, /^error: The login was not completed within 1000 ms/);
    assert.ok(Date.now() - started < 20_000);
  });

  it("bad input: nothing on stdin, or two ways at once, is one clear error", async () => {
    const home = await emptyHome();
    const empty = await runCli(["login", "--api-key-stdin", "--codex-home", home], { input: "" });
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /--api-key-stdin read nothing/);
    const both = await runCli(["login", "--device-code", "--api-key-stdin", "--codex-home", home]);
    assert.equal(both.code, 1);
    assert.match(both.stderr, /not both/);
  });
});
