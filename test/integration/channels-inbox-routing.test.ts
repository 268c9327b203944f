// Who may answer, in the web inbox (real Chromium, the real runtime over HTTP, people signed in
// with tokens of their own): a two-person rule met from two browsers, one person accepting twice
// refused (and the request still waiting), someone outside the rule shown the request without its
// answers (nor their keys), and a request its routing hides from someone left out of their inbox.
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { BrowserContext, Locator, Page } from "playwright-core";
import type { AuditRecord } from "../../src/channels/audit-types.js";
import { openStore, startChannelsServer } from "../../src/channels/http-server.js";
import type { InteractionInput, Routing } from "../../src/channels/interaction-types.js";
import type { InteractionStore } from "../../src/channels/store.js";
import { call } from "../support/channels-call.js";
import { channelsTestDirs } from "../support/channels-dirs.js";
import { chromiumMissing, useChromium } from "../support/chromium.js";

const browser = useChromium();
const contexts: BrowserContext[] = [];
// Registered before the servers' hook: the pages go before their runtime does.
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
});
const { dataDir, servers } = channelsTestDirs("inbox-routing-");

/** A two-person rule: two different people of group release must accept. */
const TWO_OF_RELEASE: Routing = { answer: ["group:release"], approvals: 2 };
const CLOCK = /\d\d:\d\d$/;

/** A runtime that knows alice and carol (group release) and bob, each with a read,answer token. */
async function startRuntime() {
  const dir = dataDir();
  const store: InteractionStore = await openStore(undefined, dir);
  const server = await startChannelsServer({ dataDir: dir, port: 0, store });
  servers.push(server);
  const people = server.people;
  assert.ok(people);
  const tokens: Record<string, string> = {};
  for (const [id, name, groups] of [
    ["alice", "Alice", ["release"]],
    ["carol", "Carol", ["release"]],
    ["bob", "Bob", []],
  ] as const) {
    await people.add({ id, name, groups });
    tokens[id] = (await people.issueToken(id, "read,answer")).token;
  }
  return { server, store, tokens: tokens as Record<"alice" | "bob" | "carol", string> };
}

type Runtime = Awaited<ReturnType<typeof startRuntime>>;

/**
 * Opens the inbox in a browser context of its own, signed in with `token`; waits for its live
 * stream unless `offline` (the stream refused, so the page knows only what it listed).
 */
async function signIn(
  runtime: Runtime,
  token: string,
  options: { offline?: boolean } = {},
): Promise<Page> {
  const context = await browser().newContext({ viewport: { width: 960, height: 800 } });
  contexts.push(context);
  if (options.offline) await context.route("**/v1/events*", (route) => route.abort());
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`${runtime.server.url}/#token=${encodeURIComponent(token)}`);
  await page.locator("#signed-in:text('Signed in as')").waitFor();
  if (!options.offline) await page.waitForSelector("#connection:text('live')");
  assert.deepEqual(errors, []);
  return page;
}

function publish(routing?: Routing, command = "npm publish"): InteractionInput {
  return {
    kind: "approval_request",
    source: { name: "deploy-bot" },
    codex: { threadId: "thread-release", turnId: "turn-1", requestId: "1" },
    title: `Run ${command}`,
    payload: { kind: "commandExecution", command, cwd: "/srv/pkg" },
    ...(routing ? { routing } : {}),
  };
}

const row = (page: Page, id: string): Locator => page.locator(`#pending article[data-id="${id}"]`);
const done = (page: Page, id: string): Locator => page.locator(`#history article[data-id="${id}"]`);
const accept = (card: Locator): Locator =>
  card.getByRole("button", { name: "Accept", exact: true });

/** Waits until `card`'s approval line reads `words`, and checks it says nothing more. */
async function approvalsRead(card: Locator, words: string): Promise<void> {
  await card.locator(".approvals", { hasText: words }).waitFor();
  assert.equal(await card.locator(".approvals").textContent(), words);
}

