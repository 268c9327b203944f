// The web inbox never hides a request: malformed payloads become one "cannot be shown" card each,
// and a pending approval older than hundreds of newer interactions is still shown (real Chromium).
// It fails closed: what it cannot show in full offers Decline and Interrupt, never Accept, and the
// runtime refuses an accept the inbox sends for it.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import type { Interaction, InteractionInput } from "../../src/channels/interaction-types.js";
import { chromiumMissing, useChromium } from "../support/chromium.js";

const missing = chromiumMissing;

const browser = useChromium();
const dirs: string[] = [];

after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const malformed: [string, InteractionInput][] = [
  [
    "changes: [null]",
    { kind: "approval_request", source: { name: "t" }, title: "m1", payload: { changes: [null] } },
  ],
  [
    "questions: [null]",
    {
      kind: "user_input_request",
      source: { name: "t" },
      title: "m2",
      payload: { questions: [null] },
    },
  ],
  [
    'options: "str"',
    {
      kind: "user_input_request",
      source: { name: "t" },
      title: "m3",
      payload: { questions: [{ id: "q", question: "?", options: "<script>alert(1)</script>" }] },
    },
  ],
  [
    "options: [null]",
    {
      kind: "user_input_request",
      source: { name: "t" },
      title: "m4",
      payload: { questions: [{ id: "q", question: "?", options: [null] }] },
    },
  ],
];

describe("web inbox: never hides a request (headless Chromium)", { skip: missing }, () => {
  it("shows malformed payloads as 'cannot be shown' cards, every pending one, past 250 newer", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "inbox-hardening-"));
    dirs.push(dir);
    const server: ChannelsServer = await startChannelsServer({ dataDir: dir, port: 0 });
    const page = await browser().newPage();
    try {
      const runtime = server.runtime;
      const real = await runtime.create({
        kind: "approval_request",
        source: { name: "t" },
        title: "the real approval",
        payload: { command: "make deploy" },
      });
      const bad: Interaction[] = [];
      for (const [, input] of malformed) bad.push(await runtime.create(input));
      // 250 newer interactions, all answered: the history the old page loaded instead.
      for (let i = 0; i < 250; i += 1) {
        const update = await runtime.create({
          kind: "progress_update",
          source: { name: "t" },
          title: `step ${i}`,
          payload: { message: `step ${i}` },
        });
        await runtime.respond(update.id, { action: "accept" });
      }
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(server.inboxUrl);
      const card = page.locator(`#pending article[data-id="${real.id}"]`);
      await card.waitFor({ timeout: 10_000 });
      assert.match(String(await card.locator("pre.command").textContent()), /make deploy/);
      for (const [index, [shape]] of malformed.entries()) {
        const item = bad[index];
        assert.ok(item);
        const odd = page.locator(`#pending article.unshowable[data-id="${item.id}"]`);
        await odd.waitFor({ timeout: 5_000 });
        assert.match(String(await odd.locator("h3").textContent()), /cannot be shown/, shape);
        const raw = JSON.parse(String(await odd.locator("pre.raw").textContent()));
        assert.deepEqual(raw.payload, item.payload, shape);
      }
      assert.equal(await page.locator("#pending article").count(), 1 + malformed.length);
      assert.equal(await page.locator("#pending .empty").count(), 0);
      assert.equal(await page.locator("#error").isHidden(), true);
      assert.equal(await page.locator("script").count(), 1, "no injected script element");
      assert.deepEqual(errors, []);
      // Shown, so delivered; the broken ones can still be declined.
      assert.equal((await runtime.get(real.id)).status, "delivered");
      const first = bad[0];
      assert.ok(first);
      await page
        .locator(`article[data-id="${first.id}"]`)
        .getByRole("button", { name: "Decline" })
        .click();
      await page.locator(`#history article[data-id="${first.id}"]`).waitFor({ timeout: 5_000 });
      assert.equal((await runtime.get(first.id)).response?.action, "decline");
    } finally {
      await page.close();
      await server.close();
    }
  });

  it("an unknown or mistyped approval is raw JSON with Decline and Interrupt, never Accept", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "inbox-hardening-"));
    dirs.push(dir);
    const server: ChannelsServer = await startChannelsServer({ dataDir: dir, port: 0 });
    const page = await browser().newPage();
    try {
      const runtime = server.runtime;
      const approval = (title: string, payload: Record<string, unknown>) =>
        runtime.create({ kind: "approval_request", source: { name: "t" }, title, payload });
      const unknown = await approval("unknown", { foo: "bar" });
      const mistyped = await approval("mistyped", { command: 42 });
      // A payload it shows, with a field it does not know: shown as JSON, so it may be accepted.
      const extra = await approval("extra", { command: "make deploy", ticket: "OPS-7" });
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(server.inboxUrl);
      for (const item of [unknown, mistyped]) {
        const shape = JSON.stringify(item.payload);
        const card = page.locator(`#pending article[data-id="${item.id}"]`);
        await card.waitFor({ timeout: 10_000 });
        assert.equal(await card.getAttribute("class"), "card unshowable", shape);
        assert.match(String(await card.locator("h3").textContent()), /cannot be shown/, shape);
        assert.deepEqual(
          JSON.parse(String(await card.locator("pre.raw").textContent())).payload,
          item.payload,
        );
        assert.deepEqual(
          await card.locator("button").allTextContents(),
          ["Decline", "Interrupt the turn"],
          shape,
        );
        assert.equal(
          await card.locator("button[data-key=a], button[data-key=s]").count(),
          0,
          shape,
        );
        assert.match(
          String(await card.locator(".keys").textContent()),
          /d Decline · i Interrupt the turn/,
        );
      }
      assert.match(
        String(await page.locator(`article[data-id="${mistyped.id}"] .meta`).textContent()),
        /payload\.command is a number, not a string/,
      );
      const shown = page.locator(`#pending article[data-id="${extra.id}"]`);
      assert.equal(await shown.getAttribute("class"), "card approval_request");
      assert.equal(await shown.locator("p.unknown").textContent(), "Also sent:");
      assert.deepEqual(JSON.parse(String(await shown.locator("pre.unknown").textContent())), {
        ticket: "OPS-7",
      });
      assert.equal(await shown.getByRole("button", { name: "Accept", exact: true }).count(), 1);
      // The runtime holds the inbox to it: an accept sent as the inbox is refused, a decline taken.
      const answer = (id: string, action: string) =>
        fetch(`${server.url}/v1/interactions/${id}/respond`, {
          method: "POST",
          headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
          body: JSON.stringify({ action, metadata: { via: "web-inbox" } }),
        });
      const refused = await answer(unknown.id, "accept");
      assert.equal(refused.status, 422);
      assert.match(
        JSON.stringify(await refused.json()),
        /web inbox cannot show this approval_request/,
      );
      assert.equal((await runtime.get(unknown.id)).status, "delivered");
      await page
        .locator(`article[data-id="${mistyped.id}"]`)
        .getByRole("button", { name: "Interrupt the turn" })
        .click();
      const ended = page.locator(`#history article[data-id="${mistyped.id}"]`);
      await ended.waitFor({ timeout: 5_000 });
      assert.equal((await runtime.get(mistyped.id)).response?.action, "cancel");
      assert.match(
        String(await ended.locator(".outcome").textContent()),
        /^Declined and interrupted the turn by admin, /,
      );
      assert.equal((await answer(unknown.id, "decline")).status, 200);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
      await server.close();
    }
  });
});
