// Signing in to the web inbox with OpenID Connect: real Chromium, the real runtime over HTTP, and a
// local OpenID provider (panva's oidc-provider) whose login form the browser fills in. The person
// lands in the inbox with the claims' name and groups, answers as themselves from the inbox, and
// the session cookie is HttpOnly and SameSite; another origin's changes are refused, sign-out and a
// removed person end the session, an id that cannot be one is refused with a page saying why, and
// a bad issuer fails the start. Two runtimes on one PostgreSQL accept the same session.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, afterEach, describe, it } from "node:test";
import type { Page } from "playwright-core";
import type { FleetConsoleSource } from "../../src/channels/console/console-source.js";
import {
  type ChannelsServer,
  openStore,
  startChannelsServer,
} from "../../src/channels/http-server.js";
import type { InteractionInput } from "../../src/channels/interaction-types.js";
import type { InteractionStore } from "../../src/channels/store.js";
import { CodexHarnessError } from "../../src/errors.js";
import { channelsTestDirs } from "../support/channels-dirs.js";
import { chromiumMissing, useChromium } from "../support/chromium.js";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  freePort,
  startProvider,
  type TestProvider,
} from "../support/oidc-provider.js";
import { postgresForFile } from "../support/postgres-file.js";

const browser = useChromium();
const { dataDir, servers } = channelsTestDirs("channels-oidc-test-");
const { missing: postgresMissing, url: postgresUrl } = postgresForFile();
const providers: TestProvider[] = [];
/** Each runtime's store (to read its audit log). */
const stores = new Map<ChannelsServer, InteractionStore>();
const pages: Page[] = [];

afterEach(async () => {
  for (const page of pages.splice(0)) await page.context().close();
});
after(async () => {
  for (const provider of providers.splice(0)) await provider.close();
});

const COOKIE = "codex_harness_session";
const FOREIGN = "https://elsewhere.example";

const approval = (command: string): InteractionInput => ({
  kind: "approval_request",
  source: { name: "tests" },
  title: `Run ${command}`,
  payload: { kind: "commandExecution", command },
});

/** A provider, and `count` runtimes on free ports whose callbacks it accepts. */
async function signInSetup(
  count = 1,
  storeUrl?: string,
  fleetConsole?: FleetConsoleSource,
): Promise<{ provider: TestProvider; runtimes: ChannelsServer[] }> {
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const provider = await startProvider(
    ports.map((port) => `http://127.0.0.1:${port}/auth/callback`),
  );
  providers.push(provider);
  const runtimes: ChannelsServer[] = [];
  for (const port of ports) {
    const dir = dataDir();
    const store = await openStore(storeUrl, dir);
    const runtime = await startChannelsServer({
      dataDir: dir,
      store,
      port,
      oidc: {
        issuer: provider.issuer,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        providerName: "Test IdP",
      },
      ...(fleetConsole ? { fleetConsole } : {}),
    });
    servers.push(runtime);
    stores.set(runtime, store);
    runtimes.push(runtime);
  }
  return { provider, runtimes };
}

/** A fresh browser context (its own cookies) on the inbox. */
async function openInbox(runtime: ChannelsServer): Promise<Page> {
  const context = await browser().newContext();
  const page = await context.newPage();
  pages.push(page);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`${runtime.url}/`);
  await page.locator("#login").waitFor();
  assert.deepEqual(errors, []);
  return page;
}

