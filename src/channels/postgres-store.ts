// The PostgreSQL store: several runtime instances (on several machines) share one set of
// interactions; LISTEN/NOTIFY tells each instance of the others' changes.
import type { Client, Pool, PoolClient } from "pg";
import type { AuditRecord } from "./audit-types.js";
import { type Drivers, loadDriver } from "./drivers.js";
import type {
  ChangeType,
  Interaction,
  InteractionChange,
  InteractionFilter,
  InteractionStatus,
} from "./interaction-types.js";
import { inTransaction, openPool } from "./pg-pool.js";
import { POSTGRES_AUDIT_SCHEMA, PostgresAuditLog } from "./postgres-audit.js";
import { POSTGRES_PEOPLE_SCHEMA, PostgresPeopleStore } from "./postgres-people.js";
import {
  applyUpdate,
  type InteractionStore,
  type ModuleImporter,
  type StatusUpdate,
} from "./store.js";

const CHANNEL = "codex_harness_changes";
/** Serialises schema creation between instances starting at once. */
const SCHEMA_LOCK = 4_317_001;
const SCHEMA = `
CREATE TABLE IF NOT EXISTS codex_harness_interactions (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  status TEXT NOT NULL,
  thread_id TEXT,
  created_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  body JSONB NOT NULL
);
CREATE INDEX IF NOT EXISTS codex_harness_interactions_open
  ON codex_harness_interactions (status, expires_at);
CREATE TABLE IF NOT EXISTS codex_harness_changes (
  seq BIGSERIAL PRIMARY KEY,
  type TEXT NOT NULL,
  interaction_id TEXT NOT NULL,
  body JSONB NOT NULL
);
${POSTGRES_PEOPLE_SCHEMA}
${POSTGRES_AUDIT_SCHEMA}`;

/** Options of {@link PostgresInteractionStore.open}. */
export interface PostgresStoreOptions {
  /** How the driver is imported (tests; default `import("pg")`). */
  importer?: ModuleImporter;
}

/**
 * The PostgreSQL store. Open it with {@link PostgresInteractionStore.open}. It needs the optional
 * package `pg`, loaded on open.
 */
export class PostgresInteractionStore implements InteractionStore {
  /** Sequence numbers of changes this instance made, so its own NOTIFYs are not told twice. */
  private readonly own = new Set<number>();
  private listener: Client | undefined;
  /** The people, programs and tokens of this database. */
  readonly people: PostgresPeopleStore;
  /** The audit log of this database, shared by every instance using it. */
  readonly audit: PostgresAuditLog;

  private constructor(
    private readonly pg: Drivers["pg"],
    private readonly pool: Pool,
    private readonly url: string,
  ) {
    this.audit = new PostgresAuditLog(pool);
    this.people = new PostgresPeopleStore(pool, this.audit);
  }

  /**
   * Connects to `url` (`postgres://…`) and creates the tables when missing. Rejects with code
   * `missing_dependency` when pg is not installed, `store_failed` when the server cannot be used.
   */
  static async open(
    url: string,
    options: PostgresStoreOptions = {},
  ): Promise<PostgresInteractionStore> {
    const pg = await loadDriver("pg", options.importer);
    const pool = await openPool(pg, url, SCHEMA, SCHEMA_LOCK);
    return new PostgresInteractionStore(pg, pool, url);
  }

