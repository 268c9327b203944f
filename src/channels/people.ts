// The runtime's people and programs: adding and removing them, issuing and revoking their tokens,
// and telling who a token stands for. The rules live here; the rows in a `PeopleStore`.
import { CodexHarnessError } from "../errors.js";
import { actorOf, personRecord, tokenRecord } from "./audit-records.js";
import type { AuditActor, AuditSurface } from "./audit-types.js";
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
 * the store on every use (a revocation holds from the next request on). Every change (added,
 * removed, token issued, revoked) is recorded in the store's audit log with the change. Errors are
 * {@link CodexHarnessError}s: `invalid_input`, `not_found`, `conflict`.
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

  /** Removes a person or program and every token of theirs; `not_found` when there is none. */
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
}

function noPerson(id: string): CodexHarnessError {
  return new CodexHarnessError(
    "not_found",
    `There is no person or program ${JSON.stringify(id)}; add them with \`codex-harness people add ${id}\`.`,
  );
}
