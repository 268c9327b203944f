import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { ChannelsClient } from "../../src/channels/client.js";
import { startChannelsServer } from "../../src/channels/http-server.js";
import { execCommand, reply } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";
import { bin, runCli, startCli } from "../support/cli.js";
import { EVERY_FIELD, NESTED_UNKNOWN, textsOf } from "../support/deep-requests.js";
import { eventually } from "../support/eventually.js";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Starts `codex-harness serve` and resolves once it printed its URL and token lines. */
function serve(
  dataDir: string,
): Promise<{ url: string; lines: string[]; stop(): Promise<number | null> }> {
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", "--data-dir", dataDir], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed: ${out}`)), 20_000);
    child.on("error", reject);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url && /token/.test(out)) {
        clearTimeout(timer);
        resolve({
          url,
          lines: out.trim().split("\n"),
          stop: () =>
            new Promise((done) => {
              child.on("exit", (code) => done(code));
              child.kill("SIGTERM");
            }),
        });
      }
    });
  });
}

describe("codex-harness serve / interactions", () => {
  it("answers a 5 MiB body with its 413, not a connection closed under the sender", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "codex-harness-serve-big-"));
    dirs.push(dataDir);
    const served = await serve(dataDir);
    const token = /token \(printed once; saved in .*\): (\S+)/.exec(served.lines.join("\n"))?.[1];
    const body = JSON.stringify({ blob: "x".repeat(5 * 1024 * 1024) });
    const answers: string[] = [];
    try {
      for (let attempt = 0; attempt < 12; attempt++) {
        const response = await fetch(`${served.url}/v1/interactions`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body,
        }).catch(
          (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
        );
        if (typeof response === "string") answers.push(response);
        else {
          const { error } = (await response.json()) as { error: { code: string } };
          answers.push(`${response.status} ${error.code}`);
        }
      }
    } finally {
      await served.stop();
    }
    assert.deepEqual(answers, Array(12).fill("413 too_large"));
  });

  it("prints the token once, keeps it 0600, and the CLI lists, answers and cancels", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "codex-harness-serve-"));
    dirs.push(dataDir);
    const first = await serve(dataDir);
    const token = /token \(printed once; saved in .*\): (\S+)/.exec(first.lines.join("\n"))?.[1];
    assert.ok(token, first.lines.join("\n"));
    assert.equal(statSync(path.join(dataDir, "token")).mode & 0o777, 0o600);
    assert.equal((await fetch(`${first.url}/healthz`)).status, 200);
    assert.equal(await first.stop(), 0);

    const second = await serve(dataDir);
    assert.doesNotMatch(second.lines.join("\n"), new RegExp(token));
    const client = new ChannelsClient({ url: second.url, token });
    const one = await client.create({
      kind: "approval_request",
      source: { name: "test" },
      title: "Run ls",
      payload: { command: "ls", cwd: "/tmp" },
    });
    const two = await client.create({
      kind: "approval_request",
      source: { name: "test" },
      title: "Run pwd",
      payload: { command: "pwd" },
    });
    // The CLI reads the token from --data-dir.
    const connect = ["interactions", "--url", second.url, "--data-dir", dataDir];
    const listed = await runCli([...connect, "list", "--status", "pending"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`${one.id} +pending +approval_request +Run ls`));
    const shown = await runCli([...connect, "show", one.id]);
    assert.match(shown.stdout, /\n {2}\$ ls\n {2}in \/tmp\n/);
    const accepted = await runCli([...connect, "respond", one.id, "--accept-session"]);
    assert.equal(accepted.code, 0, accepted.stderr);
    assert.deepEqual((await client.get(one.id)).response?.values, { scope: "session" });
    const again = await runCli([...connect, "respond", one.id, "--decline"]);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /already resolved; the first answer won/);
    const cancelled = await runCli([...connect, "cancel", two.id]);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    assert.equal((await client.get(two.id)).status, "cancelled");
    const twoFlags = await runCli([...connect, "respond", two.id, "--accept", "--decline"]);
    assert.notEqual(twoFlags.code, 0);
    assert.match(twoFlags.stderr, /exactly one of/);
    const noToken = await runCli(
      ["interactions", "--url", second.url, "--data-dir", os.tmpdir(), "list"],
      {
        env: { ...process.env, CODEX_HARNESS_TOKEN: "" },
      },
    );
    assert.notEqual(noToken.code, 0);
    assert.equal(await second.stop(), 0);
  });

  it("shows who may answer and where two approvals stand; a refused answer says why", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "codex-harness-serve-routing-"));
    dirs.push(dataDir);
    const server = await startChannelsServer({ dataDir, port: 0 });
    try {
      const people = server.people;
      assert.ok(people);
      await people.add({ id: "alice", name: "Alice", groups: ["release"] });
      await people.add({ id: "bob", name: "Bob" });
      const alice = await people.issueToken("alice", "read,answer");
      const bob = await people.issueToken("bob", "read,answer");
      await people.add({ id: "carol", name: "Carol" });
      const carol = await people.issueToken("carol", "read,answer");
      const asked = await server.runtime.create({
        kind: "approval_request",
        source: { name: "test" },
        payload: { kind: "command", command: "npm publish" },
        routing: { answer: ["group:release", "bob"], approvals: 2, rule: "publish" },
      });
      const as = (token: string, ...args: string[]) =>
        runCli(["interactions", "--url", server.url, "--token", token, ...args]);
      const accepted = await as(alice.token, "respond", asked.id, "--accept");
      assert.equal(accepted.code, 0, accepted.stderr);
      assert.match(accepted.stdout, /pending .* \(1 of 2 approvals \(Alice\)\)\n$/);
      const shown = await as(alice.token, "show", asked.id);
      assert.match(
        shown.stdout,
        /\n {2}who may answer: group:release, bob, 2 approvals \(rule publish\)\n/,
      );
      assert.match(
        shown.stdout,
        /\n {2}you may not answer: You approved it; it waits for someone else/,
      );
      const again = await as(alice.token, "respond", asked.id, "--accept");
      assert.notEqual(again.code, 0);
      assert.match(again.stderr, /alice has approved this request already/);
      const refused = await as(carol.token, "respond", asked.id, "--accept");
      assert.notEqual(refused.code, 0);
      assert.match(
        refused.stderr,
        /Only group:release, bob may answer this request, and carol is not/,
      );
      const done = await as(bob.token, "respond", asked.id, "--accept");
      assert.match(done.stdout, /resolved .* \(2 of 2 approvals \(Alice, Bob\)\)\n$/);
    } finally {
      await server.close();
    }
  });

  it("says Decline and Interrupt the turn, in the help and the commands", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "codex-harness-words-"));
    dirs.push(dataDir);
    const server = await startChannelsServer({ dataDir, port: 0 });
    try {
      const ask = (title: string) =>
        server.runtime.create({
          kind: "approval_request",
          source: { name: "test" },
          title,
          payload: { command: title },
        });
      const connect = ["interactions", "--url", server.url, "--token", server.token];
      const help = await runCli(["interactions", "--help"]);
      assert.match(help.stdout, /decline <id> +Decline: answer no/);
      assert.match(help.stdout, /interrupt the turn/);
      assert.doesNotMatch(help.stdout, /cancel/i);
      const respondHelp = await runCli(["interactions", "respond", "--help"]);
      assert.match(respondHelp.stdout, /--decline +Decline: answer no/);
      assert.match(respondHelp.stdout, /--interrupt +Interrupt the turn/);
      assert.doesNotMatch(respondHelp.stdout, /cancel/i);

      const declined = await ask("rm -rf build");
      const decline = await runCli([...connect, "decline", declined.id]);
      assert.equal(decline.code, 0, decline.stderr);
      const answer = (await server.runtime.get(declined.id)).response;
      assert.equal(answer?.action, "decline");
      // With the runtime's token the answer is by admin; the login name is only a claim.
      assert.equal(answer?.answeredBy, "admin");
      assert.equal(answer?.metadata?.claimedBy, os.userInfo().username);
      const shown = await runCli([...connect, "show", declined.id]);
      assert.match(shown.stdout, /answered: decline by admin at /);

      const interrupted = await ask("make deploy");
      const interrupt = await runCli([...connect, "respond", interrupted.id, "--interrupt"]);
      assert.equal(interrupt.code, 0, interrupt.stderr);
      assert.equal((await server.runtime.get(interrupted.id)).response?.action, "cancel");

      // The old words still work: `respond --cancel` interrupts, `cancel` withdraws and says
      // which word to use.
      const old = await ask("ls");
      const oldFlag = await runCli([...connect, "respond", old.id, "--cancel"]);
      assert.equal(oldFlag.code, 0, oldFlag.stderr);
      assert.equal((await server.runtime.get(old.id)).response?.action, "cancel");
      const withdrawn = await ask("pwd");
      const oldCommand = await runCli([...connect, "cancel", withdrawn.id]);
      assert.equal(oldCommand.code, 0, oldCommand.stderr);
      assert.match(oldCommand.stderr, /deprecated.*interactions decline <id>.*--interrupt/);
      assert.equal((await server.runtime.get(withdrawn.id)).status, "cancelled");
    } finally {
      await server.close();
    }
  });
});

