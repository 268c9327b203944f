// Fail closed at every depth, in the web inbox (real Chromium): a card that offers any answer but a
// refusal shows every field of its request, nested ones included (a field nobody knows inside a file
// change, a question, an option, a network context, an MCP form's params); a card that cannot is the
// "cannot be shown" one, with Decline and Interrupt only, and the runtime refuses an accept sent from
// the inbox for it. Progress updates show every field they carry.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type ChannelsServer, startChannelsServer } from "../../src/channels/http-server.js";
import { chromiumMissing, useChromium } from "../support/chromium.js";
import {
  type DeepRequest,
  EVERY_FIELD,
  MARK,
  NESTED_UNKNOWN,
  PROGRESS,
  textsOf,
} from "../support/deep-requests.js";

const browser = useChromium();
const dirs: string[] = [];

after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Answers as the web inbox does (`metadata.via: "web-inbox"`); resolves with the HTTP status. */
async function answerAsInbox(
  server: ChannelsServer,
  id: string,
  answer: DeepRequest["accept"],
): Promise<{ status: number; body: string }> {
  const response = await fetch(`${server.url}/v1/interactions/${id}/respond`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
    body: JSON.stringify({ ...answer, metadata: { via: "web-inbox", answeredBy: "alice" } }),
  });
  return { status: response.status, body: await response.text() };
}

describe("web inbox: fails closed at every depth (headless Chromium)", {
  skip: chromiumMissing,
}, () => {
  const requests = [...NESTED_UNKNOWN, ...EVERY_FIELD, PROGRESS];
  const ids = new Map<DeepRequest, string>();
  const errors: string[] = [];
  let server: ChannelsServer;
  let page: Page;

  before(async () => {
    if (chromiumMissing) return;
    const dir = mkdtempSync(path.join(os.tmpdir(), "inbox-depth-"));
    dirs.push(dir);
    server = await startChannelsServer({ dataDir: dir, port: 0 });
    for (const request of requests) {
      const created = await server.runtime.create({
        kind: request.kind,
        source: { name: "t" },
        title: request.name,
        payload: request.payload,
      });
      ids.set(request, created.id);
    }
    page = await browser().newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(server.inboxUrl);
  });

  after(async () => {
    if (chromiumMissing) return;
    await page.close();
    await server.close();
    assert.deepEqual(errors, []);
  });

  for (const request of requests) {
    const label = request.name;
    const what = NESTED_UNKNOWN.includes(request)
      ? `a field nobody knows ${label}`
      : `every field of ${label}`;
    it(`${what} is shown where an answer is offered; else the inbox's accept is refused`, async () => {
      if (NESTED_UNKNOWN.includes(request)) {
        assert.ok(textsOf(request).includes(MARK), `${label}: the fixture hides its mark`);
      }
      const id = ids.get(request) ?? "";
      const card = page.locator(`#pending article[data-id="${id}"]`);
      await card.waitFor({ timeout: 10_000 });
      if ((await card.getAttribute("class")) === "card unshowable") {
        assert.deepEqual(
          await card.locator(".actions button").allTextContents(),
          ["Decline", "Interrupt the turn"],
          label,
        );
        const refused = await answerAsInbox(server, id, request.accept);
        assert.equal(refused.status, 422, `${label}: ${refused.body}`);
        assert.match(refused.body, /web inbox cannot show/, label);
        return;
      }
      const text = String(await card.textContent());
      for (const part of textsOf(request)) {
        assert.ok(text.includes(part), `${label}: the card offers an answer but hides ${part}`);
      }
      if (request === PROGRESS) {
        assert.equal(await card.locator("p.unknown").textContent(), "Sent:");
        assert.deepEqual(await card.locator(".actions button").allTextContents(), ["Acknowledge"]);
      }
      const taken = await answerAsInbox(server, id, request.accept);
      assert.equal(taken.status, 200, `${label}: ${taken.body}`);
    });
  }
});
