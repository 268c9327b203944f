// People, programs, tokens, sign-in sessions and linked chat users in the embedded SQLite store:
// tables beside the interactions, on the same connection.
import type { AuditRecord } from "./audit-types.js";
import type { PersonLink } from "./people-links.js";
import type {
  PeopleStore,
  Principals,
  SignedInPerson,
  StoredSession,
  StoredToken,
} from "./people-store.js";
import type { Person, Scope, TokenRecord } from "./people-types.js";
import type { SqliteAuditLog } from "./sqlite-audit.js";
import type { SqliteConnection } from "./sqlite-connection.js";

/** Chat platforms' users linked to people: one person per platform user. */
const SQLITE_LINKS_SCHEMA = `
CREATE TABLE IF NOT EXISTS person_links (
  platform_user TEXT PRIMARY KEY,
  person_id TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS person_links_person ON person_links (person_id);
`;

/** The tables (idempotent DDL), run by the store on open. */
export const SQLITE_PEOPLE_SCHEMA = `
CREATE TABLE IF NOT EXISTS people (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS person_groups (
  person_id TEXT NOT NULL,
  group_id TEXT NOT NULL,
  PRIMARY KEY (person_id, group_id)
);
CREATE INDEX IF NOT EXISTS person_groups_group ON person_groups (group_id);
CREATE INDEX IF NOT EXISTS person_groups_group ON person_groups (group_id);
CREATE TABLE IF NOT EXISTS tokens (
  id TEXT PRIMARY KEY,
  person_id TEXT NOT NULL,
  scopes TEXT NOT NULL,
  hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX IF NOT EXISTS tokens_person ON tokens (person_id);
CREATE TABLE IF NOT EXISTS sessions (
  hash TEXT PRIMARY KEY,
  person_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_person ON sessions (person_id);
${SQLITE_LINKS_SCHEMA}`;

interface PersonRow {
  id: string;
  kind: Person["kind"];
  name: string;
  created_at: string;
  groups: string | null;
}

interface SessionRow {
  hash: string;
  person_id: string;
  created_at: string;
  expires_at: string;
}

interface TokenRow {
  id: string;
  person_id: string;
  scopes: string;
  hash: string;
  created_at: string;
  revoked_at: string | null;
}

const SELECT_PERSON = `SELECT id, kind, name, created_at,
  (SELECT json_group_array(group_id) FROM (SELECT group_id FROM person_groups WHERE person_id = people.id ORDER BY group_id)) AS groups
  FROM people`;

/**
 * The {@link PeopleStore} of a SQLite database (the interaction store's connection); changes are
 * recorded in `audit`, the database's audit log, in their own transaction.
 */
export class SqlitePeopleStore implements PeopleStore {
  constructor(
    private readonly db: SqliteConnection,
    private readonly audit: SqliteAuditLog,
  ) {}

  async addPerson(person: Person, audit?: AuditRecord): Promise<boolean> {
    return this.db.write(() => {
      const added = this.db
        .prepare(
          "INSERT INTO people (id, kind, name, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
        )
        .run(person.id, person.kind, person.name, person.createdAt);
      if (added.changes === 0) return false;
      const group = this.db.prepare(
        "INSERT INTO person_groups (person_id, group_id) VALUES (?, ?)",
      );
      for (const name of person.groups) group.run(person.id, name);
      if (audit) this.audit.appendIn(audit);
      return true;
    });
  }

  async person(id: string): Promise<Person | undefined> {
    const row = this.db.prepare(`${SELECT_PERSON} WHERE id = ?`).get(id) as PersonRow | undefined;
    return row ? personOf(row) : undefined;
  }

  async people(): Promise<Person[]> {
    const rows = this.db.prepare(`${SELECT_PERSON} ORDER BY id`).all() as PersonRow[];
    return rows.map(personOf);
  }

