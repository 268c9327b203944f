// An inbox people keep open (real Chromium, the real runtime over HTTP): requests grouped by the
// agent asking, short titles over wrapped commands, coloured diffs, questions as buttons, the
// history in words, a login that says nothing before it, phone width, the tab's count and
// notifications, keyboard shortcuts, and the words Decline / Interrupt the turn.
// With CODEX_HARNESS_SCREENSHOTS=1 the tests also save the README's screenshots (docs/screenshots/).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, afterEach, describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import type { InteractionInput } from "../../src/channels/interaction-types.js";
import type { Identity } from "../../src/channels/people-types.js";
import { chromiumMissing, screenshot, useChromium } from "../support/chromium.js";

const browser = useChromium();
const dirs: string[] = [];
let server: ChannelsServer | undefined;
let page: Page | undefined;

afterEach(async () => {
  await page?.close();
  await server?.close();
  page = undefined;
  server = undefined;
});
after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const PHONE = { width: 375, height: 812 };
const DESKTOP = { width: 960, height: 800 };
const LONG_COMMAND = `/bin/bash -lc 'npm run build && node --test --test-concurrency=1 ${"build/test/integration/channels-inbox-people-and-a-rather-long-name.test.js ".repeat(3)}&& rsync -av --delete ./build/ deploy@staging.example.com:/srv/codex-harness/releases/2026-11-22T17:12:57Z/'`;
const DIFF = [
  "--- a/src/greeting.ts",
  "+++ b/src/greeting.ts",
  "@@ -1,4 +1,4 @@",
  " export function greet(name: string): string {",
  '-  return "Hello " + name;',
  '+  return "Hello, " + name + "!";',
  " }",
  "+// <img src=x onerror=\"document.title='pwned'\">",
].join("\n");

/** Someone an in-process caller answers as (the runtime takes its word: it is the runtime's). */
const person = (id: string): Identity => ({
  kind: "person",
  id,
  name: id,
  groups: [],
  scopes: ["answer"],
});

async function startRuntime(): Promise<ChannelsServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "inbox-people-"));
  dirs.push(dir);
  server = await startChannelsServer({ dataDir: dir, port: 0 });
  return server;
}

/** Opens the inbox (logged in unless `login: false`) and waits for its live stream. */
async function openInbox(
  runtime: ChannelsServer,
  options: { viewport?: { width: number; height: number }; login?: boolean; init?: string } = {},
): Promise<Page> {
  page = await browser().newPage({ viewport: options.viewport ?? DESKTOP, timezoneId: "UTC" });
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  if (options.init) await page.addInitScript(options.init);
  if (options.login === false) {
    await page.goto(`${runtime.url}/`);
    return page;
  }
  await page.goto(runtime.inboxUrl);
  await page.waitForSelector("#connection:text('live')");
  assert.deepEqual(errors, []);
  return page;
}

function command(
  agent: string,
  thread: string,
  cwd: string,
  text: string,
  reason?: string,
): InteractionInput {
  return {
    kind: "approval_request",
    source: { name: agent },
    codex: { threadId: thread, turnId: "turn-1", requestId: "1" },
    title: `Run ${text}`,
    payload: { kind: "commandExecution", command: text, cwd, ...(reason ? { reason } : {}) },
  };
}

function question(agent: string, thread: string): InteractionInput {
  return {
    kind: "user_input_request",
    source: { name: agent },
    codex: { threadId: thread },
    title: "Which tone should the release notes take?",
    payload: {
      kind: "userInput",
      questions: [
        {
          id: "tone",
          header: "Tone",
          question: "Which tone should the release notes take?",
          options: [
            { label: "casual", description: "relaxed, with jokes" },
            { label: "formal", description: "plain and precise" },
          ],
        },
      ],
    },
  };
}

function fileChange(agent: string, thread: string): InteractionInput {
  return {
    kind: "approval_request",
    source: { name: agent },
    codex: { threadId: thread },
    title: "Change greeting.ts",
    payload: {
      kind: "fileChange",
      reason: "Friendlier greeting",
      changes: [{ path: "/srv/alpha/src/greeting.ts", kind: "update", diff: DIFF }],
    },
  };
}

