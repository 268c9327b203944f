// The runtime's people and programs: adding and removing them, issuing and revoking their tokens,
// linking chat platforms' users to them, and telling who a token or a chat user stands for. The
// rules live here; the rows in a `PeopleStore`.
import { CodexHarnessError } from "../errors.js";
import { actorOf, linkRecord, personRecord, tokenRecord } from "./audit-records.js";
import type { AuditActor, AuditSurface } from "./audit-types.js";
import { checkPlatformUser, type PersonLink } from "./people-links.js";
import type { PeopleStore } from "./people-store.js";
import { mintToken, parseToken, secretMatches } from "./people-tokens.js";
import {
  ADMIN,
  checkId,
  checkName,
  type Identity,
  type Person,
  parseScopes,
  type Scope,
  type TokenRecord,
} from "./people-types.js";

/** What {@link People.add} takes. */
export interface NewPerson {
  /** Lowercase letters, digits, `.`, `_`, `-` (e.g. `alice`, `release-bot`); not `admin`. */
  id: string;
  /** Shown to people (default: the id). */
  name?: string;
  groups?: readonly string[];
  /** `program` for a service identity (default `person`). */
  kind?: "person" | "program";
}

/** Options of {@link People}. */
export interface PeopleOptions {
  /** The clock (tests). */
  now?: () => Date;
  /**
   * Who makes the changes, as the audit log records them (default {@link ADMIN}: whoever can
   * open the store directly holds the data directory or the database).
   */
  by?: Identity;
  /** Where the changes come from, as the audit log records them (default `in-process`). */
  surface?: AuditSurface;
}

/** A token just issued: `token` is shown once and never stored; `record` is what is kept of it. */
export interface IssuedToken {
  token: string;
  record: TokenRecord;
}

/**
 * People and programs, and their tokens, over a {@link PeopleStore}. A token is stored only as
 * the SHA-256 of its secret, found by the id it carries, compared in constant time, and read from
 * the store on every use (a revocation holds from the next request on). A chat platform's user
 * linked to a person answers from that chat as the person, read from the store on every answer too.
 * Every change (added, removed, token issued, revoked, linked, unlinked) is recorded in the store's
 * audit log with the change. Errors are {@link CodexHarnessError}s: `invalid_input`, `not_found`,
 * `conflict`.
 */
export class People {
  private readonly now: () => Date;
  private readonly actor: AuditActor;
  private readonly surface: AuditSurface;

  constructor(
    private readonly store: PeopleStore,
    options: PeopleOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.actor = actorOf(options.by ?? ADMIN);
    this.surface = options.surface ?? "in-process";
  }

  /** Adds a person or program; `conflict` when the id is taken. */
  async add(input: NewPerson): Promise<Person> {
    const person: Person = {
      id: checkId(input.id, "person"),
      kind: input.kind ?? "person",
      name: checkName(input.name ?? input.id),
      groups: [...new Set((input.groups ?? []).map((group) => checkId(group, "group")))].sort(),
      createdAt: this.now().toISOString(),
    };
    const audit = personRecord("person.added", person, this.actor, this.surface, person.createdAt);
    if (!(await this.store.addPerson(person, audit))) {
      throw new CodexHarnessError(
        "conflict",
        `There is already someone with the id ${JSON.stringify(person.id)}; pick another, or remove them first.`,
      );
    }
    return person;
  }

  get(id: string): Promise<Person | undefined> {
    return this.store.person(id);
  }

  /** Everyone, by id. */
  list(): Promise<Person[]> {
    return this.store.people();
  }

  /**
   * Removes a person or program with every token and link of theirs; `not_found` when there is
   * none.
   */
  async remove(id: string): Promise<void> {
    const person = await this.store.person(id);
    if (!person) throw noPerson(id);
    const at = this.now().toISOString();
    const audit = personRecord("person.removed", person, this.actor, this.surface, at);
    if (!(await this.store.removePerson(id, audit))) throw noPerson(id);
  }

  /**
   * Issues a token of `personId` with `scopes` (e.g. `["read", "answer"]` or `"read,answer"`);
   * `not_found` when there is no such person, `invalid_input` for an unknown scope.
   */
  async issueToken(personId: string, scopes: string | readonly string[]): Promise<IssuedToken> {
    const checked: Scope[] = parseScopes(scopes);
    const minted = mintToken();
    const record: TokenRecord = {
      id: minted.id,
      personId,
      scopes: checked,
      createdAt: this.now().toISOString(),
    };
    const audit = tokenRecord("token.issued", record, this.actor, this.surface, record.createdAt);
    if (!(await this.store.addToken({ ...record, hash: minted.hash }, audit))) {
      throw noPerson(personId);
    }
    return { token: minted.token, record };
  }

