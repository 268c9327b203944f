// Who a request to the runtime's API comes from, and whether they may do what it asks: the bearer
// token is the data directory's (admin) or a person's or program's (with scopes), or else the web
// inbox's sign-in cookie (a person, with the sign-in's scopes); a cookie's changes must come from
// the runtime's own pages; bad tokens from one address slow that address down.
import type { IncomingMessage } from "node:http";
import { type BadTokenLimits, BadTokenThrottle } from "./bad-tokens.js";
import { ChannelsError } from "./errors.js";
import type { People } from "./people.js";
import { TOKEN_PREFIX } from "./people-tokens.js";
import { ADMIN, type Identity, type Scope } from "./people-types.js";
import type { Sessions } from "./sessions.js";
import { sameToken } from "./token.js";

/** Who a request comes from, and by which credential. */
export interface Authenticated {
  identity: Identity;
  /** `token`: a bearer token; `session`: the inbox's sign-in cookie. */
  by: "token" | "session";
}

/** Methods that change nothing (a cookie may carry them from the runtime's pages without Origin). */
const SAFE_METHODS = new Set(["GET", "HEAD"]);

/** Authenticates requests: one per runtime server. */
export class Access {
  private readonly throttle: BadTokenThrottle;

  /** `sessions`, when the inbox has sign-in (OIDC): their cookie is taken without a bearer token. */
  constructor(
    private readonly adminToken: string,
    private readonly people: People | undefined,
    limits: BadTokenLimits = {},
    private readonly sessions?: Sessions,
  ) {
    this.throttle = new BadTokenThrottle(limits);
  }

  /**
   * The identity of `request`'s bearer token, read from the store now (nothing is cached across
   * requests). Throws `too_many_attempts` (429) while its address must wait, `unauthorized` (401)
   * when the token is missing, unknown or revoked (which counts against the address).
   */
  async identify(request: IncomingMessage): Promise<Identity> {
    return (await this.authenticate(request)).identity;
  }

  /**
   * As {@link identify}, saying which credential it was: a bearer token when the request has an
   * `Authorization` header (a bad one is refused, whatever cookie comes with it), else the sign-in
   * cookie, when the inbox has sign-in.
   */
  async authenticate(request: IncomingMessage): Promise<Authenticated> {
    this.throttle.check(addressOf(request));
    const found = await this.credentialOf(request);
    if (found) return found;
    this.failed(request);
    throw new ChannelsError(
      "unauthorized",
      401,
      this.sessions
        ? "Sign in to the inbox, or send `Authorization: Bearer <token>`: the runtime's token (in <data-dir>/token), or a person's or program's token (`codex-harness people token`); this one is missing, unknown or revoked, or the sign-in ended."
        : "Send `Authorization: Bearer <token>`: the runtime's token (in <data-dir>/token), or a person's or program's token (`codex-harness people token`); this one is missing, unknown or revoked.",
    );
  }

  /** Throws `too_many_attempts` (429) while `request`'s address must wait (a sign-in's callback). */
  checkAddress(request: IncomingMessage): void {
    this.throttle.check(addressOf(request));
  }

  /** Counts a bad credential (or a refused sign-in) against `request`'s address. */
  failed(request: IncomingMessage): void {
    this.throttle.failed(addressOf(request));
  }

  /** Whether `request`'s credential still stands for someone with `scope` (an open stream's re-check). */
  async stillAllowed(request: IncomingMessage, scope: Scope): Promise<boolean> {
    const found = await this.credentialOf(request);
    return found?.identity.scopes.includes(scope) === true;
  }

  private async credentialOf(request: IncomingMessage): Promise<Authenticated | undefined> {
    const header = request.headers.authorization;
    if (header === undefined) {
      const identity = await this.sessions?.identify(request);
      return identity && { identity, by: "session" };
    }
    const token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    if (!token) return undefined;
    if (sameToken(token, this.adminToken)) return { identity: ADMIN, by: "token" };
    if (!token.startsWith(TOKEN_PREFIX) || !this.people) return undefined;
    const identity = await this.people.authenticate(token);
    return identity && { identity, by: "token" };
  }
}

/**
 * Throws `forbidden_origin` (403) when a request authenticated by the sign-in cookie would change
 * something (any method but GET and HEAD) without an `Origin` of the runtime's own (`ownsOrigin`):
 * another site's form or script cannot act with a signed-in person's cookie. Bearer tokens keep
 * their rules (a foreign `Origin` is refused for every request before this).
 */
export function refuseForgery(
  request: IncomingMessage,
  authenticated: Authenticated,
  ownsOrigin: (origin: string) => boolean,
): void {
  if (authenticated.by !== "session" || SAFE_METHODS.has(request.method ?? "GET")) return;
  const origin = request.headers.origin;
  if (origin !== undefined && ownsOrigin(origin)) return;
  throw new ChannelsError(
    "forbidden_origin",
    403,
    `A signed-in browser's changes must come from the runtime's own pages: this ${request.method} carries ${origin === undefined ? "no Origin header" : `the Origin ${origin}`}. Use the inbox, or a bearer token from a program.`,
  );
}

function addressOf(request: IncomingMessage): string {
  return request.socket.remoteAddress ?? "unknown";
}

/** What each scope lets one do, for the refusal's message. */
const NEEDED_FOR: Readonly<Record<Scope, string>> = {
  read: "reading interactions and their events (and saying one was shown), and the fleet console",
  answer: "answering interactions",
  create: "creating interactions",
  operate: "cancelling interactions, and cancelling or retrying fleet runs",
  admin: "managing people and tokens",
};

/**
 * Throws `missing_scope` (403) naming the scope when `identity` lacks it, and how to get it: a
 * token that has it, or (`by` a sign-in `session`) the runtime's setting for signed-in people.
 */
export function requireScope(
  identity: Identity,
  scope: Scope,
  by: Authenticated["by"] = "token",
): void {
  if (identity.scopes.includes(scope)) return;
  if (by === "session") {
    throw new ChannelsError(
      "missing_scope",
      403,
      `Signed-in people (here ${identity.id}) lack the "${scope}" scope, which ${NEEDED_FOR[scope]} needs; they have ${identity.scopes.map((s) => `"${s}"`).join(", ")}. The runtime's operator can give it to everyone who signs in (serve --oidc-scopes ${[...identity.scopes, scope].join(",")}), or issue you a token that has it.`,
    );
  }
  const who = identity.kind === "program" ? `program ${identity.id}` : identity.id;
  throw new ChannelsError(
    "missing_scope",
    403,
    `This token (of ${who}) lacks the "${scope}" scope, which ${NEEDED_FOR[scope]} needs; it has ${identity.scopes.map((s) => `"${s}"`).join(", ")}. An admin can issue one that has it: codex-harness people token ${identity.id} --scope ${[...identity.scopes, scope].join(",")}.`,
  );
}