describe("codex-harness interactions show", () => {
  it("prints every field of a request at every depth, nested fields nobody knows included", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "codex-harness-show-"));
    dirs.push(dataDir);
    const server = await startChannelsServer({ dataDir, port: 0 });
    try {
      const connect = ["interactions", "--url", server.url, "--token", server.token];
      for (const request of [...NESTED_UNKNOWN, ...EVERY_FIELD]) {
        const { id } = await server.runtime.create({
          kind: request.kind,
          source: { name: "test" },
          title: request.name,
          payload: request.payload,
        });
        const shown = await runCli([...connect, "show", id]);
        assert.equal(shown.code, 0, shown.stderr);
        for (const text of textsOf(request)) {
          assert.ok(shown.stdout.includes(text), `${request.name}: show hides ${text}`);
        }
      }
    } finally {
      await server.close();
    }
  });
});

describe("codex-harness run --channels", () => {
  it("sends the turn's approvals to the runtime: answered there, the command runs", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "codex-harness-run-channels-"));
    dirs.push(root);
    const server = await startChannelsServer({ dataDir: path.join(root, "data"), port: 0 });
    const model = await ScriptedModel.start({
      responses: [execCommand("echo asked > asked.txt", { escalated: true }), reply("Done.")],
    });
    try {
      const home = path.join(root, "home");
      await model.writeCodexHome(home);
      const work = path.join(root, "work");
      mkdirSync(work);
      const run = startCli(
        [
          "run",
          "go",
          "--cd",
          work,
          "--skip-git-repo-check",
          "--channels",
          server.url,
          "--channels-token-file",
          server.tokenFile,
        ],
        { ...process.env, CODEX_HOME: home, CODEX_HARNESS_TOKEN: "" },
      );
      const person = new ChannelsClient({ url: server.url, token: server.token });
      const asked = await eventually(
        "the approval in the runtime",
        async () => (await person.list({ status: ["pending", "delivered"] }))[0],
      );
      assert.equal(asked.source.name, "codex-harness run");
      assert.match(String(asked.payload.command), /asked\.txt/);
      await person.respond(asked.id, { action: "accept" });
      assert.equal(await run.closed, 0, run.output.stdout + run.output.stderr);
      assert.equal(readFileSync(path.join(work, "asked.txt"), "utf8"), "asked\n");
      assert.doesNotMatch(run.output.stdout, /\[y\/N\]/, "nobody was asked here");
      const missing = await runCli(["run", "go", "--channels", server.url], {
        env: { ...process.env, CODEX_HARNESS_TOKEN: "" },
      });
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /--channels needs the runtime's token/);
    } finally {
      await model.close();
      await server.close();
    }
  });
});