  /** Tokens (of `personId`, or everyone's), oldest first: ids, scopes, times; never secrets. */
  tokens(personId?: string): Promise<TokenRecord[]> {
    return this.store.tokens(personId);
  }

  /** Revokes a token from now on (its id, as `tokens` lists it); `not_found` when there is none. */
  async revoke(tokenId: string): Promise<TokenRecord> {
    const at = this.now().toISOString();
    const found = await this.store.token(tokenId);
    const audit = found && tokenRecord("token.revoked", found.token, this.actor, this.surface, at);
    const record = audit && (await this.store.revokeToken(tokenId, at, audit));
    if (!record) {
      throw new CodexHarnessError(
        "not_found",
        `There is no token ${JSON.stringify(tokenId)}; \`codex-harness people list\` shows each person's tokens.`,
      );
    }
    return record;
  }

  /**
   * Who `token` stands for, with the token's scopes; undefined when it is not a person's or
   * program's token, or is unknown, revoked, or of someone removed.
   */
  async authenticate(token: string): Promise<Identity | undefined> {
    const parsed = parseToken(token);
    if (!parsed) return undefined;
    const found = await this.store.token(parsed.id);
    // Compared even when there is no such token: the answer takes the same work.
    if (!secretMatches(parsed.secret, found?.token.hash) || !found || found.token.revokedAt) {
      return undefined;
    }
    const { person, token: record } = found;
    return {
      kind: person.kind,
      id: person.id,
      name: person.name,
      groups: person.groups,
      scopes: record.scopes,
      tokenId: record.id,
    };
  }

  // Chat platforms' users linked to people.

  /**
   * Links a chat platform's user (`slack:U024BE7LH`, `telegram:123456789`,
   * `discord:80351110224678912`) to the person `personId`: from then on, their answers from that
   * chat are the person's, under the same routing as the person's own. One platform user links to
   * one person: `conflict` when they are linked to someone else (linked to this person already,
   * nothing changes). `invalid_input` for a malformed platform user or a program (programs do not
   * click), `not_found` when there is no such person.
   */
  async link(personId: string, platformUser: string): Promise<PersonLink> {
    checkPlatformUser(platformUser);
    const person = await this.store.person(personId);
    if (!person) throw noPerson(personId);
    if (person.kind !== "person") {
      throw new CodexHarnessError(
        "invalid_input",
        `${personId} is a program; only people are linked to chat users (a program answers with a token of its own).`,
      );
    }
    const link: PersonLink = { platformUser, personId, createdAt: this.now().toISOString() };
    const audit = linkRecord("person.linked", link, this.actor, this.surface, link.createdAt);
    const stored = await this.store.addLink(link, audit);
    if (!stored) throw noPerson(personId);
    if (stored.personId !== personId) {
      throw new CodexHarnessError(
        "conflict",
        `${platformUser} is linked to ${stored.personId} already; unlink it first (codex-harness people unlink ${platformUser}).`,
      );
    }
    return stored;
  }

  /** Unlinks a chat platform's user; `not_found` when they are not linked. */
  async unlink(platformUser: string): Promise<PersonLink> {
    const found = await this.store.link(platformUser);
    const at = this.now().toISOString();
    const audit = found && linkRecord("person.unlinked", found.link, this.actor, this.surface, at);
    const removed = audit && (await this.store.removeLink(platformUser, audit));
    if (!removed) {
      throw new CodexHarnessError(
        "not_found",
        `${JSON.stringify(platformUser)} is not linked to anyone; \`codex-harness people list\` shows the links.`,
      );
    }
    return removed;
  }

  /** Links (of `personId`, or everyone's), by platform user. */
  links(personId?: string): Promise<PersonLink[]> {
    return this.store.links(personId);
  }

  /** The person a chat platform's user is linked to, read from the store now; undefined when none. */
  async linkedPerson(platformUser: string): Promise<Person | undefined> {
    return (await this.store.link(platformUser))?.person;
  }
}

function noPerson(id: string): CodexHarnessError {
  return new CodexHarnessError(
    "not_found",
    `There is no person or program ${JSON.stringify(id)}; add them with \`codex-harness people add ${id}\`.`,
  );
}