/** Signs in as `login` through the provider's form; waits for the live inbox. */
async function signIn(runtime: ChannelsServer, login: string): Promise<Page> {
  const page = await openInbox(runtime);
  await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
  await page.locator("input[name=login]").fill(login);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${runtime.url}/`);
  await page.waitForSelector("#connection:text('live')");
  return page;
}

/** The session cookie the browser holds for the runtime (its value, as a Cookie header). */
async function sessionCookie(page: Page): Promise<string> {
  const cookie = (await page.context().cookies()).find((c) => c.name === COOKIE);
  assert.ok(cookie, "a session cookie");
  return `${COOKIE}=${cookie.value}`;
}

/** `GET /v1/me` from the page (its cookie, no token). */
const meOf = (page: Page): Promise<{ status: number; body: Record<string, unknown> }> =>
  page.evaluate(async () => {
    const response = await fetch("/v1/me", { credentials: "same-origin" });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  });

/** The audit log's entries, parsed. */
async function auditOf(runtime: ChannelsServer): Promise<Record<string, unknown>[]> {
  const log = stores.get(runtime)?.audit;
  assert.ok(log);
  return (await log.rows({ limit: 1_000 })).map((row) => JSON.parse(row.body));
}

describe("inbox sign-in with OpenID Connect (headless Chromium)", { skip: chromiumMissing }, () => {
  it("signing in from the fleet console returns to it; another return is ignored", async () => {
    const { runtimes } = await signInSetup(1, undefined, emptyFleet());
    const runtime = runtimes[0] as ChannelsServer;
    const context = await browser().newContext();
    const page = await context.newPage();
    pages.push(page);
    await page.goto(`${runtime.url}/fleet`);
    await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
    await page.locator("input[name=login]").fill("alice");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${runtime.url}/fleet`);
    await page.waitForSelector("#connection:text('live')");
    assert.equal(
      await page.locator("#signed-in").textContent(),
      "Signed in as Alice Liddell (alice); you may look, not cancel or retry (no operate scope).",
    );
    for (const to of ["//elsewhere.example", "https://elsewhere.example/", "/v1/me"]) {
      const login = await fetch(`${runtime.url}/auth/login?to=${encodeURIComponent(to)}`, {
        redirect: "manual",
      });
      assert.equal(login.status, 302);
      const cookies = login.headers.getSetCookie().join("\n");
      assert.match(cookies, /codex_harness_return=; Max-Age=0/, `${to}: no page to return to`);
    }
  });

  it("signs in through the provider and lands in the inbox as alice, who answers as herself", async () => {
    const { runtimes } = await signInSetup();
    const runtime = runtimes[0] as ChannelsServer;
    const asked = await runtime.runtime.create(approval("npm publish"));
    const page = await signIn(runtime, "alice");
    assert.equal(
      await page.locator("#signed-in").textContent(),
      "Signed in as Alice Liddell (alice) through Test IdP.",
    );
    assert.equal(await page.locator("#claim").isHidden(), true, "no name box: she is known");
    assert.deepEqual(await meOf(page), {
      status: 200,
      body: {
        kind: "person",
        id: "alice",
        name: "Alice Liddell",
        groups: ["release"],
        scopes: ["read", "answer"],
      },
    });
    // The cookie: HttpOnly (no script sees it), SameSite=Strict, not Secure on plain http.
    const cookies = await page.context().cookies(runtime.url);
    const session = cookies.find((cookie) => cookie.name === COOKIE);
    assert.equal(session?.httpOnly, true);
    assert.equal(session?.sameSite, "Strict");
    assert.equal(session?.secure, false);
    assert.equal(session?.path, "/");
    assert.ok(session && session.expires * 1000 > Date.now() + 11 * 60 * 60 * 1000, "12 hours");
    assert.equal(
      cookies.some((cookie) => cookie.name === "codex_harness_login"),
      false,
      "the sign-in under way is forgotten",
    );
    assert.equal(await page.evaluate("document.cookie.includes('codex_harness_session')"), false);
    // She answers from the inbox: as alice, from the inbox.
    const card = page.locator(`#pending article[data-id="${asked.id}"]`);
    await card.getByRole("button", { name: "Accept", exact: true }).click();
    await page.locator(`#history article[data-id="${asked.id}"]`).waitFor();
    const answered = await runtime.runtime.get(asked.id);
    assert.equal(answered.response?.answeredBy, "alice");
    const entries = await auditOf(runtime);
    assert.deepEqual(
      entries.map(
        (entry) => `${entry.action} ${(entry.actor as { id: string }).id} ${entry.surface}`,
      ),
      [
        "interaction.created admin in-process",
        "person.added alice inbox",
        "session.started alice inbox",
        "interaction.answered alice inbox",
      ],
    );
  });

  it("groups come from the claims, normalised, and each sign-in brings them up to date", async () => {
    const { provider, runtimes } = await signInSetup();
    const runtime = runtimes[0] as ChannelsServer;
    const carol = await signIn(runtime, "carol");
    const me = await meOf(carol);
    assert.equal(me.body.id, "carol", "Carol@Example.com: the part before the @, lower case");
    assert.deepEqual(me.body.groups, ["ops-team", "platform.release"]);
    const bob = await signIn(runtime, "bob");
    assert.deepEqual((await meOf(bob)).body.groups, []);
    // The provider moves bob into release: his next sign-in says so.
    provider.accounts.set("bob", {
      preferred_username: "bob",
      name: "Bob B.",
      groups: ["release"],
    });
    const again = await signIn(runtime, "bob");
    assert.deepEqual((await meOf(again)).body, {
      kind: "person",
      id: "bob",
      name: "Bob B.",
      groups: ["release"],
      scopes: ["read", "answer"],
    });
    assert.deepEqual((await runtime.people?.get("bob"))?.groups, ["release"]);
  });

  it("refuses another origin's changes with the cookie (403), and the request stays pending", async () => {
    const { provider, runtimes } = await signInSetup();
    const runtime = runtimes[0] as ChannelsServer;
    const asked = await runtime.runtime.create(approval("rm -rf build"));
    const page = await signIn(runtime, "alice");
    const cookie = await sessionCookie(page);
    const respond = (headers: Record<string, string>) =>
      fetch(`${runtime.url}/v1/interactions/${asked.id}/respond`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json", ...headers },
        body: JSON.stringify({ action: "accept" }),
      });
    const foreign = await respond({ origin: FOREIGN });
    assert.equal(foreign.status, 403);
    assert.equal(
      ((await foreign.json()) as { error: { code: string } }).error.code,
      "forbidden_origin",
    );
    const none = await respond({});
    assert.equal(none.status, 403, "a cookie's change needs an Origin");
    assert.match(JSON.stringify(await none.json()), /carries no Origin header/);
    // A page on another origin posts with the browser's cookies (a classic forgery: no-cors, text).
    const evil = await page.context().newPage();
    await evil.goto(`${provider.issuer}/.well-known/openid-configuration`);
    await evil.evaluate(
      ([url]) =>
        fetch(url as string, {
          method: "POST",
          mode: "no-cors",
          credentials: "include",
          headers: { "content-type": "text/plain" },
          body: JSON.stringify({ action: "accept" }),
        }).then(() => undefined),
      [`${runtime.url}/v1/interactions/${asked.id}/respond`],
    );
    assert.equal((await runtime.runtime.get(asked.id)).status, "delivered", "still waiting");
    // Another origin is refused before anyone is identified (as for every request); the cookie's
    // answer without an Origin is recorded as alice's, refused.
    const refusals = (await auditOf(runtime)).filter((entry) => entry.action === "answer.refused");
    assert.deepEqual(
      refusals.map((entry) => [(entry.actor as { id: string }).id, entry.surface, entry.reason]),
      [["alice", "inbox", "forbidden_origin"]],
    );
    // Reads are fine with the cookie; its own origin's change goes through.
    assert.equal((await fetch(`${runtime.url}/v1/me`, { headers: { cookie } })).status, 200);
    const own = await respond({ origin: runtime.url });
    assert.equal(own.status, 200);
    assert.equal((await runtime.runtime.get(asked.id)).response?.answeredBy, "alice");
  });

  it("Sign out ends the session: the next request with its cookie is 401", async () => {
    const { runtimes } = await signInSetup();
    const runtime = runtimes[0] as ChannelsServer;
    const page = await signIn(runtime, "alice");
    const cookie = await sessionCookie(page);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.locator("#error:text('Signed out.')").waitFor();
    assert.equal(await page.locator("#login").isVisible(), true);
    assert.equal(await page.locator("#inbox").isHidden(), true);
    assert.equal(
      (await page.context().cookies()).some((c) => c.name === COOKIE),
      false,
      "the cookie is deleted",
    );
    assert.equal((await fetch(`${runtime.url}/v1/me`, { headers: { cookie } })).status, 401);
    assert.equal((await meOf(page)).status, 401);
    // Logging out needs the runtime's own origin too.
    const forged = await fetch(`${runtime.url}/auth/logout`, {
      method: "POST",
      headers: { cookie, origin: FOREIGN },
    });
    assert.equal(forged.status, 403);
    const actions = (await auditOf(runtime)).map((entry) => entry.action);
    assert.deepEqual(actions.slice(-2), ["session.started", "session.ended"]);
  });

  it("a person removed from the store is refused on their next request", async () => {
    const { runtimes } = await signInSetup();
    const runtime = runtimes[0] as ChannelsServer;
    const page = await signIn(runtime, "alice");
    const cookie = await sessionCookie(page);
    await runtime.people?.remove("alice");
    assert.equal((await fetch(`${runtime.url}/v1/me`, { headers: { cookie } })).status, 401);
    await page.reload();
    await page.locator("#login").waitFor({ state: "visible" });
    assert.match(String(await page.locator("#error").textContent()), /sign-in has ended/);
  });

  it("an id that cannot be a person's is refused with a page saying why, and recorded", async () => {
    const { runtimes } = await signInSetup();
    const runtime = runtimes[0] as ChannelsServer;
    const page = await openInbox(runtime);
    await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
    await page.locator("input[name=login]").fill("not-valid");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator("#refused").waitFor();
    assert.match(
      String(await page.locator("#reason").textContent()),
      /preferred_username claim "not valid!" cannot be a person id here .*--oidc-id-claim/,
    );
    assert.equal(
      (await page.context().cookies()).some((c) => c.name === COOKIE),
      false,
    );
    const refused = (await auditOf(runtime)).filter((entry) => entry.action === "sign-in.refused");
    assert.equal(refused.length, 1);
    assert.equal(refused[0]?.reason, "invalid_identity");
    await page.getByRole("link", { name: "Back to the inbox" }).click();
    await page.locator("#login").waitFor();
  });

  it("the callback refuses a sign-in it did not start, unrecorded", async () => {
    const { runtimes } = await signInSetup();
    const runtime = runtimes[0] as ChannelsServer;
    const response = await fetch(`${runtime.url}/auth/callback?code=x&state=y`);
    assert.equal(response.status, 400);
    assert.match(await response.text(), /not started from this browser/);
    assert.equal(
      response.headers.get("content-security-policy")?.includes("script-src 'self'"),
      true,
    );
    assert.deepEqual(await auditOf(runtime), []);
  });

  it("tokens keep working beside the sign-in", async () => {
    const { runtimes } = await signInSetup();
    const runtime = runtimes[0] as ChannelsServer;
    const context = await browser().newContext();
    const page = await context.newPage();
    pages.push(page);
    await page.goto(runtime.inboxUrl);
    await page.waitForSelector("#connection:text('live')");
    assert.equal(
      await page.locator("#signed-in").textContent(),
      "Signed in with the runtime's token (admin).",
    );
  });

  it("two runtimes on one PostgreSQL accept the same session", {
    skip: postgresMissing,
  }, async () => {
    const { runtimes } = await signInSetup(2, postgresUrl());
    const [a, b] = runtimes as [ChannelsServer, ChannelsServer];
    const page = await signIn(a, "alice");
    const cookie = await sessionCookie(page);
    const onB = await fetch(`${b.url}/v1/me`, { headers: { cookie } });
    assert.equal(onB.status, 200);
    assert.deepEqual(((await onB.json()) as { groups: string[] }).groups, ["release"]);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.locator("#error:text('Signed out.')").waitFor();
    assert.equal((await fetch(`${b.url}/v1/me`, { headers: { cookie } })).status, 401);
  });
});

