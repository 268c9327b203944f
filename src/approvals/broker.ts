// Answers every server request codex sends: handler, then the turn's stream, then decline — fail-closed.
import type { AppServerClient } from "../app-server/client.js";
import { CodexHarnessError } from "../errors.js";
import {
  type ApprovalDecider,
  type ApprovalKind,
  type ApprovalRequest,
  type Approvals,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  type DecisionOf,
} from "../events/approval-types.js";
import {
  CLIENT_ANSWERS,
  isDecision,
  KIND_OF_METHOD,
  notADecision,
  toApprovalRequest,
  toWireResult,
} from "../events/server-requests/index.js";
import type {
  ApprovalRequestedEvent,
  ApprovalResolvedEvent,
  ExtendedFileUpdateChange,
  ExtendedThreadEvent,
} from "../events/types.js";
import type { RequestId } from "../protocol/messages.js";
import type { ServerRequestMethod, ServerRequestResult } from "../protocol/types.js";
import { describeError } from "../rpc/errors.js";
import type { ServerRequestContext } from "../rpc/peer.js";
import type { TraceCarrier } from "../telemetry/carrier.js";
import type { TurnTraceHooks } from "../telemetry/hooks.js";
import { explainScope, formatTimeout, type HandlerContext } from "./explain.js";
import { type WaitOutcome, waitFor } from "./wait.js";

export { DEFAULT_APPROVAL_TIMEOUT_MS };

/** The running turn a request belongs to: its handlers, its stream, its end. */
export interface ApprovalTarget {
  /** The handlers in force for the turn (thread's over the Codex's). */
  approvals: Approvals | undefined;
  /** Whether someone reads the stream and can answer `approval.requested`. */
  interactive: boolean;
  /** Puts an event on the turn's stream. */
  emit(event: ExtendedThreadEvent): void;
  /** Aborts when the turn ends or is being stopped: nothing it asks may be approved after that. */
  answerable: AbortSignal;
  /** The files of a file change item of the turn. */
  changesOf(itemId: string): ExtendedFileUpdateChange[];
  /** Keeps the turn from counting as idle while the request waits; returns the release. */
  holdIdle?(): () => void;
  /** A request of the turn was answered "cancel": codex interrupts the turn, which is stopped. */
  cancelled?(): void;
  /** The turn's tracing, when on: each request's wait becomes a span of the turn. */
  readonly telemetry?: Pick<TurnTraceHooks, "approvalStarted"> | undefined;
}

/** A decision, who made it and why (in words). */
interface Outcome {
  decision: DecisionOf<ApprovalKind>;
  decidedBy: ApprovalDecider;
  reason?: string | undefined;
}

/** Why a cleared request was declined, by what cleared it. */
const CLEARED = {
  codex: "codex withdrew the request before it was answered",
  connection: "the connection to codex closed before an answer",
  turn: "the turn ended or was stopped before an answer",
};

const key = (id: RequestId): string => `${typeof id}:${String(id)}`;

/**
 * Installs handlers for every server request method of the pinned protocol on `client`. A
 * request is answered by the turn's handler; if it has none (or it defers), by whoever answers
 * `approval.requested` on the turn's stream; otherwise, and at the timeout, it is declined.
 * codex clearing the request (`serverRequest/resolved`), the turn ending or the connection closing
 * aborts the handler's signal.
 */
export class ApprovalBroker {
  /** Requests waiting for an answer, by request id: how to clear each. */
  private readonly pending = new Map<string, { clear(reason: string): void }>();

