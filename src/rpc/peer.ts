// A JSON-RPC peer over a Transport: ids, pending requests, timeouts, server-request dispatch, fan-out.
import {
  classifyMessage,
  type RequestId,
  type RpcErrorResponse,
  type RpcNotification,
  type RpcRequest,
  type RpcTraceContext,
} from "../protocol/messages.js";
import { AbandonedRequests } from "./abandoned-requests.js";
import {
  abortedError,
  asError,
  describeError,
  isOverloaded,
  OverloadedError,
  RpcErrorCodes,
  RpcLocalError,
  wireError,
} from "./errors.js";
import type { MessageCheck } from "./message-check.js";
import { DEFAULT_RETRY, type RetryOptions, withRetries } from "./retry.js";
import type { Transport } from "./transport.js";

export type { MessageCheck } from "./message-check.js";

/** Per-request options. */
export interface RequestOptions {
  /** Fail with a `timeout` error after this many ms (default: the peer's `requestTimeoutMs`). */
  timeoutMs?: number;
  /** Abort the wait; the request fails with an `aborted` error. */
  signal?: AbortSignal;
  /** Retry when codex answers -32001 (overloaded). `true` uses the default backoff. */
  retry?: boolean | RetryOptions;
  /**
   * The undo for work the other side does after we gave up: when the request failed here (timeout,
   * abort) and its successful answer still arrives, this is called with the result (once). Kept
   * for the connection's life, at most 1,000 requests (the oldest are forgotten).
   */
  onLateAnswer?: (result: unknown) => void;
  /**
   * W3C trace context sent as the request's `trace` field, so the other side's span for it joins
   * the caller's trace (codex's app-server reads it). Absent: no field.
   */
  trace?: RpcTraceContext | undefined;
  /**
   * Called with the request's id just before it is sent (once per attempt when retried): for
   * methods whose notifications and cancel name their request by id (`thread/search/stream`).
   */
  onRequestId?: (id: number) => void;
}

/** What a server-request handler gets besides the params. */
export interface ServerRequestContext {
  id: RequestId;
  method: string;
  /** Aborts when the connection closes before the handler answered. */
  signal: AbortSignal;
}

/** Answers a request the other side sent; a throw becomes a JSON-RPC error reply. */
export type RequestHandler = (params: unknown, context: ServerRequestContext) => unknown;

export interface PeerOptions {
  /** Default per-request timeout in ms (default 60 000). */
  requestTimeoutMs?: number;
  /** Retry overloaded requests by default with these settings (default: no retry). */
  retry?: RetryOptions;
  /** Checks what the other side sends before anyone sees it (default: none, nothing is checked). */
  check?: MessageCheck;
}

/** The default per-request timeout. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

interface Pending {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * One side of a JSON-RPC connection. Responses are matched only to our own pending requests; a
 * message with a `method` is always the other side's request or notification, even when its id
 * equals one of ours.
 */
export class JsonRpcPeer {
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly abandoned = new AbandonedRequests();
  private readonly handlers = new Map<string, RequestHandler>();
  private readonly notificationListeners = new Map<string, Set<(params: unknown) => void>>();
  private readonly anyNotificationListeners = new Set<(notification: RpcNotification) => void>();
  private readonly errorListeners = new Set<(error: Error) => void>();
  private readonly closeListeners = new Set<(reason: Error) => void>();
  private readonly handlerAborts = new Set<AbortController>();
  private closeReason: Error | undefined;
  private readonly requestTimeoutMs: number;
  private readonly retry: RetryOptions | undefined;
  private readonly check: MessageCheck | undefined;