  async known(ids: readonly string[], groups: readonly string[]): Promise<Principals> {
    const person = this.db.prepare("SELECT 1 FROM people WHERE id = ?");
    const member = this.db.prepare("SELECT 1 FROM person_groups WHERE group_id = ? LIMIT 1");
    return {
      ids: ids.filter((id) => person.get(id) !== undefined),
      groups: groups.filter((group) => member.get(group) !== undefined),
    };
  }

  async removePerson(id: string, audit?: AuditRecord): Promise<boolean> {
    return this.db.write(() => {
      this.db.prepare("DELETE FROM tokens WHERE person_id = ?").run(id);
      this.db.prepare("DELETE FROM sessions WHERE person_id = ?").run(id);
      this.db.prepare("DELETE FROM person_links WHERE person_id = ?").run(id);
      this.db.prepare("DELETE FROM person_groups WHERE person_id = ?").run(id);
      const removed = this.db.prepare("DELETE FROM people WHERE id = ?").run(id).changes > 0;
      if (removed && audit) this.audit.appendIn(audit);
      return removed;
    });
  }

  async addToken(token: StoredToken, audit?: AuditRecord): Promise<boolean> {
    return this.db.write(() => {
      if (!this.db.prepare("SELECT 1 FROM people WHERE id = ?").get(token.personId)) return false;
      this.db
        .prepare(
          "INSERT INTO tokens (id, person_id, scopes, hash, created_at) VALUES (?, ?, ?, ?, ?)",
        )
        .run(token.id, token.personId, JSON.stringify(token.scopes), token.hash, token.createdAt);
      if (audit) this.audit.appendIn(audit);
      return true;
    });
  }

  async token(id: string): Promise<{ token: StoredToken; person: Person } | undefined> {
    const row = this.db.prepare("SELECT * FROM tokens WHERE id = ?").get(id) as
      | TokenRow
      | undefined;
    const person = row && (await this.person(row.person_id));
    return row && person ? { token: { ...recordOf(row), hash: row.hash }, person } : undefined;
  }

  async tokens(personId?: string): Promise<TokenRecord[]> {
    const rows = (
      personId === undefined
        ? this.db.prepare("SELECT * FROM tokens ORDER BY created_at, rowid").all()
        : this.db
            .prepare("SELECT * FROM tokens WHERE person_id = ? ORDER BY created_at, rowid")
            .all(personId)
    ) as TokenRow[];
    return rows.map(recordOf);
  }

  async revokeToken(id: string, at: string, audit?: AuditRecord): Promise<TokenRecord | undefined> {
    return this.db.write(() => {
      const revoked = this.db
        .prepare("UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")
        .run(at, id);
      if (revoked.changes > 0 && audit) this.audit.appendIn(audit);
      const row = this.db.prepare("SELECT * FROM tokens WHERE id = ?").get(id) as
        | TokenRow
        | undefined;
      return row ? recordOf(row) : undefined;
    });
  }

  async startSession(
    signedIn: SignedInPerson,
    session: StoredSession,
    audit?: (person: Person, added: boolean) => AuditRecord[],
  ): Promise<Person | undefined> {
    return this.db.write(() => {
      this.db.prepare("DELETE FROM sessions WHERE expires_at <= ?").run(session.createdAt);
      const before = this.db.prepare("SELECT kind FROM people WHERE id = ?").get(signedIn.id) as
        | { kind: Person["kind"] }
        | undefined;
      if (before?.kind === "program") return undefined;
      if (before) {
        this.db.prepare("UPDATE people SET name = ? WHERE id = ?").run(signedIn.name, signedIn.id);
      } else {
        this.db
          .prepare("INSERT INTO people (id, kind, name, created_at) VALUES (?, 'person', ?, ?)")
          .run(signedIn.id, signedIn.name, signedIn.at);
      }
      if (signedIn.groups) {
        this.db.prepare("DELETE FROM person_groups WHERE person_id = ?").run(signedIn.id);
        const group = this.db.prepare(
          "INSERT INTO person_groups (person_id, group_id) VALUES (?, ?)",
        );
        for (const name of signedIn.groups) group.run(signedIn.id, name);
      }
      this.db
        .prepare(
          "INSERT INTO sessions (hash, person_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
        )
        .run(session.hash, signedIn.id, session.createdAt, session.expiresAt);
      const row = this.db.prepare(`${SELECT_PERSON} WHERE id = ?`).get(signedIn.id) as PersonRow;
      const person = personOf(row);
      for (const record of audit?.(person, !before) ?? []) this.audit.appendIn(record);
      return person;
    });
  }