  constructor(
    client: Pick<AppServerClient, "setRequestHandler" | "onNotification">,
    private readonly targetOf: (
      threadId: string | null,
      turnId: string | null,
    ) => ApprovalTarget | undefined,
    private readonly fallback: () => Approvals | undefined,
  ) {
    for (const method of KIND_OF_METHOD.keys()) {
      // The spec of `method` shapes the result for `method`: the wire type is the spec's.
      client.setRequestHandler(
        method as ServerRequestMethod,
        (params, context) =>
          this.answer(method, params, context) as Promise<ServerRequestResult<ServerRequestMethod>>,
      );
    }
    // Older releases' `currentTime/read` too: the client answers it whatever codex it talks to.
    client.setRequestHandler("currentTime/read", CLIENT_ANSWERS["currentTime/read"]);
    client.setRequestHandler("attestation/generate", CLIENT_ANSWERS["attestation/generate"]);
    client.onNotification("serverRequest/resolved", ({ requestId }) => {
      this.pending.get(key(requestId))?.clear(CLEARED.codex);
    });
  }

  private async answer(
    method: string,
    params: unknown,
    context: ServerRequestContext,
  ): Promise<unknown> {
    const p = (params ?? {}) as { threadId?: unknown; conversationId?: unknown; turnId?: unknown };
    const threadId =
      typeof p.threadId === "string"
        ? p.threadId
        : typeof p.conversationId === "string"
          ? p.conversationId
          : null;
    const target = this.targetOf(threadId, typeof p.turnId === "string" ? p.turnId : null);
    const request = toApprovalRequest(
      method,
      context.id,
      params,
      (id) => target?.changesOf(id) ?? [],
    );
    if (!request) throw new CodexHarnessError("unsupported_request", `No handler for ${method}.`);
    const wait = target?.telemetry?.approvalStarted({
      kind: request.kind,
      requestId: request.request_id,
      itemId: request.item_id,
    });
    let reported = false;
    const report = ({ decision, decidedBy, reason }: Outcome) => {
      if (reported) return;
      reported = true;
      wait?.end({ decision, decidedBy, reason });
      // The decision was checked against request.kind (or is "decline", which every kind takes).
      target?.emit({
        type: "approval.resolved",
        ...scope(request),
        request_id: request.request_id,
        kind: request.kind,
        item_id: request.item_id,
        decision,
        decided_by: decidedBy,
        ...(reason === undefined ? {} : { reason }),
      } as ApprovalResolvedEvent);
    };
    const releaseIdle = target?.holdIdle?.();
    const cleared = new AbortController();
    // Cleared requests are reported at once, so the report precedes the turn's end on the stream.
    const clear = (reason: string) => {
      report(declined("cleared", reason));
      cleared.abort();
    };
    const connectionClosed = () => clear(CLEARED.connection);
    const turnEnded = () => clear(CLEARED.turn);
    this.pending.set(key(context.id), { clear });
    context.signal.addEventListener("abort", connectionClosed, { once: true });
    target?.answerable.addEventListener("abort", turnEnded, { once: true });
    // Asked by a turn already stopping or over: declined, never handed to a handler.
    if (context.signal.aborted) connectionClosed();
    else if (target?.answerable.aborted) turnEnded();
    try {
      const outcome = await this.decide(request, target, cleared.signal, wait?.carrier);
      report(outcome);
      // codex interrupts the turn itself on "cancel": the turn's stop ends what it started.
      if (outcome.decision === "cancel") target?.cancelled?.();
      return toWireResult(method, outcome.decision);
    } finally {
      releaseIdle?.();
      this.pending.delete(key(context.id));
      context.signal.removeEventListener("abort", connectionClosed);
      target?.answerable.removeEventListener("abort", turnEnded);
    }
  }

