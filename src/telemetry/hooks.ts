// What the transports and the approval broker tell a traced turn: the interfaces, no OpenTelemetry.
import type { TraceCarrier } from "./carrier.js";

/** A server request of a traced turn, as its wait span starts. */
export interface ApprovalWaitStart {
  kind: string;
  requestId: string | number;
  itemId: string | null;
}

/** How a server request was answered, as its wait span ends. */
export interface ApprovalWaitEnd {
  /** The decision (a string, or an object whose key says which kind of answer). */
  decision: unknown;
  decidedBy: string;
  /** The reason in words, when known (recorded only with `recordContent`; parsed for who answered). */
  reason?: string | undefined;
}

/** One request's wait: ended once, when the broker reports its answer. */
export interface ApprovalWait {
  /** The wait span's W3C context: a handler that asks elsewhere passes it on. */
  readonly carrier: TraceCarrier | undefined;
  end(outcome: ApprovalWaitEnd): void;
}

/** The hooks of one traced turn, for the layers below the Thread that know more than its events. */
export interface TurnTraceHooks {
  /** codex said which model and provider the thread uses (app-server: `thread/start`/`resume`). */
  threadOpened(info: { model?: string | undefined; modelProvider?: string | undefined }): void;
  /** A server request of the turn arrived: its wait span starts now (undefined when not traced). */
  approvalStarted(request: ApprovalWaitStart): ApprovalWait | undefined;
  /**
   * The turn span's W3C context, once the turn's stream opened (undefined before, or when the span
   * has no valid context): codex's own spans join the trace through it (`turn/start`'s `trace`
   * field on app-server, `TRACEPARENT` in a `codex exec`'s environment).
   */
  carrier(): TraceCarrier | undefined;
}
