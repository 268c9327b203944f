// Where interactions live: the interface both stores (embedded SQLite, PostgreSQL) implement.

import type { AuditLog, AuditRecord } from "./audit-types.js";
import type {
  Approval,
  ChangeType,
  Interaction,
  InteractionChange,
  InteractionEnd,
  InteractionFilter,
  InteractionResponse,
  InteractionStatus,
} from "./interaction-types.js";
import type { PeopleStore } from "./people-store.js";

/**
 * Imports a store's optional driver by package name (`(name) => import(name)` by default; tests
 * replace it). Declared here, not with the loader, so that the public types never refer to the
 * drivers' own (optional) type packages.
 */
export type ModuleImporter = (specifier: string) => Promise<unknown>;

/** A status change: the new status, with the response or the end that caused it. */
export interface StatusUpdate {
  status: InteractionStatus;
  /** The change's type when it is not the status (`approval`: one more accept, still open). */
  type?: ChangeType;
  /** The accepts so far (`Interaction.approvals`). */
  approvals?: Approval[];
  response?: InteractionResponse;
  end?: InteractionEnd;
  /** ISO 8601 time of the change. */
  at: string;
}

/**
 * Durable interactions and their numbered history. Every write is atomic: `update` applies only
 * when the interaction's current status is one of `from`, so of two racing responses exactly one
 * wins, across processes sharing the store.
 */
export interface InteractionStore {
  /**
   * Stores a new interaction; returns its creation change. `audit` is appended to the
   * {@link audit} log in the same transaction.
   */
  create(interaction: Interaction, audit?: AuditRecord): Promise<InteractionChange>;
  get(id: string): Promise<Interaction | undefined>;
  /**
   * Newest first (creation time, then insertion order), at most `filter.limit`; with
   * `filter.cursor` (an interaction's id), only those after that one in this order.
   */
  list(filter: InteractionFilter): Promise<Interaction[]>;
  /**
   * Applies `update` if the status is one of `from`; undefined when it is not (or no such id).
   * Given as a function, the update is decided from the interaction as it is inside the
   * transaction (racing updates are decided one after the other); it may throw to refuse, and
   * nothing is written. When it applies, `audit`'s record of the interaction as updated is
   * appended in the same transaction.
   */
  update(
    id: string,
    update: StatusUpdate | ((current: Interaction) => StatusUpdate),
    from: InteractionStatus[],
    audit?: (next: Interaction) => AuditRecord,
  ): Promise<InteractionChange | undefined>;
  /** Changes after `seq`, oldest first (at most `limit`). */
  changesSince(seq: number, limit: number): Promise<InteractionChange[]>;
  /** Open interactions whose `expiresAt` is before `now`. */
  expired(now: string): Promise<Interaction[]>;
  /** How many interactions are open (pending or delivered), by kind (the pending gauge reads it). */
  countOpen?(): Promise<Record<string, number>>;
  /**
   * Calls `listener` with changes made by other processes sharing the store (PostgreSQL's
   * LISTEN/NOTIFY); stores only one process uses need not. Returns an unsubscribe function.
   */
  watch?(listener: (change: InteractionChange) => void): () => void;
  /**
   * The people, programs and tokens kept beside the interactions (both built-in stores have them).
   * A store without them knows only the data directory's token.
   */
  readonly people?: PeopleStore;
  /**
   * The audit log kept beside the interactions (both built-in stores have one): every change the
   * store makes with an audit record appends it in the same transaction, chained by hash.
   */
  readonly audit?: AuditLog;
  close(): Promise<void>;
}

/**
 * The interaction after `update` (what both stores write), and the type of the change: `update`
 * decided from `current` when it is a function (which may throw to refuse).
 */
export function applyUpdate(
  current: Interaction,
  given: StatusUpdate | ((current: Interaction) => StatusUpdate),
): { next: Interaction; type: ChangeType } {
  const update = typeof given === "function" ? given(current) : given;
  const next: Interaction = {
    ...current,
    status: update.status,
    updatedAt: update.at,
    ...(update.response ? { response: update.response } : {}),
    ...(update.end ? { end: update.end } : {}),
    ...(update.approvals ? { approvals: update.approvals } : {}),
  };
  return { next, type: update.type ?? (update.status as ChangeType) };
}
