// Where people, programs, their tokens and sign-in sessions live: the interface both stores
// (embedded SQLite, PostgreSQL) implement beside their interactions. Rows only; the rules are
// `people.ts`'s and `sessions.ts`'s.
import type { AuditRecord } from "./audit-types.js";
import type { PersonLink } from "./people-links.js";
import type { Person, TokenRecord } from "./people-types.js";

/** Ids of people and programs, and groups: which of them the store knows. */
export interface Principals {
  ids: string[];
  groups: string[];
}

/** A token as stored: its record and the SHA-256 of its secret (never the secret). */
export interface StoredToken extends TokenRecord {
  hash: string;
}

/**
 * A sign-in session as stored: the SHA-256 of its secret (never the secret), whose it is, and when
 * it ends (ISO 8601).
 */
export interface StoredSession {
  hash: string;
  personId: string;
  createdAt: string;
  expiresAt: string;
}

/** A person as a provider's sign-in says they are. */
export interface SignedInPerson {
  id: string;
  name: string;
  /** Undefined when the provider sent no groups: they stay as they are. */
  groups?: readonly string[];
  /** ISO 8601: when they signed in (a new person's `createdAt`). */
  at: string;
}

/**
 * The rows of people, programs, tokens and sessions. Every method reads or writes the store at the time it
 * is called: nothing is cached, so a token revoked by another process is refused on its next use.
 * A change given an `audit` record appends it to the store's audit log in the same transaction,
 * when the change is made.
 */
export interface PeopleStore {
  /** Adds a person or program; false (nothing written) when the id is taken. */
  addPerson(person: Person, audit?: AuditRecord): Promise<boolean>;
  person(id: string): Promise<Person | undefined>;
  /** Everyone, by id. */
  people(): Promise<Person[]>;
  /**
   * Which of `ids` are people's or programs' and which of `groups` someone is in (a routing's
   * check, made at every creation: it reads only these).
   */
  known(ids: readonly string[], groups: readonly string[]): Promise<Principals>;
  /** Removes a person or program, their tokens and their links; false when there was none. */
  removePerson(id: string, audit?: AuditRecord): Promise<boolean>;
  /** Adds a token of `token.personId`; false (nothing written) when there is no such person. */
  addToken(token: StoredToken, audit?: AuditRecord): Promise<boolean>;
  /** A token and whose it is, revoked or not. */
  token(id: string): Promise<{ token: StoredToken; person: Person } | undefined>;
  /** Tokens (of `personId`, or everyone's), oldest first, without their hashes. */
  tokens(personId?: string): Promise<TokenRecord[]>;
  /**
   * Marks a token revoked at `at` (kept as it was when it already is: nothing is recorded then);
   * the token as it is now, or undefined when there is none.
   */
  revokeToken(id: string, at: string, audit?: AuditRecord): Promise<TokenRecord | undefined>;
  /**
   * Adds the person of a sign-in, or sets their name (and groups, when given), and stores
   * `session`, in one transaction that also deletes sessions ended by `session.createdAt`.
   * `audit(person, added)` gives the records to append with it. Undefined (nothing written) when
   * the id is a program's.
   */
  startSession(
    person: SignedInPerson,
    session: StoredSession,
    audit?: (person: Person, added: boolean) => AuditRecord[],
  ): Promise<Person | undefined>;
  /** The session of `hash` and whose it is, while it lasts at `now` (ISO 8601). */
  session(
    hash: string,
    now: string,
  ): Promise<{ session: StoredSession; person: Person } | undefined>;
  /** Deletes the session of `hash`; false when there was none. */
  endSession(hash: string, audit?: AuditRecord): Promise<boolean>;

  // Chat platforms' users linked to people (`people link`).

  /**
   * Links `link.platformUser` to `link.personId` unless it is linked already: the link of that
   * platform user as it is now (the new one, or the one it had: maybe another person's; nothing is
   * recorded then), or undefined (nothing written) when there is no such person.
   */
  addLink(link: PersonLink, audit?: AuditRecord): Promise<PersonLink | undefined>;
  /** Removes the link of `platformUser`: the link removed, or undefined when there was none. */
  removeLink(platformUser: string, audit?: AuditRecord): Promise<PersonLink | undefined>;
  /** The link of `platformUser` and the person it names, or undefined when it is not linked. */
  link(platformUser: string): Promise<{ link: PersonLink; person: Person } | undefined>;
  /** Links (of `personId`, or everyone's), by platform user. */
  links(personId?: string): Promise<PersonLink[]>;
}
