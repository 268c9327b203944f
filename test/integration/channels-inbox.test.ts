// The web inbox in a real headless Chromium (Debian's `chromium`, driven by playwright-core).
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, it } from "node:test";
import { channelsApprovals } from "../../src/channels/bridge.js";
import { ChannelsClient } from "../../src/channels/client.js";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import { withProgressUpdates } from "../../src/channels/progress.js";
import { applyPatch, execCommand, reply, requestUserInput } from "../../src/testing/script.js";
import { chromiumMissing, useChromium } from "../support/chromium.js";
import { type CodexApiFixture, startCodexApi } from "../support/codex-api-fixture.js";

const missing = chromiumMissing;

const browser = useChromium();
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

async function startRuntime(): Promise<ChannelsServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "codex-harness-inbox-"));
  dirs.push(dir);
  server = await startChannelsServer({ dataDir: dir, port: 0 });
  return server;
}

describe("web inbox (headless Chromium, real codex)", { skip: missing }, () => {
  it("a command approval answered from the inbox reaches codex; then it is history", async () => {
    const runtime = await startRuntime();
    const { url, token } = runtime;
    fixture = await startCodexApi(
      "app-server",
      [
        execCommand("echo from-inbox > inbox.txt", {
          escalated: true,
          justification: "Write inbox.txt",
        }),
        reply("Wrote it."),
      ],
      { config: {}, codex: { approvals: channelsApprovals({ url, token }) } },
    );
    // Alice signs in with a token of her own: the answer is hers.
    const people = runtime.people;
    assert.ok(people);
    await people.add({ id: "alice", name: "Alice" });
    const alice = await people.issueToken("alice", "read,answer");
    const page = await browser().newPage();
    try {
      await page.goto(`${url}/#token=${encodeURIComponent(alice.token)}`);
      await page.waitForSelector("#connection:text('live')");
      assert.equal(new URL(page.url()).hash, "", "the token leaves the address bar");
      assert.equal(await page.locator("#signed-in").textContent(), "Signed in as Alice (alice).");
      assert.equal(await page.locator("#name").isVisible(), false, "no name to type: it is hers");
      const turn = fixture.codex
        .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
        .run("go");
      const card = page.locator("#pending article.approval_request");
      await card.waitFor({ timeout: 20_000 });
      assert.match(
        String(await card.locator("pre.command").textContent()),
        /echo from-inbox > inbox\.txt/,
      );
      assert.equal(await card.locator("h3").textContent(), "Run echo from-inbox > inbox.txt");
      assert.match(
        String(await page.locator("#pending .group-head").textContent()),
        new RegExp(`codex-harness.*${fixture.workdir}.*thread …`),
      );
      assert.equal(String(await card.locator(".cwd code").textContent()), fixture.workdir);
      assert.equal(String(await card.locator(".reason").textContent()), "Write inbox.txt");
      // Shown to a person: the runtime marks it delivered.
      const client = new ChannelsClient({ url, token });
      const id = (await card.getAttribute("data-id")) as string;
      assert.equal((await client.get(id)).status, "delivered");

      await card.getByRole("button", { name: "Accept", exact: true }).click();
      const result = await turn;
      assert.equal(result.finalResponse, "Wrote it.");
      assert.ok(existsSync(path.join(fixture.workdir, "inbox.txt")));
      // The model's next request carries the command's output.
      assert.match(
        JSON.stringify(fixture.model.lastRequest?.body),
        /exit code|from-inbox|Exit code/i,
      );
      const done = page.locator(`#history article[data-id="${id}"]`);
      await done.waitFor();
      assert.match(
        String(await done.locator(".outcome").textContent()),
        /^Accepted by Alice, \d\d:\d\d$/,
      );
      assert.equal(await page.locator("#pending article").count(), 0);
      const stored = await client.get(id);
      assert.equal(stored.response?.metadata?.via, "web-inbox");
      assert.equal(stored.response?.answeredBy, "alice");
    } finally {
      await page.close();
    }
  });

  it("the history says how a command accepted from the inbox ended (with progress updates)", async () => {
    const runtime = await startRuntime();
    const { url, token } = runtime;
    fixture = await startCodexApi(
      "app-server",
      [
        execCommand("echo ran-it; exit 3", { escalated: true, justification: "Try it" }),
        reply("It failed."),
      ],
      { config: {}, codex: { approvals: channelsApprovals({ url, token }) } },
    );
    const page = await browser().newPage();
    try {
      await page.goto(runtime.inboxUrl);
      await page.waitForSelector("#connection:text('live')");
      const { events } = await fixture.codex
        .startThread({
          workingDirectory: fixture.workdir,
          skipGitRepoCheck: true,
          events: "extended",
        })
        .runStreamed("go");
      const seen: string[] = [];
      const drained = (async () => {
        for await (const event of withProgressUpdates(events, { url, token }))
          seen.push(event.type);
      })();
      const card = page.locator("#pending article.approval_request");
      await card.waitFor({ timeout: 20_000 });
      assert.equal(await card.locator("h3").textContent(), "Run echo ran-it; exit 3");
      const id = (await card.getAttribute("data-id")) as string;
      await card.getByRole("button", { name: "Accept", exact: true }).click();
      await drained;
      assert.equal(seen.at(-1), "turn.completed");
      const done = page.locator(`#history article[data-id="${id}"]`);
      await done.locator(".item-end").waitFor({ timeout: 10_000 });
      assert.match(
        String(await done.locator(".outcome").textContent()),
        /^Accepted by admin, \d\d:\d\d$/,
      );
      assert.equal(await done.locator(".item-end").textContent(), "The command failed (exit 3)");
    } finally {
      await page.close();
    }
  });

  it("colours a file change's diff and answers a question by clicking its option", async () => {
    const runtime = await startRuntime();
    const { url, token } = runtime;
    fixture = await startCodexApi(
      "app-server",
      [
        applyPatch("*** Update File: notes.md\n@@\n # Notes\n-old line\n+# Notes from the inbox"),
        requestUserInput(
          [
            {
              id: "tone",
              header: "Tone",
              question: "How formal?",
              options: [
                { label: "casual", description: "relaxed" },
                { label: "formal", description: "stiff" },
              ],
            },
          ],
          { callId: "q1" },
        ),
        reply("Done."),
      ],
      { config: {}, codex: { approvals: channelsApprovals({ url, token }) } },
    );
    writeFileSync(path.join(fixture.workdir, "notes.md"), "# Notes\nold line\n");
    const page = await browser().newPage();
    try {
      await page.goto(runtime.inboxUrl);
      await page.waitForSelector("#connection:text('live')");
      const turn = fixture.codex
        .startThread({ workingDirectory: fixture.workdir, skipGitRepoCheck: true })
        .run("go");
      const change = page.locator("#pending article.approval_request");
      await change.waitFor({ timeout: 20_000 });
      // codex's own unified diff, each line coloured by what it does.
      assert.match(String(await change.locator("p.change").textContent()), /^update .*notes\.md$/);
      const diff = change.locator("pre.diff");
      assert.deepEqual(await diff.locator(".add").allTextContents(), ["+# Notes from the inbox"]);
      assert.deepEqual(await diff.locator(".del").allTextContents(), ["-old line"]);
      assert.equal(await diff.locator(".hunk").count(), 1);
      await change.getByRole("button", { name: "Accept for this session" }).click();
      const question = page.locator("#pending article.user_input_request");
      await question.waitFor({ timeout: 20_000 });
      await question.getByRole("button", { name: "formal — stiff" }).click();
      const result = await turn;
      assert.equal(result.finalResponse, "Done.");
      assert.match(fixture.model.toolOutput("q1")?.output ?? "", /formal/);
      assert.match(readFileSync(path.join(fixture.workdir, "notes.md"), "utf8"), /from the inbox/);
      // Answered, the question keeps its options with the chosen one marked.
      const answered = page.locator("#history article.user_input_request");
      await answered.waitFor();
      assert.equal(await answered.locator("li.option.chosen").textContent(), "✓ formal — stiff");
    } finally {
      await page.close();
    }
  });

  it("without a token the page asks for one and refuses a wrong one", async () => {
    const runtime = await startRuntime();
    const page = await browser().newPage();
    try {
      await page.goto(`${runtime.url}/`);
      await page.locator("#login").waitFor();
      await page.fill("#token", "wrong-token");
      await page.click("#login button");
      await page.locator("#error:text('refused')").waitFor();
      await page.fill("#token", runtime.token);
      await page.click("#login button");
      await page.waitForSelector("#connection:text('live')");
      assert.equal(await page.locator("#login").isHidden(), true);
    } finally {
      await page.close();
    }
  });
});