  async create(interaction: Interaction, audit?: AuditRecord): Promise<InteractionChange> {
    return this.transaction(async (client) => {
      await client.query(
        `INSERT INTO codex_harness_interactions (id, kind, status, thread_id, created_at, expires_at, body)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          interaction.id,
          interaction.kind,
          interaction.status,
          interaction.codex?.threadId ?? null,
          interaction.createdAt,
          interaction.expiresAt,
          interaction,
        ],
      );
      return this.addChange(client, interaction.kind, interaction, audit);
    });
  }

  async get(id: string): Promise<Interaction | undefined> {
    const result = await this.pool.query<{ body: Interaction }>(
      "SELECT body FROM codex_harness_interactions WHERE id = $1",
      [id],
    );
    return result.rows[0]?.body;
  }

  async list(filter: InteractionFilter): Promise<Interaction[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.status?.length) {
      args.push(filter.status);
      where.push(`status = ANY($${args.length})`);
    }
    if (filter.kind?.length) {
      args.push(filter.kind);
      where.push(`kind = ANY($${args.length})`);
    }
    if (filter.threadId !== undefined) {
      args.push(filter.threadId);
      where.push(`thread_id = $${args.length}`);
    }
    if (filter.cursor !== undefined) {
      args.push(filter.cursor);
      where.push(
        `(created_at, id) < (SELECT created_at, id FROM codex_harness_interactions WHERE id = $${args.length})`,
      );
    }
    args.push(filter.limit ?? 100);
    const result = await this.pool.query<{ body: Interaction }>(
      `SELECT body FROM codex_harness_interactions${where.length ? ` WHERE ${where.join(" AND ")}` : ""}
       ORDER BY created_at DESC, id DESC LIMIT $${args.length}`,
      args,
    );
    return result.rows.map((row) => row.body);
  }

  async update(
    id: string,
    update: StatusUpdate | ((current: Interaction) => StatusUpdate),
    from: InteractionStatus[],
    audit?: (next: Interaction) => AuditRecord,
  ): Promise<InteractionChange | undefined> {
    return this.transaction(async (client) => {
      const found = await client.query<{ body: Interaction }>(
        "SELECT body FROM codex_harness_interactions WHERE id = $1 FOR UPDATE",
        [id],
      );
      const current = found.rows[0]?.body;
      if (!current || !from.includes(current.status)) return undefined;
      const { next, type } = applyUpdate(current, update);
      await client.query(
        "UPDATE codex_harness_interactions SET status = $2, body = $3 WHERE id = $1",
        [id, next.status, next],
      );
      return this.addChange(client, type, next, audit?.(next));
    });
  }

  async changesSince(seq: number, limit: number): Promise<InteractionChange[]> {
    const result = await this.pool.query<{ seq: string; type: ChangeType; body: Interaction }>(
      "SELECT seq, type, body FROM codex_harness_changes WHERE seq > $1 ORDER BY seq LIMIT $2",
      [seq, limit],
    );
    return result.rows.map((row) => ({
      seq: Number(row.seq),
      type: row.type,
      interaction: row.body,
    }));
  }

  async expired(now: string): Promise<Interaction[]> {
    const result = await this.pool.query<{ body: Interaction }>(
      "SELECT body FROM codex_harness_interactions WHERE status IN ('pending', 'delivered') AND expires_at < $1",
      [now],
    );
    return result.rows.map((row) => row.body);
  }

  async countOpen(): Promise<Record<string, number>> {
    const result = await this.pool.query<{ kind: string; n: number }>(
      "SELECT kind, count(*)::int AS n FROM codex_harness_interactions WHERE status IN ('pending', 'delivered') GROUP BY kind",
    );
    return Object.fromEntries(result.rows.map((row) => [row.kind, row.n]));
  }

  /** LISTENs on a connection of its own; other instances' changes reach `listener`. */
  watch(listener: (change: InteractionChange) => void): () => void {
    let stopped = false;
    const client = new this.pg.Client({ connectionString: this.url });
    this.listener = client;
    client.on("error", () => undefined);
    client.on("notification", (message) => {
      const seq = Number(message.payload);
      if (this.own.delete(seq)) return;
      void this.changesSince(seq - 1, 1).then(([change]) => {
        if (change && change.seq === seq && !stopped) listener(change);
      });
    });
    void client
      .connect()
      .then(() => client.query(`LISTEN ${CHANNEL}`))
      .catch(() => undefined);
    return () => {
      stopped = true;
      void client.end().catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    await this.listener?.end().catch(() => undefined);
    await this.pool.end();
  }

  private transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work);
  }

  /**
   * Records the change (and notifies the other instances at COMMIT); then appends `audit`, last, so
   * that the audit log's head is locked for as little of the transaction as can be.
   */
  private async addChange(
    client: PoolClient,
    type: ChangeType,
    interaction: Interaction,
    audit: AuditRecord | undefined,
  ): Promise<InteractionChange> {
    const result = await client.query<{ seq: string }>(
      `WITH change AS (
         INSERT INTO codex_harness_changes (type, interaction_id, body) VALUES ($1, $2, $3) RETURNING seq
       )
       SELECT seq, pg_notify($4, seq::text) FROM change`,
      [type, interaction.id, interaction, CHANNEL],
    );
    const seq = Number(result.rows[0]?.seq);
    // Recorded before COMMIT, so our own notification (sent at COMMIT) is recognised.
    this.own.add(seq);
    if (audit) await this.audit.appendIn(client, audit);
    return { seq, type, interaction };
  }
}
