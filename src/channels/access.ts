// Who a request to the runtime's API comes from, and whether they may do what it asks: the bearer
// token is the data directory's (admin) or a person's or program's (with scopes); bad tokens from
// one address slow that address down.
import type { IncomingMessage } from "node:http";
import { type BadTokenLimits, BadTokenThrottle } from "./bad-tokens.js";
import { ChannelsError } from "./errors.js";
import type { People } from "./people.js";
import { TOKEN_PREFIX } from "./people-tokens.js";
import { ADMIN, type Identity, type Scope } from "./people-types.js";
import { sameToken } from "./token.js";

/** Authenticates requests: one per runtime server. */
export class Access {
  private readonly throttle: BadTokenThrottle;

  constructor(
    private readonly adminToken: string,
    private readonly people: People | undefined,
    limits: BadTokenLimits = {},
  ) {
    this.throttle = new BadTokenThrottle(limits);
  }

  /**
   * The identity of `request`'s bearer token, read from the store now (nothing is cached across
   * requests). Throws `too_many_attempts` (429) while its address must wait, `unauthorized` (401)
   * when the token is missing, unknown or revoked (which counts against the address).
   */
  async identify(request: IncomingMessage): Promise<Identity> {
    const address = request.socket.remoteAddress ?? "unknown";
    this.throttle.check(address);
    const identity = await this.identityOf(request);
    if (identity) return identity;
    this.throttle.failed(address);
    throw new ChannelsError(
      "unauthorized",
      401,
      "Send `Authorization: Bearer <token>`: the runtime's token (in <data-dir>/token), or a person's or program's token (`codex-harness people token`); this one is missing, unknown or revoked.",
    );
  }

  /** Whether `request`'s token still stands for someone with `scope` (an open stream's re-check). */
  async stillAllowed(request: IncomingMessage, scope: Scope): Promise<boolean> {
    const identity = await this.identityOf(request);
    return identity?.scopes.includes(scope) === true;
  }

  private async identityOf(request: IncomingMessage): Promise<Identity | undefined> {
    const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "")?.[1];
    if (!token) return undefined;
    if (sameToken(token, this.adminToken)) return ADMIN;
    if (!token.startsWith(TOKEN_PREFIX) || !this.people) return undefined;
    return this.people.authenticate(token);
  }
}

/** What each scope lets one do, for the refusal's message. */
const NEEDED_FOR: Readonly<Record<Scope, string>> = {
  read: "reading interactions and their events (and saying one was shown)",
  answer: "answering interactions",
  create: "creating interactions",
  operate: "cancelling interactions",
  admin: "managing people and tokens",
};

/** Throws `missing_scope` (403) naming the scope when `identity` lacks it. */
export function requireScope(identity: Identity, scope: Scope): void {
  if (identity.scopes.includes(scope)) return;
  const who = identity.kind === "program" ? `program ${identity.id}` : identity.id;
  throw new ChannelsError(
    "missing_scope",
    403,
    `This token (of ${who}) lacks the "${scope}" scope, which ${NEEDED_FOR[scope]} needs; it has ${identity.scopes.map((s) => `"${s}"`).join(", ")}. An admin can issue one that has it: codex-harness people token ${identity.id} --scope ${[...identity.scopes, scope].join(",")}.`,
  );
}
