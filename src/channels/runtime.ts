// The interaction runtime's logic, apart from HTTP: create, respond (first wins), cancel, expire,
// wait, and a stream of changes for SSE clients and backends.

import { randomUUID } from "node:crypto";
import type { TraceCarrier } from "../telemetry/carrier.js";
import { decideAnswer } from "./answer-decision.js";
import {
  type AuditOptions,
  actorOf,
  answeredRecord,
  createdRecord,
  endedRecord,
  RUNTIME_ACTOR,
  refusedRecord,
} from "./audit-records.js";
import type { AuditActor, AuditSurface } from "./audit-types.js";
import { observePending, traceInteractionEnd } from "./channels-telemetry.js";
import { checkResponse } from "./check-response.js";
import { ChannelsError } from "./errors.js";
import {
  DEFAULT_INTERACTION_TIMEOUT_MS,
  type Interaction,
  type InteractionChange,
  type InteractionFilter,
  type InteractionInput,
  type InteractionPage,
  type InteractionResponseInput,
  type InteractionStatus,
  type Routing,
} from "./interaction-types.js";
import { KnownPrincipals } from "./known-principals.js";
import { actionsOf } from "./normalize.js";
import type { PeopleStore } from "./people-store.js";
import { ADMIN, type Identity } from "./people-types.js";
import {
  checkRoutingShape,
  isRouted,
  someoneMayAnswer,
  unknownPrincipalError,
  whoMayAnswer,
} from "./routing.js";
import type { InteractionStore } from "./store.js";
import { titleOf } from "./titles.js";

const OPEN: InteractionStatus[] = ["pending", "delivered"];
/** The surface of a caller in this process that names none. */
const IN_PROCESS = "in-process";

/** Options of {@link ChannelsRuntime}. */
export interface ChannelsRuntimeOptions {
  store: InteractionStore;
  /** How often expired interactions are ended (default 1 s). */
  sweepIntervalMs?: number;
  /** The clock (tests). */
  now?: () => Date;
  /** What the store's audit log records of requests (by default no prompt text). */
  audit?: AuditOptions;
}

/** The runtime: owns the store, ends expired interactions, tells listeners of every change. */
export class ChannelsRuntime {
  private readonly listeners = new Set<(change: InteractionChange) => void>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly unwatch: (() => void) | undefined;
  private readonly unobserve: () => void;
  private readonly now: () => Date;
  private readonly principals: KnownPrincipals;
  private closed = false;

  constructor(private readonly options: ChannelsRuntimeOptions) {
    this.now = options.now ?? (() => new Date());
    this.principals = new KnownPrincipals(options.store.people, () => this.now().getTime());
    this.sweeper = setInterval(() => void this.sweep(), options.sweepIntervalMs ?? 1_000);
    this.sweeper.unref();
    this.unwatch = options.store.watch?.((change) => this.publish(change));
    const { store } = options;
    this.unobserve = store.countOpen
      ? observePending(() => store.countOpen?.() ?? Promise.resolve({}))
      : () => {};
  }

