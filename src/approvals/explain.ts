// The reason a handler gives with its decision (`context.explain`): checked, and kept per handler call.

import { CodexHarnessError } from "../errors.js";
import type { ApprovalContext } from "../events/approval-types.js";
import type { TraceCarrier } from "../telemetry/carrier.js";

/** A handler's context as the broker gives it: `explain` is always there. */
export type HandlerContext = ApprovalContext & Required<Pick<ApprovalContext, "explain">>;

/** One handler call's context and the reason it gave. */
export interface ExplainScope {
  /** The context to call the handler with: `signal`, an `explain` that records, the `trace`. */
  readonly context: HandlerContext;
  /** The last reason given while the scope was open; undefined if none. */
  reason(): string | undefined;
  /** Ends the call: later `explain` calls are still checked but no longer recorded. */
  close(): void;
}

/** A context for one handler call that records the reason it gives (the last one wins). */
export function explainScope(signal: AbortSignal, trace?: TraceCarrier): ExplainScope {
  let given: string | undefined;
  let open = true;
  return {
    context: {
      signal,
      ...(trace ? { trace } : {}),
      explain: (reason: string) => {
        const checked = checkReason(reason);
        if (open) given = checked;
      },
    },
    reason: () => given,
    close: () => {
      open = false;
    },
  };
}

/** `reason` trimmed; throws `invalid_reason` unless it is a non-empty string (handlers are user code). */
export function checkReason(reason: unknown): string {
  if (typeof reason === "string" && reason.trim() !== "") return reason.trim();
  let shown: string;
  try {
    shown = JSON.stringify(reason) ?? String(reason);
  } catch {
    shown = String(reason);
  }
  throw new CodexHarnessError(
    "invalid_reason",
    `explain() takes a non-empty string saying why, got ${shown}`,
  );
}

/** A timeout in words: `10 min`, `30 s`, `300 ms`. */
export function formatTimeout(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.round(ms)} ms`;
}