  private async decide(
    request: ApprovalRequest,
    target: ApprovalTarget | undefined,
    cleared: AbortSignal,
    trace: TraceCarrier | undefined,
  ): Promise<Outcome> {
    if (cleared.aborted) return declined("cleared");
    const approvals = target ? target.approvals : this.fallback();
    const timeoutMs = timeoutOf(approvals, request.kind);
    const deadline = Date.now() + timeoutMs;
    const late = `nobody answered within ${formatTimeout(timeoutMs)}`;
    const handler = approvals?.[request.kind] as
      | ((request: ApprovalRequest, context: HandlerContext) => unknown)
      | undefined;
    if (handler) {
      const handlerAbort = new AbortController();
      const stop = () => handlerAbort.abort();
      cleared.addEventListener("abort", stop, { once: true });
      const explained = explainScope(handlerAbort.signal, trace);
      let result: WaitOutcome<unknown>;
      try {
        result = await waitFor(
          Promise.resolve().then(() => handler(request, explained.context)),
          cleared,
          deadline,
        );
      } catch (error) {
        return failed(
          request,
          target,
          `the ${request.kind} handler failed: ${describeError(error)}`,
        );
      } finally {
        explained.close();
        stop();
        cleared.removeEventListener("abort", stop);
      }
      if (result.outcome === "timeout") return declined("timeout", late);
      if (result.outcome === "aborted") return declined("cleared");
      if (result.value !== undefined) {
        if (!isDecision(request.kind, result.value)) {
          const what = notADecision(request.kind, result.value);
          return failed(request, target, `the ${request.kind} handler returned ${what}`);
        }
        return { decision: result.value, decidedBy: "handler", reason: explained.reason() };
      }
    }
    if (target?.interactive) return this.askStream(request, target, cleared, deadline, late);
    return declined(
      "default",
      handler
        ? `the ${request.kind} handler did not decide and nobody could answer`
        : `no ${request.kind} handler and nobody could answer`,
    );
  }

  /**
   * Puts `approval.requested` on the stream and waits for its answer, the deadline or a clear. A
   * decision not of the request's kind declines the request at once (fail closed) and throws.
   */
  private async askStream(
    request: ApprovalRequest,
    target: ApprovalTarget,
    cleared: AbortSignal,
    deadline: number,
    late: string,
  ): Promise<Outcome> {
    let settle!: (outcome: Outcome) => void;
    const answered = new Promise<Outcome>((resolve) => {
      settle = resolve;
    });
    let open = true;
    const respond = (decision: unknown): void => {
      const wasOpen = open;
      open = false;
      if (isDecision(request.kind, decision)) {
        if (wasOpen) settle({ decision, decidedBy: "stream" });
        return;
      }
      const what = notADecision(request.kind, decision);
      if (wasOpen) settle(declined("error", `respond() was given ${what}`));
      throw new CodexHarnessError(
        "invalid_decision",
        `${what}; ${wasOpen ? "the request was declined" : "the request had already been answered"}.`,
      );
    };
    // The event's kind, request and respond belong together; respond checks its decision itself.
    target.emit({
      type: "approval.requested",
      ...scope(request),
      kind: request.kind,
      request,
      respond,
    } as ApprovalRequestedEvent);
    const result = await waitFor(answered, cleared, deadline);
    open = false;
    if (result.outcome === "value") return result.value;
    return result.outcome === "timeout" ? declined("timeout", late) : declined("cleared");
  }
}

function declined(decidedBy: ApprovalDecider, reason?: string): Outcome {
  return { decision: "decline", decidedBy, reason };
}

/** A handler failed (threw, or returned no decision of its kind): an `error` event, declined. */
function failed(
  request: ApprovalRequest,
  target: ApprovalTarget | undefined,
  reason: string,
): Outcome {
  target?.emit({
    type: "error",
    ...scope(request),
    message: `${reason.charAt(0).toUpperCase()}${reason.slice(1)}, so the request was declined.`,
  });
  return declined("error", reason);
}

function scope(request: ApprovalRequest): { thread_id?: string; turn_id?: string } {
  return {
    ...(request.thread_id === null ? {} : { thread_id: request.thread_id }),
    ...(request.turn_id === null ? {} : { turn_id: request.turn_id }),
  };
}

function timeoutOf(approvals: Approvals | undefined, kind: ApprovalKind): number {
  const setting = approvals?.timeoutMs;
  const value = typeof setting === "number" ? setting : setting?.[kind];
  return value ?? DEFAULT_APPROVAL_TIMEOUT_MS;
}
