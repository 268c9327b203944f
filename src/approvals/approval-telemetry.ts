// The span and the metric of one server request's wait: kind, decision, who decided, how long.
import { carrierOf } from "../telemetry/carrier.js";
import type { Telemetry } from "../telemetry/core.js";
import type { ApprovalWait, ApprovalWaitEnd, ApprovalWaitStart } from "../telemetry/hooks.js";
import { type Attributes, type OtelContext, SPAN_KIND } from "../telemetry/otel-types.js";
import {
  ATTR_APPROVAL_ANSWERED_BY,
  ATTR_APPROVAL_DECIDED_BY,
  ATTR_APPROVAL_DECISION,
  ATTR_APPROVAL_KIND,
  ATTR_APPROVAL_REASON,
  ATTR_APPROVAL_REQUEST_ID,
  ATTR_APPROVAL_SURFACE,
  ATTR_GEN_AI_TOOL_CALL_ID,
} from "../telemetry/semconv.js";

/** The keys that say which kind of answer an object decision is (never its values). */
const DECISION_KEYS = [
  "acceptWithExecpolicyAmendment",
  "applyNetworkPolicyAmendment",
  "accept",
  "grant",
  "output",
  "answers",
];

/**
 * Who answered, from a reason the channels bridge ("approved by alice in the channels runtime",
 * "approved by Alice, Bob …") or the terminal prompt ("declined by you at the prompt") gave.
 */
const ANSWERED =
  /^(?:approved|declined|answered)(?: \(turn interrupted\))? by (.+?) (in the channels runtime|at the prompt)$/;

/**
 * Starts the wait span of a server request (`approval {kind}`, INTERNAL) under `parent` (the
 * turn's `invoke_agent`); its `end` sets the decision and who decided, and records
 * `codex_harness.approval.wait.duration`. The reason's words go on the span only with
 * `recordContent` (they can quote rules and paths); who answered is parsed from them always.
 */
export function startApprovalWait(
  telemetry: Telemetry,
  parent: OtelContext,
  request: ApprovalWaitStart,
  recordContent: boolean,
): ApprovalWait {
  const started = performance.now();
  const span = telemetry.tracer.startSpan(
    `approval ${request.kind}`,
    {
      kind: SPAN_KIND.INTERNAL,
      attributes: {
        [ATTR_APPROVAL_KIND]: request.kind,
        [ATTR_APPROVAL_REQUEST_ID]: String(request.requestId),
        ...(request.itemId === null ? {} : { [ATTR_GEN_AI_TOOL_CALL_ID]: request.itemId }),
      },
    },
    parent,
  );
  let ended = false;
  return {
    carrier: carrierOf(telemetry.api, span, parent),
    end(outcome: ApprovalWaitEnd) {
      if (ended) return;
      ended = true;
      const answered = answeredBy(outcome.reason);
      const attributes: Attributes = {
        [ATTR_APPROVAL_KIND]: request.kind,
        [ATTR_APPROVAL_DECISION]: decisionLabel(outcome.decision),
        [ATTR_APPROVAL_DECIDED_BY]: outcome.decidedBy,
        ...(answered ? { [ATTR_APPROVAL_SURFACE]: answered.surface } : {}),
      };
      telemetry.instruments.approvalWait.record((performance.now() - started) / 1000, attributes);
      if (!span.isRecording()) {
        span.end();
        return;
      }
      span.setAttributes(attributes);
      if (answered) span.setAttribute(ATTR_APPROVAL_ANSWERED_BY, answered.by);
      if (recordContent && outcome.reason !== undefined) {
        span.setAttribute(ATTR_APPROVAL_REASON, outcome.reason);
      }
      span.end();
    },
  };
}

/** A decision as a low-cardinality label: the string, or the key saying which kind of answer. */
export function decisionLabel(decision: unknown): string {
  if (typeof decision === "string") return decision;
  if (typeof decision === "object" && decision !== null) {
    for (const key of DECISION_KEYS) if (key in decision) return key;
  }
  return "other";
}

/** Who answered and where, when the reason says so in the bridge's or the prompt's words. */
export function answeredBy(
  reason: string | undefined,
): { by: string; surface: "channels" | "terminal" } | undefined {
  const match = reason === undefined ? null : ANSWERED.exec(reason);
  if (!match?.[1]) return undefined;
  return { by: match[1], surface: match[2] === "at the prompt" ? "terminal" : "channels" };
}
