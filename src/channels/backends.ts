// Backends: where the runtime sends interactions (a webhook, a chat bot, a pager). The interface is
// small on purpose, so Slack/Discord/Telegram backends can live outside the core; answers come back
// through the runtime's API (or `respond`).

import type { IncomingMessage, ServerResponse } from "node:http";
import { CodexHarnessError } from "../errors.js";
import { actorOf } from "./audit-records.js";
import { ChannelsError } from "./errors.js";
import type {
  Interaction,
  InteractionChange,
  InteractionResponseInput,
} from "./interaction-types.js";
import { People } from "./people.js";
import { checkPlatformUser } from "./people-links.js";
import type { Identity, Person } from "./people-types.js";
import type { ChannelsRuntime } from "./runtime.js";

/**
 * Who answered through a backend, as the backend verified them (a chat platform's signed user
 * id): `id` is `<platform>:<user>` (`slack:U024BE7LH`, `telegram:123456789`), `name` how to show
 * them. When that platform user is linked to a person (`codex-harness people link`), the answer is
 * the person's.
 */
export interface BackendAnswerer {
  id: string;
  name?: string;
  /**
   * The backend let them answer only because they are linked to a person (they are not on its
   * allow-list): if the link is gone by the time the answer is taken, it is refused (`not_allowed`,
   * 403, recorded) rather than taken as the bare platform user's.
   */
  linked?: boolean;
}

/** What a backend can do besides receiving: answer an interaction it delivered. */
export interface BackendContext {
  /**
   * Answers an interaction (the first answer wins; a later one throws `conflict`) as `answerer`;
   * without one, as the backend itself (`backend:<name>`). A platform user linked to a person
   * (looked up in the store on each answer) answers as that person: their id, name and groups, so
   * that routing naming them or their groups applies, and the response's `answeredBy` and the audit
   * log's actor are the person (the actor's `platformUser` keeps who clicked). An unlinked one
   * answers as `answerer.id`, in no group. An `answerer.id` without a `:` is refused
   * (`invalid_input`): those ids are the runtime's people. The routing's refusals are the runtime's
   * (`not_allowed` 403, `already_approved` 409). The audit log records the answer (or its refusal)
   * from the backend's `name` as the surface.
   */
  respond(
    id: string,
    response: InteractionResponseInput,
    answerer?: BackendAnswerer,
  ): Promise<Interaction>;
  /** An interaction as it is now (`not_found` when there is none). */
  get(id: string): Promise<Interaction>;
  /**
   * The person a chat platform's user (`slack:U024BE7LH`) is linked to, read from the store now
   * (nothing is cached: a link made or removed holds from the next click on); undefined when they
   * are not linked, or the store keeps no people. A chat backend lets a linked user answer
   * whether or not its allow-list names them.
   */
  linkedPerson(platformUser: string): Promise<Person | undefined>;
  /** Aborts when the runtime closes. */
  signal: AbortSignal;
}

/**
 * A backend. `deliver` gets every change: a new interaction (`change.type` is its kind) and each
 * later status (`delivered`, `resolved`, `cancelled`, `errored`), with the whole interaction. It
 * resolves once delivered; throwing a {@link RetryableError} makes the runtime retry with backoff,
 * any other error gives up on that change. The first successful delivery of a new interaction
 * marks it `delivered`.
 */
export interface InteractionBackend {
  readonly name: string;
  deliver(change: InteractionChange, context: BackendContext): Promise<void>;
  /**
   * Called once by {@link BackendDispatcher.start}, before any delivery counts on it: a backend
   * that hears answers on its own (a socket, a poll) starts listening here and keeps `context`.
   * Rejecting fails the start (e.g. `startChannelsServer`).
   */
  start?(context: BackendContext): Promise<void>;
  /**
   * A route the runtime's HTTP server mounts for this backend (`POST` at `path`, e.g.
   * `/v1/slack/interactions`). It authenticates requests itself (a platform's signature): the
   * runtime's bearer token and host names are not checked there.
   */
  route?: {
    path: string;
    handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  };
  close?(): Promise<void>;
}

/**
 * A delivery failure worth trying again (network errors, 5xx, 429). `retryAfterMs` is how long the
 * other side asked to be left alone (a 429's `Retry-After`): the next attempt waits at least that
 * long, up to the policy's `maxDelayMs`.
 */
