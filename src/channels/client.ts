// An HTTP client of the channels runtime, for the bridge, the CLI and any Node integration.

import { CodexHarnessError } from "../errors.js";
import { type TraceCarrier, traceHeaders } from "../telemetry/carrier.js";
import { ChannelsError } from "./errors.js";
import type {
  ChangeType,
  Interaction,
  InteractionChange,
  InteractionFilter,
  InteractionInput,
  InteractionPage,
  InteractionResponseInput,
  Routing,
} from "./interaction-types.js";
import type { Identity } from "./people-types.js";
import { withRequestSignal } from "./request-signal.js";

/** Where the runtime is and how to prove who we are. */
export interface ChannelsClientOptions {
  /** e.g. `http://127.0.0.1:4317`. */
  url: string;
  token: string;
  /** Per-request timeout (default 30 s; long polls add their wait). */
  timeoutMs?: number;
}

/** Talks to `codex-harness serve` over HTTP. */
export class ChannelsClient {
  private readonly base: string;

  constructor(private readonly options: ChannelsClientOptions) {
    if (typeof options?.url !== "string" || !/^https?:\/\//.test(options.url)) {
      throw new CodexHarnessError(
        "invalid_option",
        "ChannelsClient needs `url`, e.g. http://127.0.0.1:4317.",
      );
    }
    if (typeof options.token !== "string" || options.token === "") {
      throw new CodexHarnessError(
        "invalid_option",
        "ChannelsClient needs `token` (the runtime's <data-dir>/token).",
      );
    }
    this.base = options.url.replace(/\/+$/, "");
  }

  /**
   * Creates an interaction. `trace` (a W3C trace context, e.g. an approval's `context.trace`) goes
   * as the request's `traceparent`/`tracestate` headers: the interaction's span joins that trace.
   */
  create(
    input: InteractionInput,
    signal?: AbortSignal,
    trace?: TraceCarrier,
  ): Promise<Interaction> {
    return this.call("POST", "/v1/interactions", input, {
      ...(signal ? { signal } : {}),
      ...(trace ? { headers: traceHeaders(trace) } : {}),
    });
  }

  /** The first page of `filter` (newest first); {@link page} also gives the next page's cursor. */
  async list(filter: InteractionFilter = {}): Promise<Interaction[]> {
    return (await this.page(filter)).interactions;
  }

  /** One page of `filter`; pass its `nextCursor` as `cursor` for the next one. */
  page(filter: InteractionFilter = {}): Promise<InteractionPage> {
    const query = new URLSearchParams();
    if (filter.status?.length) query.set("status", filter.status.join(","));
    if (filter.kind?.length) query.set("kind", filter.kind.join(","));
    if (filter.threadId) query.set("threadId", filter.threadId);
    if (filter.limit) query.set("limit", String(filter.limit));
    if (filter.cursor) query.set("cursor", filter.cursor);
    const text = query.toString();
    return this.call("GET", `/v1/interactions${text ? `?${text}` : ""}`);
  }

  /** The interaction; with `waitMs`, the runtime answers as soon as it ends (or when `waitMs` passes). */
  get(id: string, options: { waitMs?: number; signal?: AbortSignal } = {}): Promise<Interaction> {
    const wait = options.waitMs ? `?waitMs=${options.waitMs}` : "";
    return this.call("GET", `/v1/interactions/${encodeURIComponent(id)}${wait}`, undefined, {
      extraTimeoutMs: options.waitMs ?? 0,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  respond(id: string, response: InteractionResponseInput): Promise<Interaction> {
    return this.call("POST", `/v1/interactions/${encodeURIComponent(id)}/respond`, response);
  }

  cancel(id: string, reason?: string, message?: string): Promise<Interaction> {
    return this.call("POST", `/v1/interactions/${encodeURIComponent(id)}/cancel`, {
      ...(reason ? { reason } : {}),
      ...(message ? { message } : {}),
    });
  }

  /**
   * Checks a policy's `routing` before its first request (`POST /v1/routing/check`, scope
   * `create`): resolves when the runtime knows every person, program and group it names; rejects
   * with `unknown_principal` (422) naming the others, `invalid_request` (400) for a malformed one.
   */
  async checkRouting(routing: Routing, signal?: AbortSignal): Promise<void> {
    await this.call("POST", "/v1/routing/check", { routing }, signal ? { signal } : {});
  }

  /** Who the runtime takes this client's token for: kind, id, name, groups and scopes. */
  me(): Promise<Identity> {
    return this.call("GET", "/v1/me");
  }

  markDelivered(id: string): Promise<Interaction> {
    return this.call("POST", `/v1/interactions/${encodeURIComponent(id)}/delivered`, {});
  }

  /** The runtime's changes as they happen (after `since`, when given), until `signal` aborts. */
  async *events(
    options: { since?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<InteractionChange> {
    // Loaded on first use, not at import: the package root (which exports this client) stays light.
    const { EventSourceParserStream } = await import("eventsource-parser/stream");
    const response = await this.fetch(
      "GET",
      `/v1/events${options.since === undefined ? "" : `?since=${options.since}`}`,
      undefined,
      options.signal,
    );
    if (!response.body) return;
    const stream = response.body
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream());
    for await (const event of stream) {
      if (!event.event || event.id === undefined) continue;
      yield {
        seq: Number(event.id),
        type: event.event as ChangeType,
        interaction: JSON.parse(event.data) as Interaction,
      };
    }
  }

  private async call<T>(
    method: string,
    route: string,
    body?: unknown,
    options: {
      signal?: AbortSignal;
      extraTimeoutMs?: number;
      headers?: Record<string, string>;
    } = {},
  ): Promise<T> {
    // A signal of this call's own, tied to the caller's: one caller's signal may outlive many
    // calls, and `AbortSignal.any` on it per call would keep a reference per call (Node 20).
    return withRequestSignal(
      [options.signal],
      async (signal) => {
        const response = await this.fetch(method, route, body, signal, options.headers);
        return (await response.json()) as T;
      },
      (this.options.timeoutMs ?? 30_000) + (options.extraTimeoutMs ?? 0),
    );
  }

  private async fetch(
    method: string,
    route: string,
    body: unknown,
    signal?: AbortSignal,
    headers?: Record<string, string>,
  ): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${this.base}${route}`, {
        method,
        headers: {
          ...headers,
          authorization: `Bearer ${this.options.token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      throw new ChannelsError(
        "unreachable",
        0,
        `Cannot reach the channels runtime at ${this.base} (${(error as Error).message}); is \`codex-harness serve\` running?`,
        { cause: error },
      );
    }
    if (response.ok) return response;
    const failure = (await response.json().catch(() => ({}))) as {
      error?: { code?: string; message?: string };
    };
    if (response.status === 401) {
      throw new ChannelsError(
        failure.error?.code ?? "unauthorized",
        401,
        `The channels runtime at ${this.base} refused the token (401): give the one in its <data-dir>/token, or a person's or program's token that is not revoked (--token, CODEX_HARNESS_TOKEN or --data-dir).`,
      );
    }
    throw new ChannelsError(
      failure.error?.code ?? "http_error",
      response.status,
      failure.error?.message ?? `The runtime answered ${response.status} ${response.statusText}.`,
    );
  }
}
