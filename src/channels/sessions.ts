// The web inbox's sign-in sessions: a random secret in an HttpOnly cookie, only its SHA-256 in the
// store (so every runtime instance sharing the store accepts it), an end time, and the person read
// from the store on every request (a person removed is refused at once).
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { actorOf } from "./audit-records.js";
import type { AuditRecord } from "./audit-types.js";
import { cookieValue, setCookie } from "./cookies.js";
import type { PeopleStore } from "./people-store.js";
import { hashSecret } from "./people-tokens.js";
import type { Identity, Person, Scope } from "./people-types.js";

/** The session cookie's name. */
export const SESSION_COOKIE = "codex_harness_session";

/** A session's secret: 32 random bytes, base64url (43 characters). */
const SECRET = /^[A-Za-z0-9_-]{43}$/;

/** Options of {@link Sessions}. */
export interface SessionOptions {
  /** What a signed-in person may do. */
  scopes: readonly Scope[];
  /** How long a session lasts. */
  ttlMs: number;
  /** Whether the cookie is `Secure` (the runtime's public URL is https). */
  secure: boolean;
  /** The provider, as the audit log names it. */
  issuer: string;
  /** The clock (tests). */
  now?: () => Date;
}

/** Who signed in, as the provider's claims say (see `oidc-claims.ts`). */
export interface SignIn {
  id: string;
  name: string;
  groups: string[] | undefined;
}

/** A session just started: the person as stored now, and the `Set-Cookie` to send. */
export interface StartedSession {
  person: Person;
  cookie: string;
}

/**
 * Sessions over a {@link PeopleStore}. The cookie is `HttpOnly` (no script reads it),
 * `SameSite=Strict` (no request another site starts carries it, a link's navigation included: the
 * inbox needs it only for its own `fetch` calls), `Secure` on https, and lives as long as the
 * session. Errors are the store's.
 */
export class Sessions {
  private readonly now: () => Date;

  constructor(
    private readonly store: PeopleStore,
    readonly options: SessionOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Adds or updates the person who signed in and starts a session of theirs, recording
   * `person.added` (when new) and `session.started` in the audit log. Undefined when the id is a
   * program's (nothing is written).
   */
  async start(signIn: SignIn): Promise<StartedSession | undefined> {
    const secret = randomBytes(32).toString("base64url");
    const now = this.now();
    const at = now.toISOString();
    const expiresAt = new Date(now.getTime() + this.options.ttlMs).toISOString();
    const person = await this.store.startSession(
      { id: signIn.id, name: signIn.name, ...(signIn.groups ? { groups: signIn.groups } : {}), at },
      { hash: hashSecret(secret), personId: signIn.id, createdAt: at, expiresAt },
      (stored, added) => this.startRecords(stored, added, at, expiresAt),
    );
    if (!person) return undefined;
    return { person, cookie: this.cookie(secret, this.options.ttlMs / 1000) };
  }

  /**
   * Who `request`'s session cookie stands for, read from the store now, with the configured
   * scopes; undefined without a cookie, or for one that is unknown, ended, expired, or of someone
   * removed.
   */
  async identify(request: IncomingMessage): Promise<Identity | undefined> {
    const secret = secretOf(request);
    if (secret === undefined) return undefined;
    const found = await this.store.session(hashSecret(secret), this.now().toISOString());
    if (found?.person.kind !== "person") return undefined;
    const { person } = found;
    return {
      kind: "person",
      id: person.id,
      name: person.name,
      groups: person.groups,
      scopes: this.options.scopes,
    };
  }

  /** Ends `request`'s session (recording `session.ended`); false when it had none that lasts. */
  async end(request: IncomingMessage): Promise<boolean> {
    const secret = secretOf(request);
    if (secret === undefined) return false;
    const hash = hashSecret(secret);
    const now = this.now().toISOString();
    const found = await this.store.session(hash, now);
    if (!found) return false;
    const record: AuditRecord = {
      at: now,
      action: "session.ended",
      actor: actorOf({ ...found.person, kind: "person", scopes: this.options.scopes }),
      surface: "inbox",
      subject: found.person.id,
      decision: "signed-out",
    };
    return this.store.endSession(hash, record);
  }

  /** The `Set-Cookie` that deletes the session cookie. */
  clearCookie(): string {
    return this.cookie("", 0);
  }

  private cookie(value: string, maxAgeSeconds: number): string {
    return setCookie(SESSION_COOKIE, value, {
      maxAgeSeconds,
      sameSite: "Strict",
      secure: this.options.secure,
    });
  }

  private startRecords(
    person: Person,
    added: boolean,
    at: string,
    expiresAt: string,
  ): AuditRecord[] {
    const actor = actorOf({ ...person, kind: "person", scopes: this.options.scopes });
    const summary = { name: person.name, groups: person.groups };
    return [
      ...(added
        ? [
            {
              at,
              action: "person.added" as const,
              actor,
              surface: "inbox",
              subject: person.id,
              decision: "added",
              summary: { kind: "person", ...summary },
            },
          ]
        : []),
      {
        at,
        action: "session.started",
        actor,
        surface: "inbox",
        subject: person.id,
        decision: "signed-in",
        summary: {
          ...summary,
          issuer: this.options.issuer,
          scopes: this.options.scopes,
          expiresAt,
        },
      },
    ];
  }
}

/** Whether `request` carries a session cookie at all (good or not). */
export function hasSessionCookie(request: IncomingMessage): boolean {
  return cookieValue(request.headers.cookie, SESSION_COOKIE) !== undefined;
}

/** The session secret of `request`'s cookie; undefined without one, or when it is not one in form. */
function secretOf(request: IncomingMessage): string | undefined {
  const value = cookieValue(request.headers.cookie, SESSION_COOKIE);
  return value !== undefined && SECRET.test(value) ? value : undefined;
}