export class RetryableError extends Error {
  override readonly name = "RetryableError";
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: { cause?: unknown; retryAfterMs?: number } = {}) {
    super(message, "cause" in options ? { cause: options.cause } : undefined);
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** How {@link BackendDispatcher} retries. */
export interface RetryPolicy {
  /** Attempts per change, the first included (default 6). */
  attempts?: number;
  /** First wait (default 500 ms); doubles each time, with jitter, up to `maxDelayMs` (default 30 s). */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

/** A failed delivery, for logs. */
export interface DeliveryFailure {
  backend: string;
  change: InteractionChange;
  attempts: number;
  error: unknown;
}

/**
 * Sends every runtime change to each backend, in order per backend, retrying retryable failures
 * with backoff and jitter. A slow or failing backend delays only itself.
 */
export class BackendDispatcher {
  private readonly abort = new AbortController();
  private readonly queues = new Map<InteractionBackend, Promise<void>>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly runtime: ChannelsRuntime,
    private readonly backends: readonly InteractionBackend[],
    private readonly options: RetryPolicy & { onFailure?: (failure: DeliveryFailure) => void } = {},
  ) {
    this.unsubscribe = runtime.subscribe((change) => {
      for (const backend of backends) this.enqueue(backend, change);
    });
  }

  /** Starts the backends that listen on their own ({@link InteractionBackend.start}). */
  async start(): Promise<void> {
    await Promise.all(this.backends.map((backend) => backend.start?.(this.context(backend))));
  }

  /** Resolves when every queued delivery has finished (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all(this.queues.values());
  }

  async close(): Promise<void> {
    this.unsubscribe();
    this.abort.abort();
    await this.idle();
    await Promise.all(this.backends.map((backend) => backend.close?.()));
  }

  private enqueue(backend: InteractionBackend, change: InteractionChange): void {
    const previous = this.queues.get(backend) ?? Promise.resolve();
    const next = previous.then(() => this.deliver(backend, change));
    this.queues.set(backend, next);
    void next.then(() => {
      if (this.queues.get(backend) === next) this.queues.delete(backend);
    });
  }

  private context(backend: InteractionBackend): BackendContext {
    return {
      respond: async (id, response, answerer) => {
        const by = await this.answerer(backend, answerer);
        if (answerer?.linked && by.platformUser === undefined) {
          const error = new ChannelsError(
            "not_allowed",
            403,
            `${answerer.id} is no longer linked to anyone, and not on the ${backend.name} allow-list.`,
          );
          await this.runtime.recordRefusal(id, actorOf(by), backend.name, error);
          throw error;
        }
        return this.runtime.respond(id, response, by, backend.name);
      },
      get: (id) => this.runtime.get(id),
      linkedPerson: (platformUser) => this.linkedPerson(platformUser),
      signal: this.abort.signal,
    };
  }

  private async deliver(backend: InteractionBackend, change: InteractionChange): Promise<void> {
    const attempts = Math.max(1, this.options.attempts ?? 6);
    let delay = this.options.initialDelayMs ?? 500;
    const context = this.context(backend);
    for (let attempt = 1; ; attempt++) {
      try {
        await backend.deliver(change, context);
        if (change.type === change.interaction.kind) {
          await this.runtime.markDelivered(change.interaction.id).catch(() => undefined);
        }
        return;
      } catch (error) {
        if (
          !(error instanceof RetryableError) ||
          attempt >= attempts ||
          this.abort.signal.aborted
        ) {
          this.options.onFailure?.({ backend: backend.name, change, attempts: attempt, error });
          return;
        }
        const maxDelay = this.options.maxDelayMs ?? 30_000;
        const backoff = Math.min(delay, maxDelay) * (0.5 + Math.random() / 2);
        const wait = Math.max(backoff, Math.min(error.retryAfterMs ?? 0, maxDelay));
        await new Promise((resolve) => setTimeout(resolve, wait));
        delay *= 2;
      }
    }
  }

  /** The person `platformUser` is linked to, from the store now; undefined when none. */
  private async linkedPerson(platformUser: string): Promise<Person | undefined> {
    const store = this.runtime.peopleStore;
    if (!store) return undefined;
    try {
      checkPlatformUser(platformUser);
    } catch {
      return undefined; // Not a platform user anyone can be linked as.
    }
    return new People(store).linkedPerson(platformUser);
  }

  /**
   * Who a backend's answer is by: the person its platform user is linked to (looked up now), the
   * platform user, or the backend itself.
   */
  private async answerer(
    backend: InteractionBackend,
    answerer: BackendAnswerer | undefined,
  ): Promise<Identity> {
    if (!answerer) {
      const id = `backend:${backend.name}`;
      return { kind: "program", id, name: backend.name, groups: [], scopes: ["answer"] };
    }
    if (typeof answerer.id !== "string" || !/^[^:\s]+:\S+$/.test(answerer.id)) {
      throw new CodexHarnessError(
        "invalid_input",
        `The ${backend.name} backend answered as ${JSON.stringify(answerer.id)}; a backend names its platform's user as <platform>:<user id> (e.g. slack:U024BE7LH).`,
      );
    }
    const person = await this.linkedPerson(answerer.id);
    if (person) {
      return {
        kind: "person",
        id: person.id,
        name: person.name,
        groups: person.groups,
        scopes: ["answer"],
        platformUser: answerer.id,
      };
    }
    return {
      kind: "person",
      id: answerer.id,
      name: answerer.name ?? answerer.id,
      groups: [],
      scopes: ["answer"],
    };
  }
}