  async session(
    hash: string,
    now: string,
  ): Promise<{ session: StoredSession; person: Person } | undefined> {
    const row = this.db
      .prepare("SELECT * FROM sessions WHERE hash = ? AND expires_at > ?")
      .get(hash, now) as SessionRow | undefined;
    const person = row && (await this.person(row.person_id));
    if (!row || !person) return undefined;
    return {
      session: {
        hash: row.hash,
        personId: row.person_id,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      },
      person,
    };
  }

  async endSession(hash: string, audit?: AuditRecord): Promise<boolean> {
    return this.db.write(() => {
      const ended = this.db.prepare("DELETE FROM sessions WHERE hash = ?").run(hash).changes > 0;
      if (ended && audit) this.audit.appendIn(audit);
      return ended;
    });
  }

  // Chat platforms' users linked to people (`people link`).

  async addLink(link: PersonLink, audit?: AuditRecord): Promise<PersonLink | undefined> {
    return this.db.write(() => {
      if (!this.db.prepare("SELECT 1 FROM people WHERE id = ?").get(link.personId)) return;
      const added = this.db
        .prepare(
          "INSERT INTO person_links (platform_user, person_id, created_at) VALUES (?, ?, ?) ON CONFLICT (platform_user) DO NOTHING",
        )
        .run(link.platformUser, link.personId, link.createdAt);
      if (added.changes > 0 && audit) this.audit.appendIn(audit);
      return this.linkRow(link.platformUser);
    });
  }

  async removeLink(platformUser: string, audit?: AuditRecord): Promise<PersonLink | undefined> {
    return this.db.write(() => {
      const link = this.linkRow(platformUser);
      if (!link) return;
      this.db.prepare("DELETE FROM person_links WHERE platform_user = ?").run(platformUser);
      if (audit) this.audit.appendIn(audit);
      return link;
    });
  }

  async link(platformUser: string): Promise<{ link: PersonLink; person: Person } | undefined> {
    const link = this.linkRow(platformUser);
    const person = link && (await this.person(link.personId));
    return link && person ? { link, person } : undefined;
  }

  async links(personId?: string): Promise<PersonLink[]> {
    const rows = (
      personId === undefined
        ? this.db.prepare("SELECT * FROM person_links ORDER BY platform_user").all()
        : this.db
            .prepare("SELECT * FROM person_links WHERE person_id = ? ORDER BY platform_user")
            .all(personId)
    ) as LinkRow[];
    return rows.map(linkOf);
  }

  private linkRow(platformUser: string): PersonLink | undefined {
    const row = this.db
      .prepare("SELECT * FROM person_links WHERE platform_user = ?")
      .get(platformUser) as LinkRow | undefined;
    return row ? linkOf(row) : undefined;
  }
}

interface LinkRow {
  platform_user: string;
  person_id: string;
  created_at: string;
}

function linkOf(row: LinkRow): PersonLink {
  return { platformUser: row.platform_user, personId: row.person_id, createdAt: row.created_at };
}

function personOf(row: PersonRow): Person {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    groups: row.groups ? (JSON.parse(row.groups) as string[]) : [],
    createdAt: row.created_at,
  };
}

function recordOf(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    personId: row.person_id,
    scopes: JSON.parse(row.scopes) as Scope[],
    createdAt: row.created_at,
    ...(row.revoked_at ? { revokedAt: row.revoked_at } : {}),
  };
}
