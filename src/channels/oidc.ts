// Sign-in to the web inbox with OpenID Connect (authorization code + PKCE, any provider) on
// `openid-client`, loaded only when a runtime is configured with a provider: its discovery at start,
// the redirect to the provider (state, nonce, S256 challenge, kept in a short-lived HttpOnly cookie
// so that any instance can take the callback), and the callback's code exchange and claims.
import type * as OpenIdClient from "openid-client";
import { CodexHarnessError } from "../errors.js";
import { cookieValue, setCookie } from "./cookies.js";
import type { Claims } from "./oidc-claims.js";
import { parseScopes, type Scope } from "./people-types.js";

/** OpenID Connect sign-in of the web inbox (`startChannelsServer({ oidc })`). */
export interface OidcOptions {
  /** The provider's issuer URL (its `/.well-known/openid-configuration` is read at start). */
  issuer: string;
  clientId: string;
  /** For a confidential client (sent as `client_secret_post`); none for a public one. */
  clientSecret?: string;
  /**
   * Where the provider sends the browser back: the runtime's `/auth/callback` as browsers reach it
   * (default `<server url>/auth/callback`; give it behind a proxy, with the public https URL).
   * An https one makes the cookies `Secure`.
   */
  redirectUrl?: string;
  /** The claim holding a person's groups, an array of strings (default `groups`). */
  groupsClaim?: string;
  /**
   * The claim holding a person's id (default `preferred_username`; without it, the email's local
   * part, then `sub`), normalised to an id (lower case, the part before an `@`).
   */
  idClaim?: string;
  /** What a signed-in person may do (default `["read", "answer"]`). */
  scopes?: readonly Scope[];
  /** How long a sign-in lasts (default 12 hours). */
  sessionTtlMs?: number;
  /** The provider's name on the inbox's button, "Sign in with <name>" (default "single sign-on"). */
  providerName?: string;
}

/** {@link OidcOptions.scopes}' default. */
export const DEFAULT_SIGNED_IN_SCOPES: readonly Scope[] = Object.freeze(["read", "answer"]);
/** {@link OidcOptions.sessionTtlMs}' default: 12 hours. */
export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** The cookie holding a sign-in under way (state, nonce, PKCE verifier). */
export const LOGIN_COOKIE = "codex_harness_login";
/** The path of the callback. */
export const CALLBACK_PATH = "/auth/callback";
/** How long a sign-in may take at the provider. */
const LOGIN_TTL_SECONDS = 600;
/** Longest wait for any request to the provider. */
const PROVIDER_TIMEOUT_SECONDS = 10;

/** A sign-in under way: what the callback must match. */
interface PendingLogin {
  state: string;
  nonce: string;
  verifier: string;
}

