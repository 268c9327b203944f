// Setting up the inbox's OpenID Connect sign-in when a runtime starts: the options checked, the
// provider discovered (before the runtime opens anything, so that a bad issuer fails the start
// alone), then the sessions over the store's people.
import { CodexHarnessError } from "../errors.js";
import { CALLBACK_PATH, checkOidcOptions, type OidcOptions, OidcSignIn } from "./oidc.js";
import type { SignInContext } from "./oidc-routes.js";
import type { Scope } from "./people-types.js";
import { Sessions } from "./sessions.js";
import type { InteractionStore } from "./store.js";

/** A provider discovered, and what its sessions will be. */
export interface DiscoveredSignIn {
  oidc: OidcSignIn;
  options: OidcOptions;
  scopes: Scope[];
  sessionTtlMs: number;
  /** Whether cookies are `Secure`: the redirect URL is https (the default one is plain http). */
  secure: boolean;
}

/** Addresses a server listens on that no browser can be sent back to. */
const WILDCARDS = new Set(["0.0.0.0", "::", "[::]", ""]);

/**
 * Checks the options and discovers the provider. `serverUrl` is the runtime's URL once it
 * listens, for the default redirect URL (`<server url>/auth/callback`). Throws `invalid_option`
 * or `oidc_discovery_failed` (see {@link OidcSignIn.discover}).
 */
export async function discoverSignIn(
  options: OidcOptions,
  host: string,
  serverUrl: () => string,
): Promise<DiscoveredSignIn> {
  const { scopes, sessionTtlMs } = checkOidcOptions(options);
  const given = options.redirectUrl;
  let redirect: URL | undefined;
  if (given !== undefined) {
    redirect = URL.canParse(given) ? new URL(given) : undefined;
    if (!redirect || (redirect.protocol !== "https:" && redirect.protocol !== "http:")) {
      throw new CodexHarnessError(
        "invalid_option",
        `oidc.redirectUrl (--oidc-redirect-url) must be an http(s) URL ending in ${CALLBACK_PATH}, as browsers reach the runtime (e.g. https://inbox.example.com${CALLBACK_PATH}), got ${JSON.stringify(given)}.`,
      );
    }
  } else if (WILDCARDS.has(host)) {
    throw new CodexHarnessError(
      "invalid_option",
      `The runtime listens on ${host || "every interface"}, so there is no address to send browsers back to after sign-in: give oidc.redirectUrl (--oidc-redirect-url), e.g. https://inbox.example.com${CALLBACK_PATH}.`,
    );
  }
  const redirectUrl = () => redirect ?? new URL(CALLBACK_PATH, serverUrl());
  const oidc = await OidcSignIn.discover(options, redirectUrl);
  return { oidc, options, scopes, sessionTtlMs, secure: redirect?.protocol === "https:" };
}

/** What the sign-in routes need but the server's own parts (its throttle, its host names). */
export type SignInParts = Omit<SignInContext, "access" | "ownsOrigin">;

/**
 * A discovered sign-in over `store`: its sessions over the store's people, and its audit log.
 * Throws `invalid_option` when the store keeps no people (a custom store).
 */
export function signInOver(signIn: DiscoveredSignIn, store: InteractionStore): SignInParts {
  const { idClaim, groupsClaim } = signIn.options;
  return {
    oidc: signIn.oidc,
    sessions: sessionsOf(signIn, store),
    claims: { ...(idClaim ? { idClaim } : {}), ...(groupsClaim ? { groupsClaim } : {}) },
    audit: store.audit,
  };
}

/** The sessions of a discovered sign-in over `store`'s people (`invalid_option` without them). */
function sessionsOf(signIn: DiscoveredSignIn, store: InteractionStore): Sessions {
  if (!store.people) {
    throw new CodexHarnessError(
      "invalid_option",
      "oidc needs a store that keeps people (the built-in SQLite and PostgreSQL stores do): signed-in people and their sessions live there.",
    );
  }
  return new Sessions(store.people, {
    scopes: signIn.scopes,
    ttlMs: signIn.sessionTtlMs,
    secure: signIn.secure,
    issuer: signIn.oidc.issuer,
  });
}
