// People, programs, tokens, sign-in sessions and linked chat users in the PostgreSQL store: tables
// beside the interactions, on the same pool, so every runtime instance sharing the database knows
// the same people and accepts the same sessions.
import type { Pool } from "pg";
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
import { inTransaction } from "./pg-pool.js";
import type { PostgresAuditLog } from "./postgres-audit.js";

/** Chat platforms' users linked to people: one person per platform user. */
const POSTGRES_LINKS_SCHEMA = `
CREATE TABLE IF NOT EXISTS codex_harness_person_links (
  platform_user TEXT PRIMARY KEY,
  person_id TEXT NOT NULL REFERENCES codex_harness_people (id) ON DELETE CASCADE,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS codex_harness_person_links_person
  ON codex_harness_person_links (person_id);
`;

/** The tables (idempotent DDL), part of the store's schema. */
export const POSTGRES_PEOPLE_SCHEMA = `
CREATE TABLE IF NOT EXISTS codex_harness_people (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE IF NOT EXISTS codex_harness_person_groups (
  person_id TEXT NOT NULL REFERENCES codex_harness_people (id) ON DELETE CASCADE,
  group_id TEXT NOT NULL,
  PRIMARY KEY (person_id, group_id)
);
CREATE INDEX IF NOT EXISTS codex_harness_person_groups_group
  ON codex_harness_person_groups (group_id);
CREATE TABLE IF NOT EXISTS codex_harness_tokens (
  id TEXT PRIMARY KEY,
  person_id TEXT NOT NULL REFERENCES codex_harness_people (id) ON DELETE CASCADE,
  scopes TEXT[] NOT NULL,
  hash TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  revoked_at TIMESTAMPTZ
);
CREATE INDEX IF NOT EXISTS codex_harness_tokens_person ON codex_harness_tokens (person_id);
CREATE TABLE IF NOT EXISTS codex_harness_sessions (
  hash TEXT PRIMARY KEY,
  person_id TEXT NOT NULL REFERENCES codex_harness_people (id) ON DELETE CASCADE,
  created_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS codex_harness_sessions_person ON codex_harness_sessions (person_id);
CREATE INDEX IF NOT EXISTS codex_harness_sessions_expires ON codex_harness_sessions (expires_at);
${POSTGRES_LINKS_SCHEMA}`;

interface PersonRow {
  id: string;
  kind: Person["kind"];
  name: string;
  created_at: Date;
  groups: string[];
}

interface SessionRow {
  hash: string;
  person_id: string;
  created_at: Date;
  expires_at: Date;
}

interface TokenRow {
  id: string;
  person_id: string;
  scopes: Scope[];
  hash: string;
  created_at: Date;
  revoked_at: Date | null;
}

const SELECT_PERSON = `SELECT id, kind, name, created_at,
  ARRAY(SELECT group_id FROM codex_harness_person_groups g WHERE g.person_id = p.id ORDER BY group_id) AS groups
  FROM codex_harness_people p`;

/**
 * The {@link PeopleStore} of a PostgreSQL database (the interaction store's pool); changes are
 * recorded in `audit`, the database's audit log, in their own transaction.
 */
export class PostgresPeopleStore implements PeopleStore {
  constructor(
    private readonly pool: Pool,
    private readonly audit: PostgresAuditLog,
  ) {}

