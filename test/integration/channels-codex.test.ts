import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { ChannelsClient } from "../../src/channels/client.js";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import type { Interaction, InteractionStatus } from "../../src/channels/interaction-types.js";
import { withProgressUpdates } from "../../src/channels/progress.js";
import { execCommand, reply, response } from "../../src/testing/script.js";
import { askColor, runTurn, startCodexAsking } from "../support/chat-backends.js";
import { runCli } from "../support/cli.js";
import { type CodexApiFixture, startCodexApi } from "../support/codex-api-fixture.js";
import { eventually } from "../support/eventually.js";

let fixture: CodexApiFixture | undefined;
let server: ChannelsServer | undefined;
const dirs: string[] = [];

afterEach(async () => {
  await fixture?.close();
  await server?.close();
  fixture = undefined;
  server = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "codex-harness-channels-"));
  dirs.push(dir);
  return dir;
}

/** The first interaction with one of `statuses`, once the runtime has one. */
function waitForInteraction(
  client: ChannelsClient,
  statuses: InteractionStatus[],
): Promise<Interaction> {
  return eventually(
    `a ${statuses.join("/")} interaction`,
    async () => (await client.list({ status: statuses }))[0],
  );
}

describe("channels with the real codex (ScriptedModel)", () => {
  it("a question answered with the CLI reaches the model's next request", async () => {
    server = await startChannelsServer({ dataDir: dataDir(), port: 0 });
    const { url, token } = server;
    fixture = await startCodexAsking({ url, token }, [askColor(), reply("Blue it is.")]);
    const turn = runTurn(fixture, "pick one");
    const client = new ChannelsClient({ url, token });
    const asked = await waitForInteraction(client, ["pending"]);
    assert.equal(asked.kind, "user_input_request");
    assert.equal(asked.title, "Which color?");
    assert.match(asked.codex?.threadId ?? "", /^[0-9a-f-]{36}$/);

    const shown = await runCli(["interactions", "--url", url, "--token", token, "show", asked.id]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /\? (?:[^\n]*: )?Which color\?\n {4}- blue[^\n]*\n {4}- red/);
    const answered = await runCli([
      "interactions",
      "--url",
      url,
      "--token",
      token,
      "respond",
      asked.id,
      "--text",
      "blue",
    ]);
    assert.equal(answered.code, 0, answered.stderr);
    assert.match(answered.stdout, /resolved/);

    const result = await turn;
    assert.equal(result.finalResponse, "Blue it is.");
    assert.match(fixture.model.toolOutput("q1")?.output ?? "", /blue/);
    const stored = await client.get(asked.id);
    assert.equal(stored.status, "resolved");
    assert.equal(stored.response?.metadata?.via, "cli");
  });

  it("a command approval answered through the API runs the command", async () => {
    server = await startChannelsServer({ dataDir: dataDir(), port: 0 });
    const { url, token } = server;
    fixture = await startCodexAsking({ url, token, source: "ci-bot", project: "shop" }, [
      execCommand("echo yes > approved.txt", { escalated: true, justification: "write it" }),
      reply("ok"),
    ]);
    const turn = runTurn(fixture, "go");
    const client = new ChannelsClient({ url, token });
    const asked = await waitForInteraction(client, ["pending"]);
    assert.equal(asked.kind, "approval_request");
    assert.deepEqual(asked.source, { name: "ci-bot", project: "shop" }, "where it comes from");
    assert.match(String(asked.payload.command), /approved\.txt/);
    assert.equal(asked.payload.reason, "write it");
    await client.respond(asked.id, { action: "accept" });
    await turn;
    assert.ok(existsSync(path.join(fixture.workdir, "approved.txt")));
  });

  it("codex clearing the request (turn interrupted) marks the interaction cancelled", async () => {
    server = await startChannelsServer({ dataDir: dataDir(), port: 0 });
    const { url, token } = server;
    fixture = await startCodexAsking({ url, token }, [
      execCommand("echo no > never.txt", { escalated: true }),
      response(reply("unused"), { delayMs: 5_000 }),
    ]);
    const abort = new AbortController();
    const turn = fixture.codex
      .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
      .run("go", { signal: abort.signal });
    const client = new ChannelsClient({ url, token });
    const asked = await waitForInteraction(client, ["pending"]);
    abort.abort();
    await assert.rejects(turn, { name: "AbortError", code: "ABORT_ERR" });
    const ended = await client.get(asked.id, { waitMs: 10_000 });
    assert.equal(ended.status, "cancelled");
    assert.equal(ended.end?.reason, "cleared");
    assert.equal(existsSync(path.join(fixture.workdir, "never.txt")), false);
  });

  for (const mode of ["extended", "sdk"] as const) {
    it(`progress updates (opt-in): a turn's start, command, message and end, resolved when it ends (events: ${mode})`, async () => {
      server = await startChannelsServer({ dataDir: dataDir(), port: 0 });
      const { url, token } = server;
      fixture = await startCodexApi(
        "app-server",
        [execCommand("echo progress"), reply("All done.")],
        {
          config: { sandbox_mode: "danger-full-access", approval_policy: "never" },
        },
      );
      const { events } = await fixture.codex
        .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true, events: mode })
        .runStreamed("go");
      const seen: string[] = [];
      for await (const event of withProgressUpdates(events, { url, token })) seen.push(event.type);
      assert.equal(seen.at(-1), "turn.completed", "events pass through");
      const updates = await new ChannelsClient({ url, token }).list({ kind: ["progress_update"] });
      const titles = updates.map((update) => update.title).reverse();
      assert.equal(titles[0], "Turn started");
      assert.ok(
        titles.some((title) => /^Ran .*echo progress.* \(completed, exit 0\)$/.test(title)),
        titles.join(" | "),
      );
      assert.ok(titles.includes("Said: All done."), titles.join(" | "));
      assert.equal(titles.at(-1), "Turn completed");
      assert.ok(updates.every((update) => update.status === "resolved" && update.codex?.threadId));
    });
  }

  it("survives a runtime restart: a pending approval answered after it reaches codex", async () => {
    const dir = dataDir();
    server = await startChannelsServer({ dataDir: dir, port: 0 });
    const { url, token } = server;
    const port = Number(new URL(url).port);
    fixture = await startCodexAsking({ url, token }, [
      execCommand("echo yes > after-restart.txt", { escalated: true }),
      reply("ok"),
    ]);
    const turn = runTurn(fixture, "go");
    const asked = await waitForInteraction(new ChannelsClient({ url, token }), ["pending"]);
    await server.close();
    server = await startChannelsServer({ dataDir: dir, port });
    assert.equal(server.token, token);
    const client = new ChannelsClient({ url: server.url, token });
    assert.equal((await client.get(asked.id)).status, "pending");
    await client.respond(asked.id, { action: "accept", values: { scope: "session" } });
    await turn;
    assert.ok(existsSync(path.join(fixture.workdir, "after-restart.txt")));
  });
});