describe("a runtime with an OpenID provider that cannot be used does not start", () => {
  const start = (issuer: string) =>
    startChannelsServer({ dataDir: dataDir(), port: 0, oidc: { issuer, clientId: CLIENT_ID } });

  it("an unreachable issuer: oidc_discovery_failed, saying what to change, with the cause", async () => {
    const port = await freePort();
    await assert.rejects(start(`http://127.0.0.1:${port}`), (error: unknown) => {
      assert.ok(error instanceof CodexHarnessError);
      assert.equal(error.code, "oidc_discovery_failed");
      assert.match(error.message, /Cannot use the OpenID provider http:\/\/127\.0\.0\.1:\d+\//);
      assert.match(error.message, /Check oidc\.issuer \(--oidc-issuer\)/);
      assert.ok(error.cause);
      return true;
    });
  });

  it("an issuer that is no OpenID provider fails the same way", async () => {
    const server = createServer((_request, response) => {
      response.writeHead(404).end("no");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      await assert.rejects(
        start(`http://127.0.0.1:${port}/realms/none`),
        (error: unknown) =>
          error instanceof CodexHarnessError && error.code === "oidc_discovery_failed",
      );
    } finally {
      server.close();
    }
  });

  it("an issuer that is not https (off this machine) or not a URL is an invalid option", async () => {
    for (const issuer of ["http://idp.example.com", "idp.example.com"]) {
      await assert.rejects(
        start(issuer),
        (error: unknown) =>
          error instanceof CodexHarnessError &&
          error.code === "invalid_option" &&
          /--oidc-issuer/.test(error.message),
      );
    }
  });
});

/** A fleet console source with no runs, workers or sessions (the console's page without PostgreSQL). */
function emptyFleet(): FleetConsoleSource {
  const none = async () => async () => undefined;
  return {
    summary: async () => ({
      runs: { queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 },
      oldestQueuedMs: null,
      workersAlive: 0,
    }),
    workers: async () => [],
    runs: async () => ({ items: [] }),
    run: async () => undefined,
    statuses: async () => [],
    events: async () => [],
    cancel: async () => ({ status: "cancelled", alreadyEnded: true }),
    retry: async () => {
      throw new Error("no runs");
    },
    sessions: async () => ({ items: [] }),
    session: async () => undefined,
    onRunChange: none,
    onRunEvents: none,
    listening: async () => undefined,
  };
}