  async addPerson(person: Person, audit?: AuditRecord): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const added = await client.query(
        `INSERT INTO codex_harness_people (id, kind, name, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id) DO NOTHING`,
        [person.id, person.kind, person.name, person.createdAt],
      );
      if (added.rowCount === 0) return false;
      if (person.groups.length > 0) {
        await client.query(
          `INSERT INTO codex_harness_person_groups (person_id, group_id)
           SELECT $1, unnest($2::text[])`,
          [person.id, person.groups],
        );
      }
      if (audit) await this.audit.appendIn(client, audit);
      return true;
    });
  }

  async person(id: string): Promise<Person | undefined> {
    const { rows } = await this.pool.query<PersonRow>(`${SELECT_PERSON} WHERE id = $1`, [id]);
    return rows[0] ? personOf(rows[0]) : undefined;
  }

  async people(): Promise<Person[]> {
    const { rows } = await this.pool.query<PersonRow>(`${SELECT_PERSON} ORDER BY id`);
    return rows.map(personOf);
  }

  async known(ids: readonly string[], groups: readonly string[]): Promise<Principals> {
    const { rows } = await this.pool.query<Principals>(
      `SELECT
         ARRAY(SELECT id FROM codex_harness_people WHERE id = ANY($1::text[])) AS ids,
         ARRAY(SELECT DISTINCT group_id FROM codex_harness_person_groups
               WHERE group_id = ANY($2::text[])) AS groups`,
      [ids, groups],
    );
    return rows[0] ?? { ids: [], groups: [] };
  }

  async removePerson(id: string, audit?: AuditRecord): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      // Groups, tokens and links go with the person (ON DELETE CASCADE).
      const removed = await client.query("DELETE FROM codex_harness_people WHERE id = $1", [id]);
      if ((removed.rowCount ?? 0) === 0) return false;
      if (audit) await this.audit.appendIn(client, audit);
      return true;
    });
  }

  async addToken(token: StoredToken, audit?: AuditRecord): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      // Inserted only while the person exists; the foreign key holds against a removal meanwhile.
      const added = await client.query(
        `INSERT INTO codex_harness_tokens (id, person_id, scopes, hash, created_at)
         SELECT $1, id, $3, $4, $5 FROM codex_harness_people WHERE id = $2`,
        [token.id, token.personId, token.scopes, token.hash, token.createdAt],
      );
      if ((added.rowCount ?? 0) === 0) return false;
      if (audit) await this.audit.appendIn(client, audit);
      return true;
    });
  }

  async token(id: string): Promise<{ token: StoredToken; person: Person } | undefined> {
    const { rows } = await this.pool.query<TokenRow & { person: PersonRow }>(
      `SELECT t.*, row_to_json(p) AS person FROM codex_harness_tokens t
       JOIN (${SELECT_PERSON}) p ON p.id = t.person_id WHERE t.id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row) return undefined;
    const person = personOf({ ...row.person, created_at: new Date(row.person.created_at) });
    return { token: { ...recordOf(row), hash: row.hash }, person };
  }

  async tokens(personId?: string): Promise<TokenRecord[]> {
    const { rows } =
      personId === undefined
        ? await this.pool.query<TokenRow>("SELECT * FROM codex_harness_tokens ORDER BY created_at")
        : await this.pool.query<TokenRow>(
            "SELECT * FROM codex_harness_tokens WHERE person_id = $1 ORDER BY created_at",
            [personId],
          );
    return rows.map(recordOf);
  }

  async revokeToken(id: string, at: string, audit?: AuditRecord): Promise<TokenRecord | undefined> {
    return inTransaction(this.pool, async (client) => {
      const revoked = await client.query<TokenRow>(
        "UPDATE codex_harness_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING *",
        [id, at],
      );
      if (revoked.rows[0]) {
        if (audit) await this.audit.appendIn(client, audit);
        return recordOf(revoked.rows[0]);
      }
      const { rows } = await client.query<TokenRow>(
        "SELECT * FROM codex_harness_tokens WHERE id = $1",
        [id],
      );
      return rows[0] ? recordOf(rows[0]) : undefined;
    });
  }

  async startSession(
    signedIn: SignedInPerson,
    session: StoredSession,
    audit?: (person: Person, added: boolean) => AuditRecord[],
  ): Promise<Person | undefined> {
    return inTransaction(this.pool, async (client) => {
      await client.query("DELETE FROM codex_harness_sessions WHERE expires_at <= $1", [
        session.createdAt,
      ]);
      // Added, or locked against a removal meanwhile; `added` tells which (xmax is 0 on insert).
      const { rows } = await client.query<{ kind: Person["kind"]; added: boolean }>(
        `INSERT INTO codex_harness_people (id, kind, name, created_at) VALUES ($1, 'person', $2, $3)
         ON CONFLICT (id) DO UPDATE SET name = CASE WHEN codex_harness_people.kind = 'person'
           THEN EXCLUDED.name ELSE codex_harness_people.name END
         RETURNING kind, (xmax = 0) AS added`,
        [signedIn.id, signedIn.name, signedIn.at],
      );
      const row = rows[0];
      if (!row || row.kind === "program") return undefined;
      if (signedIn.groups) {
        await client.query("DELETE FROM codex_harness_person_groups WHERE person_id = $1", [
          signedIn.id,
        ]);
        await client.query(
          `INSERT INTO codex_harness_person_groups (person_id, group_id)
           SELECT $1, unnest($2::text[])`,
          [signedIn.id, signedIn.groups],
        );
      }
      await client.query(
        `INSERT INTO codex_harness_sessions (hash, person_id, created_at, expires_at)
         VALUES ($1, $2, $3, $4)`,
        [session.hash, signedIn.id, session.createdAt, session.expiresAt],
      );
      const found = await client.query<PersonRow>(`${SELECT_PERSON} WHERE id = $1`, [signedIn.id]);
      const person = personOf(found.rows[0] as PersonRow);
      for (const record of audit?.(person, row.added) ?? []) {
        await this.audit.appendIn(client, record);
      }
      return person;
    });
  }

  async session(
    hash: string,
    now: string,
  ): Promise<{ session: StoredSession; person: Person } | undefined> {
    const { rows } = await this.pool.query<SessionRow & { person: PersonRow }>(
      `SELECT s.*, row_to_json(p) AS person FROM codex_harness_sessions s
       JOIN (${SELECT_PERSON}) p ON p.id = s.person_id WHERE s.hash = $1 AND s.expires_at > $2`,
      [hash, now],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      session: {
        hash: row.hash,
        personId: row.person_id,
        createdAt: row.created_at.toISOString(),
        expiresAt: row.expires_at.toISOString(),
      },
      person: personOf({ ...row.person, created_at: new Date(row.person.created_at) }),
    };
  }

  async endSession(hash: string, audit?: AuditRecord): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const ended = await client.query("DELETE FROM codex_harness_sessions WHERE hash = $1", [
        hash,
      ]);
      if ((ended.rowCount ?? 0) === 0) return false;
      if (audit) await this.audit.appendIn(client, audit);
      return true;
    });
  }

  // Chat platforms' users linked to people (`people link`).

  async addLink(link: PersonLink, audit?: AuditRecord): Promise<PersonLink | undefined> {
    return inTransaction(this.pool, async (client) => {
      // The person's row is held until the end: a removal meanwhile waits for this link.
      const person = await client.query(
        "SELECT 1 FROM codex_harness_people WHERE id = $1 FOR KEY SHARE",
        [link.personId],
      );
      if ((person.rowCount ?? 0) === 0) return undefined;
      const added = await client.query<LinkRow>(
        `INSERT INTO codex_harness_person_links (platform_user, person_id, created_at)
         VALUES ($1, $2, $3) ON CONFLICT (platform_user) DO NOTHING RETURNING *`,
        [link.platformUser, link.personId, link.createdAt],
      );
      if (added.rows[0]) {
        if (audit) await this.audit.appendIn(client, audit);
        return linkOf(added.rows[0]);
      }
      const { rows } = await client.query<LinkRow>(
        "SELECT * FROM codex_harness_person_links WHERE platform_user = $1",
        [link.platformUser],
      );
      return rows[0] ? linkOf(rows[0]) : undefined;
    });
  }

  async removeLink(platformUser: string, audit?: AuditRecord): Promise<PersonLink | undefined> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<LinkRow>(
        "DELETE FROM codex_harness_person_links WHERE platform_user = $1 RETURNING *",
        [platformUser],
      );
      if (!rows[0]) return undefined;
      if (audit) await this.audit.appendIn(client, audit);
      return linkOf(rows[0]);
    });
  }

  async link(platformUser: string): Promise<{ link: PersonLink; person: Person } | undefined> {
    const { rows } = await this.pool.query<LinkRow & { person: PersonRow }>(
      `SELECT l.*, row_to_json(p) AS person FROM codex_harness_person_links l
       JOIN (${SELECT_PERSON}) p ON p.id = l.person_id WHERE l.platform_user = $1`,
      [platformUser],
    );
    const row = rows[0];
    if (!row) return undefined;
    const person = personOf({ ...row.person, created_at: new Date(row.person.created_at) });
    return { link: linkOf(row), person };
  }

  async links(personId?: string): Promise<PersonLink[]> {
    const { rows } =
      personId === undefined
        ? await this.pool.query<LinkRow>(
            'SELECT * FROM codex_harness_person_links ORDER BY platform_user COLLATE "C"',
          )
        : await this.pool.query<LinkRow>(
            'SELECT * FROM codex_harness_person_links WHERE person_id = $1 ORDER BY platform_user COLLATE "C"',
            [personId],
          );
    return rows.map(linkOf);
  }
}

interface LinkRow {
  platform_user: string;
  person_id: string;
  created_at: Date;
}

function linkOf(row: LinkRow): PersonLink {
  return {
    platformUser: row.platform_user,
    personId: row.person_id,
    createdAt: row.created_at.toISOString(),
  };
}

function personOf(row: PersonRow): Person {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    groups: row.groups ?? [],
    createdAt: row.created_at.toISOString(),
  };
}

function recordOf(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    personId: row.person_id,
    scopes: row.scopes,
    createdAt: row.created_at.toISOString(),
    ...(row.revoked_at ? { revokedAt: row.revoked_at.toISOString() } : {}),
  };
}