/**
 * A page script: a tab whose visibility the test sets (`window.visibility`) and a Notification
 * granted, recording each one shown (`window.notes`).
 */
const RECORD_NOTIFICATIONS = `
  window.notes = [];
  window.visibility = "visible";
  Object.defineProperty(Document.prototype, "visibilityState", { configurable: true, get: () => window.visibility });
  window.Notification = class {
    static permission = "granted";
    static requestPermission() { return Promise.resolve("granted"); }
    constructor(title, options) { window.notes.push({ title, body: options && options.body }); }
  };
`;

const THREAD_A = "019a8c2e-5b7e-7d31-9a41-aaaaaaaa0001";
const THREAD_B = "019a8c2e-5b7e-7d31-9a41-bbbbbbbb0002";

/** A computed style property of the element (page functions are strings: no DOM lib here). */
const css = (element: Locator, property: string): Promise<string> =>
  element.evaluate(
    (node, name) =>
      node.ownerDocument.defaultView?.getComputedStyle(node).getPropertyValue(name) ?? "",
    property,
  );

/** The data-id of the focused element. */
const focusedId = (shown: Page): Promise<string | null> =>
  shown.evaluate("document.activeElement && document.activeElement.getAttribute('data-id')");

/** The clock the history shows for an ISO time (the page runs in UTC). */
const clock = (iso: string) => iso.slice(11, 16);