/** Why a callback was refused: `code` for the audit log, `status` for the page. */
export class SignInRefused extends CodexHarnessError {
  constructor(
    code: string,
    readonly status: number,
    message: string,
    /** Whether the browser came back from a sign-in this runtime started (else it is not recorded). */
    readonly started: boolean,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** A configured provider, discovered: starts sign-ins and finishes them. */
export class OidcSignIn {
  private constructor(
    private readonly client: typeof OpenIdClient,
    private readonly config: OpenIdClient.Configuration,
    private readonly redirectUrlOf: () => URL,
    readonly issuer: string,
    readonly providerName: string,
  ) {}

  /**
   * Checks `options` and reads the provider's discovery document (loading `openid-client`).
   * `redirectUrl` is asked for at each sign-in (the server's port may not be known yet). Throws
   * `invalid_option` naming a bad option, `oidc_discovery_failed` (keeping the cause) when the
   * issuer cannot be reached or is not an OpenID provider.
   */
  static async discover(options: OidcOptions, redirectUrl: () => URL): Promise<OidcSignIn> {
    const issuer = issuerUrl(options.issuer);
    if (!options.clientId?.trim()) {
      throw new CodexHarnessError(
        "invalid_option",
        "oidc.clientId (--oidc-client-id) is empty: give the client id the provider issued for this runtime.",
      );
    }
    const client = await import("openid-client");
    const secret = options.clientSecret;
    let config: OpenIdClient.Configuration;
    try {
      config = await client.discovery(
        issuer,
        options.clientId,
        secret ? { client_secret: secret } : undefined,
        secret ? client.ClientSecretPost(secret) : client.None(),
        {
          timeout: PROVIDER_TIMEOUT_SECONDS,
          ...(issuer.protocol === "http:" ? { execute: [client.allowInsecureRequests] } : {}),
        },
      );
    } catch (error) {
      throw new CodexHarnessError(
        "oidc_discovery_failed",
        `Cannot use the OpenID provider ${issuer.href}: ${describe(error)}. Check oidc.issuer (--oidc-issuer): it must be the provider's issuer URL, reachable from this machine, whose /.well-known/openid-configuration answers (e.g. https://accounts.google.com, https://login.microsoftonline.com/<tenant>/v2.0, https://<keycloak>/realms/<realm>).`,
        { cause: error },
      );
    }
    const name = options.providerName?.trim() || "single sign-on";
    return new OidcSignIn(client, config, redirectUrl, issuer.href, name);
  }

  /** Where the provider sends the browser back. */
  get redirectUrl(): URL {
    return this.redirectUrlOf();
  }

  /** Whether the cookies must be `Secure`: the browser reaches the runtime over https. */
  get secure(): boolean {
    return this.redirectUrl.protocol === "https:";
  }

  /** Where to send the browser to sign in, and the cookie that remembers the sign-in under way. */
  async login(): Promise<{ location: string; cookie: string }> {
    const client = this.client;
    const pending: PendingLogin = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      verifier: client.randomPKCECodeVerifier(),
    };
    const supported = this.config.serverMetadata().scopes_supported;
    const wanted = ["profile", "email", "groups"].filter(
      (scope) => supported?.includes(scope) ?? scope !== "groups",
    );
    const location = client.buildAuthorizationUrl(this.config, {
      redirect_uri: this.redirectUrl.href,
      scope: ["openid", ...wanted].join(" "),
      code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: "S256",
      state: pending.state,
      nonce: pending.nonce,
    });
    const value = [pending.state, pending.nonce, pending.verifier].join(".");
    return { location: location.href, cookie: this.loginCookie(value, LOGIN_TTL_SECONDS) };
  }

  /** The `Set-Cookie` that deletes the sign-in-under-way cookie. */
  clearLoginCookie(): string {
    return this.loginCookie("", 0);
  }

  /**
   * Finishes a sign-in from the callback's query and cookie header: checks the state, exchanges the
   * code (with the PKCE verifier), has `openid-client` validate the ID token (signature, issuer,
   * audience, expiry, nonce), and returns its claims, completed by the userinfo endpoint's when the
   * provider has one. Throws {@link SignInRefused} saying what went wrong.
   */
  async finish(search: string, cookieHeader: string | undefined): Promise<Claims> {
    const client = this.client;
    const query = new URLSearchParams(search);
    const pending = pendingOf(cookieValue(cookieHeader, LOGIN_COOKIE));
    const started = pending !== undefined && query.get("state") === pending.state;
    if (!pending) {
      throw new SignInRefused(
        "sign_in_expired",
        400,
        "This sign-in was not started from this browser, or took longer than 10 minutes. Sign in again.",
        false,
      );
    }
    const error = query.get("error");
    if (error) {
      const description = query.get("error_description");
      throw new SignInRefused(
        "provider_refused",
        403,
        `The provider refused the sign-in: ${error}${description ? ` (${description})` : ""}.`,
        started,
      );
    }
    if (!started) {
      throw new SignInRefused(
        "state_mismatch",
        400,
        "This answer from the provider belongs to another sign-in (another tab, or a forged link). Sign in again.",
        false,
      );
    }
    const current = new URL(this.redirectUrl);
    current.search = search;
    let tokens: Awaited<ReturnType<typeof OpenIdClient.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(this.config, current, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (cause) {
      throw new SignInRefused(
        "code_exchange_failed",
        502,
        `The sign-in could not be completed with the provider: ${describe(cause)}.`,
        true,
        { cause },
      );
    }
    const idClaims: Claims = tokens.claims() ?? {};
    if (!this.config.serverMetadata().userinfo_endpoint) return idClaims;
    try {
      const sub = String(idClaims.sub);
      const info = await client.fetchUserInfo(this.config, tokens.access_token, sub);
      // The ID token's claims win; userinfo fills in what it left out (groups, often).
      return { ...info, ...idClaims };
    } catch (cause) {
      throw new SignInRefused(
        "userinfo_failed",
        502,
        `The provider's userinfo endpoint did not answer as expected: ${describe(cause)}.`,
        true,
        { cause },
      );
    }
  }

  private loginCookie(value: string, maxAgeSeconds: number): string {
    // Lax: the provider sends the browser back with a top-level GET from its own site.
    return setCookie(LOGIN_COOKIE, value, {
      maxAgeSeconds,
      path: CALLBACK_PATH,
      sameSite: "Lax",
      secure: this.secure,
    });
  }
}

/**
 * Checks what {@link OidcOptions} says beyond the issuer (which discovery checks): the scopes and the
 * session's length. Throws `invalid_option`.
 */
export function checkOidcOptions(options: OidcOptions): {
  scopes: Scope[];
  sessionTtlMs: number;
} {
  let scopes: Scope[];
  try {
    scopes = parseScopes(options.scopes ?? DEFAULT_SIGNED_IN_SCOPES);
  } catch (error) {
    throw new CodexHarnessError(
      "invalid_option",
      `oidc.scopes (--oidc-scopes): ${(error as Error).message}`,
    );
  }
  const sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  if (!Number.isFinite(sessionTtlMs) || sessionTtlMs < 60_000) {
    throw new CodexHarnessError(
      "invalid_option",
      `oidc.sessionTtlMs must be at least 60000 (a minute), got ${sessionTtlMs}.`,
    );
  }
  return { scopes, sessionTtlMs };
}

/**
 * The issuer as a URL: https, or http on this machine (a provider for tests or development).
 * Throws `invalid_option`.
 */
function issuerUrl(issuer: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(issuer);
  } catch {
    url = undefined;
  }
  const loopback = url && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (!url || !(url.protocol === "https:" || (url.protocol === "http:" && loopback))) {
    throw new CodexHarnessError(
      "invalid_option",
      `oidc.issuer (--oidc-issuer) must be the provider's https:// issuer URL (http:// only on this machine), got ${JSON.stringify(issuer)}.`,
    );
  }
  return url;
}

/** The sign-in under way in a login cookie's value, when it is one. */
function pendingOf(value: string | undefined): PendingLogin | undefined {
  const parts = value?.split(".");
  if (parts?.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]{16,128}$/.test(part))) {
    return undefined;
  }
  const [state, nonce, verifier] = parts as [string, string, string];
  return { state, nonce, verifier };
}

/** An error's message with its causes' (fetch's "fetch failed" says little alone). */
function describe(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    if (!messages.includes(current.message)) messages.push(current.message);
    current = current.cause;
  }
  return messages.join(": ") || String(error);
}