/** The audit log's records, in order. */
async function auditOf(store: InteractionStore): Promise<AuditRecord[]> {
  assert.ok(store.audit);
  const rows = await store.audit.rows({ limit: 1_000 });
  return rows.map((entry) => JSON.parse(entry.body) as AuditRecord);
}

describe("who may answer, in the web inbox (headless Chromium)", { skip: chromiumMissing }, () => {
  it("two people of release meet a two-person rule from two browsers: 1 of 2, then resolved", async () => {
    const runtime = await startRuntime();
    const item = await runtime.server.runtime.create(publish(TWO_OF_RELEASE));
    const alice = await signIn(runtime, runtime.tokens.alice);
    const carol = await signIn(runtime, runtime.tokens.carol);
    await approvalsRead(row(alice, item.id), "0 of 2 approvals");
    await approvalsRead(row(carol, item.id), "0 of 2 approvals");

    await accept(row(alice, item.id)).click();
    // Both browsers follow the approval live; the request still waits, for someone else.
    for (const page of [alice, carol])
      await approvalsRead(row(page, item.id), "1 of 2 approvals · Alice");
    const hers = row(alice, item.id);
    assert.equal(await hers.getByRole("button").count(), 0, "nothing for alice to press any more");
    assert.match(
      String(await hers.locator(".not-yours").textContent()),
      /^You approved it; it waits for someone else/,
    );
    assert.equal(await alice.title(), "(1) codex-harness inbox");
    assert.equal(await accept(row(carol, item.id)).count(), 1);
    const waiting = await runtime.server.runtime.get(item.id);
    assert.deepEqual(
      waiting.approvals?.map((approval) => approval.by),
      ["alice"],
    );
    assert.ok(!waiting.response);

    await accept(row(carol, item.id)).click();
    for (const page of [alice, carol]) {
      const card = done(page, item.id);
      await card.waitFor();
      assert.match(
        String(await card.locator(".outcome").textContent()),
        /^Accepted by Alice, Carol, /,
      );
      assert.match(String(await card.locator(".outcome").textContent()), CLOCK);
      assert.equal(
        await card.locator(".approvals").textContent(),
        "2 of 2 approvals · Alice, Carol",
      );
      assert.equal(await row(page, item.id).count(), 0);
    }
    const resolved = await runtime.server.runtime.get(item.id);
    assert.equal(resolved.status, "resolved");
    assert.equal(resolved.response?.answeredByName, "Alice, Carol");
  });

  it("one person accepting twice is refused 409 and the request stays at 1 of 2, in the page too", async () => {
    const runtime = await startRuntime();
    const item = await runtime.server.runtime.create(publish(TWO_OF_RELEASE));
    // A page of alice's that hears nothing live: it still offers Accept after she accepted elsewhere.
    const stale = await signIn(runtime, runtime.tokens.alice, { offline: true });
    await accept(row(stale, item.id)).waitFor();
    const respond = `/v1/interactions/${item.id}/respond`;
    const body = { action: "accept", metadata: { via: "web-inbox" } };
    const first = await call(runtime.server, runtime.tokens.alice, "POST", respond, body);
    assert.equal(first.status, 200);
    assert.equal(first.body.viewer?.mayAnswer, false);
    const again = await call(runtime.server, runtime.tokens.alice, "POST", respond, body);
    assert.equal(again.status, 409);
    assert.equal(again.body.error?.code, "already_approved");

    await accept(row(stale, item.id)).click();
    // The runtime's words, and the request as the runtime has it: waiting, 1 of 2, nothing to press.
    await stale.locator("#error", { hasText: "has approved this request already" }).waitFor();
    const card = row(stale, item.id);
    await approvalsRead(card, "1 of 2 approvals · Alice");
    assert.equal(await card.getByRole("button").count(), 0);
    const still = await runtime.server.runtime.get(item.id);
    assert.ok(still.status === "pending" || still.status === "delivered", still.status);
    assert.equal(still.approvals?.length, 1);
    const refused = (await auditOf(runtime.store)).filter((r) => r.action === "answer.refused");
    assert.deepEqual(
      refused.map((r) => [r.actor.id, r.reason]),
      [
        ["alice", "already_approved"],
        ["alice", "already_approved"],
      ],
    );
  });

  it("someone outside the rule sees the request and why, with no answer to press or key", async () => {
    const runtime = await startRuntime();
    const item = await runtime.server.runtime.create(publish(TWO_OF_RELEASE));
    const question = await runtime.server.runtime.create({
      kind: "user_input_request",
      source: { name: "deploy-bot" },
      title: "Which registry?",
      payload: {
        kind: "userInput",
        questions: [
          {
            id: "registry",
            question: "Which registry?",
            options: [{ label: "npm" }, { label: "github" }],
          },
        ],
      },
      routing: { answer: ["group:release"] },
    });
    const bob = await signIn(runtime, runtime.tokens.bob);
    const sent: string[] = [];
    bob.on("request", (request) => {
      if (request.method() === "POST") sent.push(new URL(request.url()).pathname);
    });
    const card = row(bob, item.id);
    await card.waitFor();
    assert.equal(
      await card.locator(".not-yours").textContent(),
      "Only group:release may answer this request, and bob is not among them.",
    );
    assert.equal(await card.locator(".approvals").textContent(), "0 of 2 approvals");
    assert.equal(await card.getByRole("button").count(), 0, "no Accept, no Decline");
    // The question reads as asked: its options listed, none a button, no field to type in.
    const asked = row(bob, question.id);
    assert.deepEqual(await asked.locator("li.option").allTextContents(), ["npm", "github"]);
    assert.equal(await asked.locator("button, input, textarea").count(), 0);

    // The keys of every answer, on each request: nothing is sent.
    for (const target of [card, asked]) {
      await target.focus();
      for (const key of ["a", "s", "d", "i", "1", "2"]) await bob.keyboard.press(key);
    }
    await bob.waitForTimeout(300);
    assert.deepEqual(
      sent.filter((pathname) => pathname.endsWith("/respond")),
      [],
    );
    for (const id of [item.id, question.id]) {
      const stored = await runtime.server.runtime.get(id);
      // Shown only to someone who may not answer it: not delivered either.
      assert.equal(stored.status, "pending");
      assert.ok(!stored.response && !stored.approvals);
    }
    const answers = (await auditOf(runtime.store)).filter((r) =>
      ["interaction.answered", "interaction.approved", "answer.refused"].includes(r.action),
    );
    assert.deepEqual(answers, []);
  });

  it("a request whose routing.see does not name bob is not in his inbox at all", async () => {
    const runtime = await startRuntime();
    const hidden = { answer: ["group:release"], see: ["carol"] };
    const before = await runtime.server.runtime.create(publish(hidden, "npm publish --tag next"));
    const open = await runtime.server.runtime.create(publish(undefined, "npm test"));
    const bob = await signIn(runtime, runtime.tokens.bob);
    await row(bob, open.id).waitFor();
    // One made while he watches: the live stream leaves it out too.
    const during = await runtime.server.runtime.create(publish(hidden, "npm dist-tag add"));
    const after = await runtime.server.runtime.create(publish(undefined, "npm pack"));
    await row(bob, after.id).waitFor();
    for (const id of [before.id, during.id]) {
      assert.equal(await bob.locator(`article[data-id="${id}"]`).count(), 0);
    }
    assert.equal(await bob.title(), "(2) codex-harness inbox");
    assert.doesNotMatch(String(await bob.locator("main").textContent()), /dist-tag|--tag/);
    // Unrouted, his to answer.
    assert.equal(await accept(row(bob, open.id)).count(), 1);
    // Alice, of release, sees them.
    const alice = await signIn(runtime, runtime.tokens.alice);
    for (const id of [before.id, during.id]) await row(alice, id).waitFor();
  });
});
