// The pure parts of the inbox's OpenID Connect sign-in: cookies (read and written), who the claims
// say signed in (ids and groups normalised), the options checked, the serve flags, and a cookie's
// changes refused without the runtime's own Origin.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { type Authenticated, refuseForgery } from "../../src/channels/access.js";
import { cookieValue, setCookie } from "../../src/channels/cookies.js";
import { ChannelsError } from "../../src/channels/errors.js";
import { checkOidcOptions } from "../../src/channels/oidc.js";
import { claimAt, groupsOf, normaliseId, signedInOf } from "../../src/channels/oidc-claims.js";
import { escapeHtml } from "../../src/channels/oidc-routes.js";
import { ADMIN } from "../../src/channels/people-types.js";
import { oidcServeOptions } from "../../src/cli/serve-oidc.js";
import { CodexHarnessError } from "../../src/errors.js";

const dirs: string[] = [];
after(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SECRET = "x".repeat(43);

describe("cookies", () => {
  it("reads one cookie by name from a Cookie header", () => {
    const header = `a=1; codex_harness_session=${SECRET};b=2`;
    assert.equal(cookieValue(header, "codex_harness_session"), SECRET);
    assert.equal(cookieValue(header, "a"), "1");
    assert.equal(cookieValue(header, "missing"), undefined);
    assert.equal(cookieValue(undefined, "a"), undefined);
    assert.equal(cookieValue("xa=1", "a"), undefined, "a name is matched whole");
  });

  it("trusts no cookie sent twice, none empty, none with a quote or a space inside", () => {
    assert.equal(cookieValue("a=1; a=2", "a"), undefined);
    assert.equal(cookieValue("a=", "a"), undefined);
    assert.equal(cookieValue('a="1"', "a"), undefined);
    assert.equal(cookieValue("a=1 2", "a"), undefined);
  });

  it("writes HttpOnly cookies with their lifetime, path, SameSite and Secure", () => {
    assert.equal(
      setCookie("s", "v.1", { maxAgeSeconds: 43_200, sameSite: "Strict", secure: false }),
      "s=v.1; Max-Age=43200; Path=/; HttpOnly; SameSite=Strict",
    );
    assert.equal(
      setCookie("l", "", {
        maxAgeSeconds: 0,
        path: "/auth/callback",
        sameSite: "Lax",
        secure: true,
      }),
      "l=; Max-Age=0; Path=/auth/callback; HttpOnly; SameSite=Lax; Secure",
    );
    assert.throws(() =>
      setCookie("s", "a;b", { maxAgeSeconds: 1, sameSite: "Lax", secure: false }),
    );
  });
});

describe("who the claims say signed in", () => {
  it("normalises ids: lower case, accents dropped, the part before an @, spaces as -", () => {
    assert.equal(normaliseId("Alice", "person"), "alice");
    assert.equal(normaliseId("alice.smith@corp.example.com", "person"), "alice.smith");
    assert.equal(normaliseId("José Núñez", "person"), "jose-nunez");
    assert.equal(normaliseId("release", "group"), "release");
    assert.equal(normaliseId("/team/ops", "group"), "team.ops", "a group path");
    assert.equal(
      normaliseId("8e1f6f4c-1d5b-4a6e-9d52-4c1c8b0e7b9a", "group"),
      "8e1f6f4c-1d5b-4a6e-9d52-4c1c8b0e7b9a",
    );
  });

  it("refuses what cannot be an id: other characters, too long, admin, empty", () => {
    assert.equal(normaliseId("bob!", "person"), undefined);
    assert.equal(normaliseId("a:b", "person"), undefined, "colons are chat users' ids");
    assert.equal(normaliseId("x".repeat(65), "person"), undefined);
    assert.equal(normaliseId("Admin", "person"), undefined);
    assert.equal(normaliseId("admin", "group"), "admin", "a group may be called admin");
    assert.equal(normaliseId("   ", "person"), undefined);
    assert.equal(normaliseId("@example.com", "person"), undefined);
  });

  it("groups: an array of strings (or one), normalised, invalid ones dropped, sorted, once each", () => {
    const claims = { groups: ["Release", "release", "Has Spaces", "bad!", 42, null, "/a/b"] };
    assert.deepEqual(groupsOf(claims, "groups"), ["a.b", "has-spaces", "release"]);
    assert.deepEqual(groupsOf({ groups: "ops" }, "groups"), ["ops"]);
    assert.deepEqual(groupsOf({ groups: [] }, "groups"), []);
    assert.equal(groupsOf({}, "groups"), undefined, "absent: the person's groups stay");
    assert.deepEqual(groupsOf({ realm_access: { roles: ["deploy"] } }, "realm_access.roles"), [
      "deploy",
    ]);
  });

  it("finds a claim by name, or by a dotted path into nested objects", () => {
    assert.equal(claimAt({ "a.b": 1, a: { b: 2 } }, "a.b"), 1, "a top-level name first");
    assert.equal(claimAt({ a: { b: 2 } }, "a.b"), 2);
    assert.equal(claimAt({ a: "text" }, "a.b"), undefined);
    assert.equal(claimAt({}, "__proto__.toString"), undefined, "only own properties");
  });

  it("the id: the configured claim, else the email's local part, else sub", () => {
    const full = { sub: "00u1", preferred_username: "Alice", email: "al@x.org", name: "Alice L." };
    assert.deepEqual(signedInOf(full), {
      id: "alice",
      name: "Alice L.",
      groups: undefined,
      idFrom: "preferred_username",
    });
    assert.equal(signedInOf({ sub: "00u1", email: "Al@x.org" }).id, "al");
    assert.equal(signedInOf({ sub: "00U1" }).id, "00u1");
    assert.equal(signedInOf({ sub: "s", upn: "Carol@corp" }, { idClaim: "upn" }).id, "carol");
    const named = signedInOf({ sub: "s", preferred_username: "dave" });
    assert.equal(named.name, "dave", "without a name claim, the id");
    assert.deepEqual(signedInOf({ sub: "s", roles: ["x"] }, { groupsClaim: "roles" }).groups, [
      "x",
    ]);
  });

  it("refuses a sign-in whose id cannot be made valid, saying which claim to configure", () => {
    const refused = (claims: Record<string, unknown>, pattern: RegExp) =>
      assert.throws(
        () => signedInOf(claims),
        (error: unknown) =>
          error instanceof CodexHarnessError &&
          error.code === "invalid_identity" &&
          pattern.test(error.message),
      );
    refused(
      { preferred_username: "not valid!", sub: "s" },
      /preferred_username claim "not valid!".*--oidc-id-claim/,
    );
    refused({ preferred_username: "admin", sub: "s" }, /not "admin"/);
    refused({}, /none of the claims preferred_username, email or sub/);
  });
});

describe("the sign-in's options", () => {
  it("defaults: read and answer, 12 hours", () => {
    assert.deepEqual(checkOidcOptions({ issuer: "https://x", clientId: "c" }), {
      scopes: ["read", "answer"],
      sessionTtlMs: 12 * 60 * 60 * 1000,
    });
  });

  it("refuses an unknown scope and a session shorter than a minute, naming the option", () => {
    const invalid = (pattern: RegExp) => (error: unknown) =>
      error instanceof CodexHarnessError &&
      error.code === "invalid_option" &&
      pattern.test(error.message);
    assert.throws(
      () =>
        checkOidcOptions({
          issuer: "https://x",
          clientId: "c",
          scopes: ["read", "rule" as "read"],
        }),
      invalid(/oidc\.scopes.*"rule"/),
    );
    assert.throws(
      () => checkOidcOptions({ issuer: "https://x", clientId: "c", sessionTtlMs: 5 }),
      invalid(/sessionTtlMs/),
    );
  });

  it("serve's flags: none without --oidc-issuer; the secret from a file or the environment", async () => {
    assert.equal(await oidcServeOptions({}, {}), undefined);
    await assert.rejects(
      oidcServeOptions({ oidcClientId: "c", oidcScopes: "read" }, {}),
      /--oidc-client-id, --oidc-scopes need --oidc-issuer/,
    );
    await assert.rejects(
      oidcServeOptions({ oidcIssuer: "https://idp.example.com" }, {}),
      /needs --oidc-client-id/,
    );
    const env = { CODEX_HARNESS_OIDC_CLIENT_SECRET: " from-env \n" };
    assert.deepEqual(
      await oidcServeOptions(
        { oidcIssuer: "https://idp.example.com", oidcClientId: "c", oidcScopes: "answer,read" },
        env,
      ),
      {
        issuer: "https://idp.example.com",
        clientId: "c",
        clientSecret: "from-env",
        scopes: ["read", "answer"],
      },
    );
    const dir = mkdtempSync(path.join(os.tmpdir(), "oidc-flags-"));
    dirs.push(dir);
    const file = path.join(dir, "secret");
    writeFileSync(file, "from-file\n");
    const fromFile = await oidcServeOptions(
      { oidcIssuer: "https://idp.example.com", oidcClientId: "c", oidcClientSecretFile: file },
      env,
    );
    assert.equal(fromFile?.clientSecret, "from-file", "the file wins");
    await assert.rejects(
      oidcServeOptions(
        {
          oidcIssuer: "https://i",
          oidcClientId: "c",
          oidcClientSecretFile: path.join(dir, "none"),
        },
        {},
      ),
      (error: unknown) => error instanceof CodexHarnessError && error.code === "missing_secret",
    );
    await assert.rejects(
      oidcServeOptions({ oidcIssuer: "https://i", oidcClientId: "c", oidcScopes: "rule" }, {}),
      /--oidc-scopes: Unknown scope "rule"/,
    );
  });
});

describe("a cookie's changes come only from the runtime's own pages", () => {
  const request = (method: string, origin?: string) =>
    ({ method, headers: origin === undefined ? {} : { origin } }) as unknown as IncomingMessage;
  const own = (origin: string) => origin === "http://127.0.0.1:4317";
  const session: Authenticated = { identity: ADMIN, by: "session" };
  const token: Authenticated = { identity: ADMIN, by: "token" };
  const forbidden = (error: unknown) =>
    error instanceof ChannelsError && error.status === 403 && error.code === "forbidden_origin";

  it("refuses a cookie's POST without an Origin, or with another one", () => {
    assert.throws(() => refuseForgery(request("POST"), session, own), forbidden);
    assert.throws(
      () => refuseForgery(request("POST", "https://evil.example"), session, own),
      forbidden,
    );
    assert.throws(() => refuseForgery(request("DELETE", "null"), session, own), forbidden);
  });

  it("lets the cookie's reads through, its own pages' changes, and tokens as before", () => {
    refuseForgery(request("GET"), session, own);
    refuseForgery(request("HEAD"), session, own);
    refuseForgery(request("POST", "http://127.0.0.1:4317"), session, own);
    refuseForgery(request("POST"), token, own);
  });

  it("escapes what a refusal page shows", () => {
    assert.equal(
      escapeHtml(`<img src=x onerror="a('b')">&`),
      "&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;",
    );
  });
});