  /**
   * Creates an interaction from `input` (already validated in shape); without a `title`, one is
   * derived from the payload ({@link titleOf}). The audit log records it as made by `by` from
   * `surface` (the API says `api`; an in-process caller is {@link ADMIN} from `in-process`).
   * `trace` is the W3C context it is created in: its span (written when it ends) joins that trace.
   */
  async create(
    input: InteractionInput,
    by: Identity = ADMIN,
    surface: AuditSurface = IN_PROCESS,
    trace?: TraceCarrier,
  ): Promise<Interaction> {
    const now = this.now();
    const timeoutMs = input.timeoutMs ?? DEFAULT_INTERACTION_TIMEOUT_MS;
    const { timeoutMs: _, ...rest } = input;
    if (input.routing) await this.checkRouting(input.routing);
    const interaction: Interaction = {
      ...rest,
      title: input.title ?? titleOf(input.kind, input.payload),
      actions: input.actions ?? actionsOf(input.kind),
      id: `int_${randomUUID()}`,
      status: "pending",
      createdBy: by.id,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + timeoutMs).toISOString(),
      ...(trace ? { trace: { ...trace } } : {}),
    };
    const audit = createdRecord(interaction, by, surface, this.auditOptions);
    const change = await this.options.store.create(interaction, audit);
    this.publish(change);
    return interaction;
  }

  /**
   * Checks that `routing` names only people, programs and groups this runtime knows; throws
   * `unknown_principal` (422) naming the others. {@link create} checks every interaction's; a
   * policy's loader calls it (`POST /v1/routing/check`) to refuse a policy before its first request.
   */
  async checkRouting(routing: Routing): Promise<void> {
    checkRoutingShape(routing);
    if (routing.answer === undefined && routing.see === undefined) return;
    const unknown = await this.principals.unknownIn(routing);
    if (unknown.length > 0) {
      throw unknownPrincipalError(unknown, (await this.options.store.people?.people()) ?? []);
    }
  }

  /**
   * The people, programs, tokens and linked chat users of the store (undefined for a store that
   * keeps none): what the admin routes manage and the chat backends' answers are looked up in.
   */
  get peopleStore(): PeopleStore | undefined {
    return this.options.store.people;
  }

  async get(id: string): Promise<Interaction> {
    const interaction = await this.options.store.get(id);
    if (!interaction) {
      throw new ChannelsError("not_found", 404, `There is no interaction ${JSON.stringify(id)}.`);
    }
    return interaction;
  }

  /** Interactions matching `filter`, newest first (see {@link page} to page through them). */
  list(filter: InteractionFilter): Promise<Interaction[]> {
    return this.options.store.list(filter);
  }

  /**
   * One page of `filter` (default 100), newest first in a stable order, and the cursor of the
   * next page when there is one. An unknown `cursor` is `invalid_request` (400).
   */
  async page(filter: InteractionFilter): Promise<InteractionPage> {
    const limit = filter.limit ?? 100;
    if (filter.cursor !== undefined && !(await this.options.store.get(filter.cursor))) {
      throw new ChannelsError(
        "invalid_request",
        400,
        `Unknown cursor ${JSON.stringify(filter.cursor)}; pass the nextCursor of the page before.`,
      );
    }
    const found = await this.options.store.list({ ...filter, limit: limit + 1 });
    const interactions = found.slice(0, limit);
    const last = interactions.at(-1);
    return found.length > limit && last ? { interactions, nextCursor: last.id } : { interactions };
  }

  /**
   * Records a response by `by` (who the caller authenticated; an in-process caller that names
   * nobody answers as {@link ADMIN}) from `surface` (`api`, `inbox`, `cli`, a backend's name; by
   * default `in-process`). The stored response's `answeredBy` is `by.id`; a
   * `metadata.answeredBy` the client wrote is a claim, kept as `metadata.claimedBy`. The first
   * response wins, a later one is `conflict` (409). The audit log records the answer with it, or
   * the refusal (no such interaction, an answer it does not take, already ended) and why.
   */
  async respond(
    id: string,
    response: InteractionResponseInput,
    by: Identity = ADMIN,
    surface: AuditSurface = IN_PROCESS,
  ): Promise<Interaction> {
    try {
      return await this.answer(id, response, by, surface);
    } catch (error) {
      if (error instanceof ChannelsError) await this.recordRefusal(id, actorOf(by), surface, error);
      throw error;
    }
  }

  /**
   * Records in the audit log that an answer to `id` by `actor` from `surface` was refused with
   * `error` (its code and message): for refusals made before {@link respond} is called (a missing
   * scope, a bad token, a malformed body). A failure to record is not the caller's: it is dropped.
   */
  async recordRefusal(
    id: string,
    actor: AuditActor,
    surface: AuditSurface,
    error: unknown,
  ): Promise<void> {
    const log = this.options.store.audit;
    if (!log) return;
    try {
      const interaction = await this.options.store.get(id);
      const at = this.now().toISOString();
      await log.append(
        refusedRecord(id, interaction, actor, surface, error, at, this.auditOptions),
      );
    } catch {
      // The store is failing: the refusal stands; the caller is told of it either way.
    }
  }

  /**
   * Cancels an open interaction (`reason` e.g. `cancelled`, or `cleared` when codex withdrew it),
   * recorded in the audit log as by `by` from `surface`.
   */
  async cancel(
    id: string,
    reason = "cancelled",
    message?: string,
    by: Identity = ADMIN,
    surface: AuditSurface = IN_PROCESS,
  ): Promise<Interaction> {
    return this.end(id, "cancelled", reason, message, actorOf(by), surface);
  }

  /** Marks an interaction delivered to a person or backend (no-op once delivered or ended). */
  async markDelivered(id: string): Promise<void> {
    const at = this.now().toISOString();
    const change = await this.options.store.update(id, { status: "delivered", at }, ["pending"]);
    if (change) this.publish(change);
  }

  /** Resolves with the interaction once it has ended, or as it is when `waitMs` passes. */
  async wait(id: string, waitMs: number, signal?: AbortSignal): Promise<Interaction> {
    if (waitMs <= 0) return this.get(id);
    let settle: ((interaction: Interaction) => void) | undefined;
    let ended: Interaction | undefined;
    // Listen first, then read: an end between the two is not missed.
    const off = this.subscribe((change) => {
      if (change.interaction.id !== id || OPEN.includes(change.interaction.status)) return;
      ended = change.interaction;
      settle?.(ended);
    });
    try {
      const current = await this.get(id);
      if (ended) return ended;
      if (!OPEN.includes(current.status) || signal?.aborted) return current;
      return await new Promise<Interaction>((resolve) => {
        const timer = setTimeout(() => {
          this.get(id).then(finish, () => finish(current));
        }, waitMs);
        const onAbort = () => finish(current);
        const finish = (interaction: Interaction) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          resolve(interaction);
        };
        settle = finish;
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    } finally {
      off();
    }
  }

  /** Calls `listener` with every change from now on. Returns an unsubscribe function. */
  subscribe(listener: (change: InteractionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Changes after `seq` (for SSE clients resuming with Last-Event-ID). */
  changesSince(seq: number, limit = 1_000): Promise<InteractionChange[]> {
    return this.options.store.changesSince(seq, limit);
  }

  /** Ends every open interaction past its deadline as `errored` (`timeout`). */
  async sweep(): Promise<void> {
    if (this.closed) return;
    const now = this.now().toISOString();
    const expired = await this.options.store.expired(now);
    if (expired.length === 0) return;
    // Unreadable people (the store failing) are not taken for nobody: the end is a plain timeout.
    const people = expired.some((interaction) => isRouted(interaction.routing))
      ? await (this.options.store.people?.people() ?? Promise.resolve([])).catch(() => undefined)
      : [];
    for (const interaction of expired) {
      const [reason, message] =
        people === undefined || someoneMayAnswer(interaction, people)
          ? ["timeout", "Nobody answered in time."]
          : ["no_one_allowed", `No one allowed to answer: ${whoMayAnswer(interaction)}.`];
      await this.end(interaction.id, "errored", reason, message, RUNTIME_ACTOR, "runtime").catch(
        () => undefined,
      );
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    this.unwatch?.();
    this.unobserve();
    this.listeners.clear();
    await this.options.store.close();
  }

  private get auditOptions(): AuditOptions {
    return this.options.audit ?? {};
  }

  private async answer(
    id: string,
    response: InteractionResponseInput,
    by: Identity,
    surface: AuditSurface,
  ): Promise<Interaction> {
    const interaction = await this.get(id);
    try {
      checkResponse(interaction, response);
    } catch (error) {
      throw new ChannelsError("invalid_response", 422, (error as Error).message, { cause: error });
    }
    const at = this.now().toISOString();
    const change = await this.options.store.update(
      id,
      (current) => decideAnswer(current, response, by, at),
      OPEN,
      (answered) => answeredRecord(answered, by, surface, this.auditOptions),
    );
    if (!change) throw await this.closedError(id);
    this.publish(change);
    if (change.interaction.status === "resolved") traceInteractionEnd(change.interaction, surface);
    return change.interaction;
  }

  private async end(
    id: string,
    status: "cancelled" | "errored",
    reason: string,
    message: string | undefined,
    actor: AuditActor,
    surface: AuditSurface,
  ): Promise<Interaction> {
    const at = this.now().toISOString();
    const change = await this.options.store.update(
      id,
      { status, end: { reason, ...(message ? { message } : {}), at }, at },
      OPEN,
      (ended) => endedRecord(ended, actor, surface, this.auditOptions),
    );
    if (!change) throw await this.closedError(id);
    this.publish(change);
    traceInteractionEnd(change.interaction, surface);
    return change.interaction;
  }

  private async closedError(id: string): Promise<ChannelsError> {
    const interaction = await this.get(id);
    return new ChannelsError(
      "conflict",
      409,
      `Interaction ${id} is already ${interaction.status}; the first answer won.`,
    );
  }

  private publish(change: InteractionChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // A listener's failure (a closed SSE socket) is its own.
      }
    }
  }
}