  constructor(
    private readonly transport: Transport,
    options: PeerOptions = {},
  ) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.retry = options.retry;
    this.check = options.check;
    transport.onmessage = (message) => this.receive(message);
    transport.onerror = (error) => this.reportError(error);
    transport.onclose = (reason) =>
      this.close(reason ?? new RpcLocalError("closed", "The connection closed."));
  }

  /** Starts the transport. */
  async start(): Promise<void> {
    await this.transport.start();
  }

  /** Why the connection closed, once it has. */
  get closedReason(): Error | undefined {
    return this.closeReason;
  }

  /** Sends a request and resolves with its result; rejects with RpcWireError or RpcLocalError. */
  async request(method: string, params?: unknown, options: RequestOptions = {}): Promise<unknown> {
    const retry = options.retry === true ? DEFAULT_RETRY : options.retry || this.retry;
    if (!retry) return this.requestOnce(method, params, options);
    const { signal } = options;
    return withRetries(
      () => this.requestOnce(method, params, options),
      { ...DEFAULT_RETRY, ...retry },
      (error, attempt) => {
        if (error instanceof OverloadedError) error.attempts = attempt + 1;
        return isOverloaded(error);
      },
      signal,
    ).catch((error: unknown) => {
      // Aborted while waiting to retry: as an abort of the request.
      throw signal?.aborted && error === signal.reason ? abortedError(method, error) : error;
    });
  }

  /** Sends a notification. */
  async notify(method: string, params?: unknown): Promise<void> {
    this.assertOpen(method);
    await this.transport.send(params === undefined ? { method } : { method, params });
  }

  /** Answers the other side's requests for `method`. Returns a function that removes it. */
  setRequestHandler(method: string, handler: RequestHandler): () => void {
    this.handlers.set(method, handler);
    return () => {
      if (this.handlers.get(method) === handler) this.handlers.delete(method);
    };
  }

  /** Listens to notifications of one method. Returns a function that removes the listener. */
  onNotification(method: string, listener: (params: unknown) => void): () => void {
    let listeners = this.notificationListeners.get(method);
    if (!listeners) {
      listeners = new Set();
      this.notificationListeners.set(method, listeners);
    }
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  /** Listens to every notification. */
  onAnyNotification(listener: (notification: RpcNotification) => void): () => void {
    this.anyNotificationListeners.add(listener);
    return () => this.anyNotificationListeners.delete(listener);
  }

  /** Errors that do not end the connection: unreadable lines, stray responses, failing handlers. */
  onError(listener: (error: Error) => void): () => void {
    this.errorListeners.add(listener);
    return () => this.errorListeners.delete(listener);
  }

  /** Called once when the connection ends, with the reason. */
  onClose(listener: (reason: Error) => void): () => void {
    if (this.closeReason) {
      listener(this.closeReason);
      return () => {};
    }
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /**
   * Ends the connection: every pending request rejects with `reason` at once, running handlers
   * see their signal abort, and the transport closes.
   */
  async close(
    reason: Error = new RpcLocalError("closed", "The connection was closed."),
  ): Promise<void> {
    if (this.closeReason) return;
    this.closeReason = reason;
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      pending.reject(reason);
    }
    this.abandoned.clear();
    for (const controller of this.handlerAborts) controller.abort(reason);
    this.handlerAborts.clear();
    for (const listener of this.closeListeners) listener(reason);
    this.closeListeners.clear();
    await this.transport.close().catch((error: unknown) => this.reportError(asError(error)));
  }

  private requestOnce(method: string, params: unknown, options: RequestOptions): Promise<unknown> {
    this.assertOpen(method);
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortedError(method, signal.reason));
    const id = this.nextId++;
    const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    let gaveUp = false;
    const result = new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { method, resolve, reject });
      if (Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => {
          gaveUp = true;
          reject(
            new RpcLocalError("timeout", `${method} got no answer within ${timeoutMs} ms.`, {
              method,
            }),
          );
        }, timeoutMs);
      }
      if (signal) {
        onAbort = () => {
          gaveUp = true;
          reject(abortedError(method, signal.reason));
        };
        signal.addEventListener("abort", onAbort, { once: true });
      }
      const message: RpcRequest = params === undefined ? { id, method } : { id, method, params };
      if (options.trace) message.trace = options.trace;
      options.onRequestId?.(id);
      this.transport.send(message).catch((error: unknown) => reject(asError(error)));
    });
    // One cleanup path for every way the request can end.
    return result.finally(() => {
      this.pending.delete(id);
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
      if (gaveUp && options.onLateAnswer && !this.closeReason) {
        this.abandoned.add(id, options.onLateAnswer);
      }
    });
  }

  /** A late answer to a request we gave up on: a success is undone by its `onLateAnswer`. */
  private lateAnswer(id: number, answer: { result?: unknown }, success: boolean): boolean {
    try {
      return this.abandoned.take(id, answer, success);
    } catch (error) {
      this.reportError(asError(error));
      return true;
    }
  }

  private assertOpen(method: string): void {
    if (this.closeReason) {
      throw this.closeReason instanceof RpcLocalError
        ? this.closeReason
        : new RpcLocalError("closed", `Cannot send ${method}: the connection is closed.`, {
            method,
            cause: this.closeReason,
          });
    }
  }

  private receive(raw: unknown): void {
    // Fast path for the bulk of traffic: a well-formed notification.
    const message = raw as { method?: unknown; id?: unknown };
    if (typeof message?.method === "string" && message.id === undefined) {
      this.dispatchNotification(message as RpcNotification);
      return;
    }
    const classified = classifyMessage(raw);
    switch (classified.kind) {
      case "request":
        this.handleRequest(classified.message);
        return;
      case "notification":
        this.dispatchNotification(classified.message);
        return;
      case "response":
      case "error": {
        const { id } = classified.message;
        const pending = typeof id === "number" ? this.pending.get(id) : undefined;
        if (
          !pending &&
          typeof id === "number" &&
          this.lateAnswer(
            id,
            classified.message as { result?: unknown },
            classified.kind === "response",
          )
        ) {
          return;
        }
        if (!pending) {
          this.reportError(
            new RpcLocalError(
              "protocol_error",
              `Ignored a response for unknown request id ${JSON.stringify(id)}.`,
            ),
          );
          return;
        }
        this.pending.delete(id as number);
        if (classified.kind === "error") {
          pending.reject(wireError(classified.message.error, pending.method));
          return;
        }
        const refused = this.check?.result(pending.method, classified.message.result);
        if (refused) pending.reject(refused);
        else pending.resolve(classified.message.result);
        return;
      }
      case "invalid":
        this.reportError(
          new RpcLocalError("protocol_error", `Ignored an invalid message (${classified.reason}).`),
        );
        return;
    }
  }

  private dispatchNotification(notification: RpcNotification): void {
    if (this.check) {
      const refused = this.check.notification(notification.method, notification.params);
      if (refused) {
        this.reportError(refused);
        return;
      }
    }
    const listeners = this.notificationListeners.get(notification.method);
    if (listeners) {
      for (const listener of listeners) {
        try {
          listener(notification.params);
        } catch (error) {
          this.reportError(asError(error));
        }
      }
    }
    for (const listener of this.anyNotificationListeners) {
      try {
        listener(notification);
      } catch (error) {
        this.reportError(asError(error));
      }
    }
  }

  private async handleRequest(request: RpcRequest): Promise<void> {
    const handler = this.handlers.get(request.method);
    if (!handler) {
      await this.reply({
        id: request.id,
        error: {
          code: RpcErrorCodes.MethodNotFound,
          message: `No handler for ${request.method} on this client.`,
        },
      });
      return;
    }
    const refused = this.check?.request(request.method, request.params);
    if (refused) {
      // Never answered by its handler (so never approved): the params are not what they claim.
      this.reportError(refused);
      await this.reply({
        id: request.id,
        error: { code: RpcErrorCodes.InvalidParams, message: refused.message },
      });
      return;
    }
    const controller = new AbortController();
    this.handlerAborts.add(controller);
    try {
      const result = await handler(request.params, {
        id: request.id,
        method: request.method,
        signal: controller.signal,
      });
      await this.reply({ id: request.id, result: result ?? null });
    } catch (error) {
      // Whatever was thrown (even an object whose `message` getter throws), codex gets an answer.
      const message = describeError(error);
      this.reportError(asError(error));
      await this.reply({
        id: request.id,
        error: { code: RpcErrorCodes.InternalError, message },
      });
    } finally {
      this.handlerAborts.delete(controller);
    }
  }

  private async reply(
    message: { id: RequestId; result: unknown } | RpcErrorResponse,
  ): Promise<void> {
    if (this.closeReason) return;
    await this.transport.send(message).catch((error: unknown) => this.reportError(asError(error)));
  }

  private reportError(error: Error): void {
    for (const listener of this.errorListeners) {
      try {
        listener(error);
      } catch {
        // An error listener that throws has nowhere left to report to.
      }
    }
  }
}