describe("web inbox people keep open (headless Chromium)", { skip: chromiumMissing }, () => {
  it("groups what waits by agent: source, project and thread", async () => {
    const runtime = await startRuntime();
    await runtime.runtime.create(command("agent-alpha", THREAD_A, "/srv/alpha", "npm test"));
    await runtime.runtime.create(command("agent-beta", THREAD_B, "/srv/beta", "make deploy"));
    await runtime.runtime.create(question("agent-alpha", THREAD_A));
    await runtime.runtime.create(fileChange("agent-alpha", THREAD_A));
    const shown = await openInbox(runtime);
    await shown.locator("#pending article").nth(3).waitFor();
    const groups = shown.locator("#pending .group");
    assert.equal(await groups.count(), 2);
    const alpha = groups.nth(0);
    const head = String(await alpha.locator(".group-head").textContent());
    assert.match(head, /agent-alpha/);
    assert.match(head, /\/srv\/alpha/, "the project of the thread, from its command");
    assert.match(head, /thread …aaaa0001/);
    assert.match(head, /3 waiting/);
    assert.equal(await alpha.locator("article").count(), 3);
    const beta = groups.nth(1);
    assert.match(
      String(await beta.locator(".group-head").textContent()),
      /agent-beta.*\/srv\/beta/,
    );
    assert.equal(await beta.locator("article").count(), 1);
  });

  it("a long command: a title that keeps its arguments, cut; the full command in monospace", async () => {
    const runtime = await startRuntime();
    const item = await runtime.runtime.create(
      command("agent-alpha", THREAD_A, "/srv/alpha", LONG_COMMAND, "Build, test and deploy"),
    );
    await runtime.runtime.create(command("agent-beta", THREAD_B, "/srv/beta", "make deploy"));
    const shown = await openInbox(runtime);
    const card = shown.locator(`#pending article[data-id="${item.id}"]`);
    await card.waitFor();
    assert.equal(
      await card.locator("h3").textContent(),
      "Run npm run build && node --test --test-concurrency=1 build/test/integration/ch…",
    );
    assert.equal(await card.locator("pre.command").textContent(), LONG_COMMAND);
    const block = card.locator("pre.command");
    assert.equal(await css(block, "white-space"), "pre-wrap");
    assert.equal(await css(block, "overflow-wrap"), "anywhere");
    assert.match(await css(block, "font-family"), /monospace/);
    await screenshot(shown, "command-approval");
  });

  it("at phone width (375 px) nothing scrolls sideways", async () => {
    const runtime = await startRuntime();
    await runtime.runtime.create(
      command("agent-alpha", THREAD_A, `/srv/${"deeply-nested-folder/".repeat(6)}`, LONG_COMMAND),
    );
    await runtime.runtime.create(fileChange("agent-alpha", THREAD_A));
    await runtime.runtime.create(question("agent-beta", THREAD_B));
    const done = await runtime.runtime.create(command("agent-beta", THREAD_B, "/srv/beta", "ls"));
    await runtime.runtime.respond(done.id, { action: "decline" });
    const shown = await openInbox(runtime, { viewport: PHONE });
    await shown.locator("#pending article").nth(2).waitFor();
    await shown.locator("#history article").waitFor();
    const widths: number[] = await shown.evaluate(
      "[document.scrollingElement.scrollWidth, window.innerWidth]",
    );
    assert.equal(widths[1], PHONE.width);
    assert.ok((widths[0] as number) <= PHONE.width, `scrollWidth ${widths[0]} > ${PHONE.width}`);
    await screenshot(shown, "phone");
  });

  it("colours a diff line by line, every line as text", async () => {
    const runtime = await startRuntime();
    const item = await runtime.runtime.create(fileChange("agent-alpha", THREAD_A));
    const shown = await openInbox(runtime);
    const diff = shown.locator(`#pending article[data-id="${item.id}"] pre.diff`);
    await diff.waitFor();
    assert.equal(await diff.textContent(), `${DIFF}\n`);
    assert.deepEqual(await diff.locator("span.add").allTextContents(), [
      '+  return "Hello, " + name + "!";',
      "+// <img src=x onerror=\"document.title='pwned'\">",
    ]);
    assert.deepEqual(await diff.locator("span.del").allTextContents(), [
      '-  return "Hello " + name;',
    ]);
    assert.deepEqual(await diff.locator("span.hunk").allTextContents(), ["@@ -1,4 +1,4 @@"]);
    const colour = (selector: string) => css(diff.locator(selector).first(), "color");
    assert.equal(await colour(".add"), "rgb(17, 99, 41)");
    assert.equal(await colour(".del"), "rgb(130, 7, 30)");
    assert.equal(await colour(".hunk"), "rgb(110, 119, 129)");
    assert.equal(await shown.locator("img").count(), 0, "a diff line never becomes markup");
    assert.doesNotMatch(await shown.title(), /pwned/);
    await screenshot(shown, "file-change");
  });

  it("a question's options are buttons; answered, it keeps them with the choice marked", async () => {
    const runtime = await startRuntime();
    const item = await runtime.runtime.create(question("agent-alpha", THREAD_A));
    const shown = await openInbox(runtime);
    const card = shown.locator(`#pending article[data-id="${item.id}"]`);
    await card.waitFor();
    const options = card.locator("button.option");
    assert.deepEqual(await options.allTextContents(), [
      "casual — relaxed, with jokes",
      "formal — plain and precise",
    ]);
    await screenshot(shown, "question");
    // A click on an option answers with it, even with something half typed in the field.
    await card.locator("input[type=text]").fill("half a tho");
    await card.getByRole("button", { name: /formal/ }).click();
    const answered = shown.locator(`#history article[data-id="${item.id}"]`);
    await answered.waitFor();
    assert.deepEqual((await runtime.runtime.get(item.id)).response?.values, {
      answers: { tone: "formal" },
    });
    assert.deepEqual(await answered.locator("li.option").allTextContents(), [
      "casual — relaxed, with jokes",
      "✓ formal — plain and precise",
    ]);
    assert.equal(await answered.locator("li.option[aria-current=true]").count(), 1);
    assert.match(
      String(await answered.locator(".outcome").textContent()),
      /^Answered by admin, \d\d:\d\d$/,
    );
  });

  it("the history says in words what was answered, by whom (authenticated) and when", async () => {
    const runtime = await startRuntime();
    const api = runtime.runtime;
    const byAlice = await api.create(command("agent-alpha", THREAD_A, "/srv/alpha", "npm test"));
    const byCli = await api.create(command("agent-beta", THREAD_B, "/srv/beta", "make deploy"));
    const anonymous = await api.create(command("agent-beta", THREAD_B, "/srv/beta", "ls"));
    const withdrawn = await api.create(command("agent-beta", THREAD_B, "/srv/beta", "pwd"));
    const shown = await openInbox(runtime);
    await shown.locator(`#pending article[data-id="${byAlice.id}"]`).waitFor();
    // With the runtime's own token, a typed name is only a note: the answer is by admin.
    assert.equal(
      await shown.locator("#signed-in").textContent(),
      "Signed in with the runtime's token (admin).",
    );
    await shown.fill("#name", "alice");
    await shown.locator("#name").dispatchEvent("change");
    await shown
      .locator(`#pending article[data-id="${byAlice.id}"]`)
      .getByRole("button", { name: "Accept for this session" })
      .click();
    // An answer by a person (as the runtime authenticated them), and one by nobody named: admin.
    await api.respond(byCli.id, { action: "decline", metadata: { via: "cli" } }, person("bob"));
    await api.respond(anonymous.id, { action: "accept" });
    await api.cancel(withdrawn.id, "cleared", "codex withdrew the request");
    await shown.locator(`#history article[data-id="${withdrawn.id}"]`).waitFor();
    const stored = await api.get(byAlice.id);
    assert.equal(stored.response?.answeredBy, "admin");
    assert.equal(stored.response?.metadata?.claimedBy, "alice");
    assert.equal(stored.response?.metadata?.answeredBy, undefined);
    const outcome = (id: string) =>
      shown.locator(`#history article[data-id="${id}"] .outcome`).textContent();
    assert.equal(
      await outcome(byAlice.id),
      `Accepted for this session by admin, ${clock(String(stored.response?.respondedAt))}`,
    );
    const cli = await api.get(byCli.id);
    assert.equal(
      await outcome(byCli.id),
      `Declined by bob, ${clock(String(cli.response?.respondedAt))}`,
    );
    const plain = await api.get(anonymous.id);
    assert.equal(
      await outcome(anonymous.id),
      `Accepted by admin, ${clock(String(plain.response?.respondedAt))}`,
    );
    assert.match(String(await outcome(withdrawn.id)), /^Withdrawn by codex .*, \d\d:\d\d$/);
    // The original options stay, the chosen one marked; no raw JSON.
    const card = shown.locator(`#history article[data-id="${byAlice.id}"]`);
    assert.deepEqual(await card.locator("li.option").allTextContents(), [
      "Accept",
      "✓ Accept for this session",
      "Decline",
      "Interrupt the turn",
    ]);
    assert.match(String(await card.locator(".origin").textContent()), /agent-alpha.*\/srv\/alpha/);
    assert.doesNotMatch(String(await shown.locator("#history").textContent()), /[{}]|Answered: /);
    // The name is checked at the API: a string, when given.
    const refused = await fetch(`${runtime.url}/v1/interactions/${withdrawn.id}/respond`, {
      method: "POST",
      headers: { authorization: `Bearer ${runtime.token}`, "content-type": "application/json" },
      body: JSON.stringify({ action: "accept", metadata: { answeredBy: 42 } }),
    });
    assert.equal(refused.status, 400);
    assert.match(JSON.stringify(await refused.json()), /metadata\.answeredBy/);
    await screenshot(shown, "history");
  });

  it("before login: a styled form, and no 'Nothing is waiting.'", async () => {
    const runtime = await startRuntime();
    const shown = await openInbox(runtime, { login: false });
    const form = shown.locator("#login");
    await form.waitFor();
    assert.equal(await shown.locator("#inbox").isHidden(), true);
    assert.doesNotMatch(await shown.locator("body").innerText(), /Nothing is waiting|History/);
    assert.equal(await css(form, "border-top-left-radius"), "10px", "the form is a panel");
    const button = form.getByRole("button", { name: "Open" });
    assert.equal(await css(button, "background-color"), "rgb(31, 111, 235)");
    await screenshot(shown, "login");
    await shown.fill("#token", runtime.token);
    await shown.click("#login button");
    await shown.locator("#pending .empty:text('Nothing is waiting.')").waitFor();
    assert.equal(await form.isHidden(), true);
  });

  it("the tab title counts what waits; a request arriving in a hidden tab notifies", async () => {
    const runtime = await startRuntime();
    const api = runtime.runtime;
    const first = await api.create(command("agent-alpha", THREAD_A, "/srv/alpha", "npm test"));
    const shown = await openInbox(runtime, { init: RECORD_NOTIFICATIONS });
    const title = (text: string) =>
      // A function, not a string: the page's CSP forbids eval.
      shown.waitForFunction(
        (expected) =>
          (globalThis as unknown as { document: { title: string } }).document.title === expected,
        text,
      );
    await title("(1) codex-harness inbox");
    await api.create(command("agent-beta", THREAD_B, "/srv/beta", "make deploy"));
    await title("(2) codex-harness inbox");
    await shown.evaluate("window.visibility = 'hidden'");
    await api.create(command("agent-beta", THREAD_B, "/srv/beta", "rm -rf build"));
    await title("(3) codex-harness inbox");
    const notes = await shown.evaluate("window.notes");
    assert.deepEqual(notes, [{ title: "Run rm -rf build", body: "agent-beta · /srv/beta" }]);
    await api.respond(first.id, { action: "accept" });
    await title("(2) codex-harness inbox");
    assert.equal(await shown.locator("#notify").isHidden(), true, "already granted");
  });

  it("keys answer the focused request, never while typing, and are shown", async () => {
    const runtime = await startRuntime();
    const api = runtime.runtime;
    const one = await api.create(command("agent-alpha", THREAD_A, "/srv/alpha", "npm test"));
    const two = await api.create(command("agent-alpha", THREAD_A, "/srv/alpha", "npm publish"));
    const ask = await api.create(question("agent-alpha", THREAD_A));
    const shown = await openInbox(runtime);
    const first = shown.locator(`#pending article[data-id="${one.id}"]`);
    await first.waitFor();
    assert.match(
      String(await first.locator(".keys").textContent()),
      /a Accept · s Accept for this session · d Decline · i Interrupt the turn/,
    );
    // The first request has the keyboard from the start.
    assert.equal(await focusedId(shown), one.id);
    await shown.keyboard.press("s");
    await shown.locator(`#history article[data-id="${one.id}"]`).waitFor();
    assert.deepEqual((await api.get(one.id)).response?.values, { scope: "session" });
    // The next request took its place, and has the keyboard.
    assert.equal(await focusedId(shown), two.id);
    // Typing in a text field is typing: "d" there declines nothing.
    const field = shown.locator(`#pending article[data-id="${ask.id}"] input[type=text]`);
    await field.click();
    await shown.keyboard.type("dais");
    assert.equal(await field.inputValue(), "dais");
    assert.equal((await api.get(two.id)).response, undefined);
    assert.equal((await api.get(ask.id)).response, undefined);
    await field.fill("");
    await shown.locator(`#pending article[data-id="${two.id}"] h3`).click();
    await shown.keyboard.press("d");
    await shown.locator(`#history article[data-id="${two.id}"]`).waitFor();
    assert.equal((await api.get(two.id)).response?.action, "decline");
    // On a question, a number picks that option.
    await shown.keyboard.press("2");
    await shown.locator(`#history article[data-id="${ask.id}"]`).waitFor();
    assert.deepEqual((await api.get(ask.id)).response?.values, { answers: { tone: "formal" } });
  });

  it("says Decline and Interrupt the turn, for what they do", async () => {
    const runtime = await startRuntime();
    const item = await runtime.runtime.create(
      command("agent-alpha", THREAD_A, "/srv/alpha", "npm test"),
    );
    const shown = await openInbox(runtime);
    const card = shown.locator(`#pending article[data-id="${item.id}"]`);
    await card.waitFor();
    assert.deepEqual(await card.locator(".actions button").allTextContents(), [
      "Accept",
      "Accept for this session",
      "Decline",
      "Interrupt the turn",
    ]);
    assert.equal(await shown.getByRole("button", { name: /cancel/i }).count(), 0);
    await card.getByRole("button", { name: "Interrupt the turn" }).click();
    const done = shown.locator(`#history article[data-id="${item.id}"] .outcome`);
    await done.waitFor();
    assert.equal((await runtime.runtime.get(item.id)).response?.action, "cancel");
    assert.match(String(await done.textContent()), /^Declined and interrupted the turn by admin, /);
  });

  it("on load the first waiting request has the keyboard: d declines it, no j first", async () => {
    const runtime = await startRuntime();
    const api = runtime.runtime;
    const first = await api.create(command("agent-alpha", THREAD_A, "/srv/alpha", "npm publish"));
    const second = await api.create(command("agent-alpha", THREAD_A, "/srv/alpha", "npm test"));
    const shown = await openInbox(runtime);
    await shown.locator(`#pending article[data-id="${second.id}"]`).waitFor();
    assert.equal(await focusedId(shown), first.id);
    await shown.keyboard.press("d");
    await shown.locator(`#history article[data-id="${first.id}"]`).waitFor({ timeout: 5_000 });
    assert.equal((await api.get(first.id)).response?.action, "decline");
    assert.equal((await api.get(second.id)).response, undefined);
    // The next one took its place.
    assert.equal(await focusedId(shown), second.id);
  });

  it("the history says how an accepted command ended (from its progress update)", async () => {
    const runtime = await startRuntime();
    const api = runtime.runtime;
    const ask = (text: string, itemId: string) =>
      api.create({
        ...command("agent-alpha", THREAD_A, "/srv/alpha", text),
        codex: { threadId: THREAD_A, turnId: "turn-1", requestId: itemId, itemId },
      });
    const ran = (itemId: string, status: string, exitCode: number | null) =>
      api.create({
        kind: "progress_update",
        source: { name: "agent-alpha" },
        codex: { threadId: THREAD_A, turnId: "turn-1", itemId },
        title: `Ran a command (${status})`,
        payload: { event: "command", command: "…", status, exitCode },
        actions: ["accept"],
      });
    const failing = await ask("npm publish --dry-run", "call_publish");
    const passing = await ask("npm test", "call_test");
    const declined = await ask("rm -rf /", "call_rm");
    await api.respond(failing.id, { action: "accept" }, person("alice"));
    await api.respond(passing.id, { action: "accept" });
    await api.respond(declined.id, { action: "decline" });
    await ran("call_publish", "failed", 2);
    await ran("call_test", "completed", 0);
    await ran("call_rm", "declined", null);
    // Another thread's item of the same id is another command.
    await api.create({
      kind: "progress_update",
      source: { name: "agent-beta" },
      codex: { threadId: THREAD_B, itemId: "call_test" },
      title: "elsewhere",
      payload: { event: "command", command: "x", status: "failed", exitCode: 9 },
    });
    const shown = await openInbox(runtime);
    const ended = (id: string) => shown.locator(`#history article[data-id="${id}"] .item-end`);
    await ended(failing.id).waitFor();
    assert.equal(await ended(failing.id).textContent(), "The command failed (exit 2)");
    assert.equal(await ended(passing.id).textContent(), "The command ran (exit 0)");
    assert.equal(await ended(declined.id).textContent(), "The command was declined");
    const outcome = shown.locator(`#history article[data-id="${failing.id}"] .outcome`);
    assert.match(String(await outcome.textContent()), /^Accepted by alice, \d\d:\d\d$/);
    // Arriving later, an update fills in its command's ending.
    const later = await ask("make deploy", "call_deploy");
    await api.respond(later.id, { action: "accept" });
    await shown.locator(`#history article[data-id="${later.id}"]`).waitFor();
    assert.equal(await ended(later.id).count(), 0);
    await ran("call_deploy", "completed", 0);
    await shown
      .locator(`#history article[data-id="${later.id}"] .item-end:text("The command ran (exit 0)")`)
      .waitFor({ timeout: 5_000 });
  });
});
