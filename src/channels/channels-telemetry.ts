// An interaction as OpenTelemetry sees it: one span of its whole life, written when it ends (by
// whichever runtime ends it, so it survives restarts and runtimes sharing PostgreSQL), in the trace
// it was created in; the count of those ended, and a gauge of those open. Ids, kinds, statuses,
// reasons and who answered only: never a title, a payload or an answer's values.
import { contextOf } from "../telemetry/carrier.js";
import { otelScope, telemetrySafely } from "../telemetry/core.js";
import {
  type Attributes,
  type OtelObservableCallback,
  SPAN_KIND,
  STATUS_CODE,
} from "../telemetry/otel-types.js";
import {
  ATTR_ERROR_TYPE,
  ATTR_INTERACTION_ANSWERED_BY,
  ATTR_INTERACTION_APPROVALS,
  ATTR_INTERACTION_END_REASON,
  ATTR_INTERACTION_ID,
  ATTR_INTERACTION_KIND,
  ATTR_INTERACTION_STATUS,
  ATTR_INTERACTION_SURFACE,
  EVENT_INTERACTION_APPROVED,
  METRIC_INTERACTIONS_ENDED,
  METRIC_INTERACTIONS_PENDING,
} from "../telemetry/semconv.js";
import { INTERACTION_KINDS, type Interaction } from "./interaction-types.js";

/** Writes the span of an interaction that just ended, and counts it (nothing when off). */
export function traceInteractionEnd(interaction: Interaction, surface: string): void {
  const scope = otelScope();
  if (!scope) return;
  telemetrySafely("an interaction's OpenTelemetry span", () => {
    const { api, tracer, meter } = scope;
    const attributes: Attributes = {
      [ATTR_INTERACTION_KIND]: interaction.kind,
      [ATTR_INTERACTION_STATUS]: interaction.status,
      [ATTR_INTERACTION_SURFACE]: surface,
    };
    meter
      .createCounter(METRIC_INTERACTIONS_ENDED, {
        description: "Interactions that ended, by kind, status and the surface that ended them.",
        unit: "{interaction}",
      })
      .add(1, attributes);
    const parent = contextOf(api, interaction.trace) ?? api.ROOT_CONTEXT;
    const span = tracer.startSpan(
      `interaction ${interaction.kind}`,
      {
        kind: SPAN_KIND.INTERNAL,
        startTime: new Date(interaction.createdAt),
        attributes: {
          ...attributes,
          [ATTR_INTERACTION_ID]: interaction.id,
          ...(interaction.end ? { [ATTR_INTERACTION_END_REASON]: interaction.end.reason } : {}),
          ...(interaction.response?.answeredBy
            ? { [ATTR_INTERACTION_ANSWERED_BY]: interaction.response.answeredBy }
            : {}),
          ...(interaction.approvals
            ? { [ATTR_INTERACTION_APPROVALS]: interaction.approvals.length }
            : {}),
        },
      },
      parent,
    );
    for (const approval of interaction.approvals ?? []) {
      span.addEvent(EVENT_INTERACTION_APPROVED, { by: approval.by }, new Date(approval.at));
    }
    if (interaction.status === "errored") {
      span.setAttribute(ATTR_ERROR_TYPE, interaction.end?.reason ?? "errored");
      span.setStatus({ code: STATUS_CODE.ERROR });
    }
    span.end(new Date(interaction.updatedAt));
  });
}

/**
 * Observes `codex_harness.interactions.pending` (open interactions, by kind) from `count` while
 * telemetry is on when the runtime starts; returns what stops it (a no-op when off).
 */
export function observePending(count: () => Promise<Record<string, number>>): () => void {
  const scope = otelScope();
  if (!scope) return () => {};
  const gauge = scope.meter.createObservableGauge(METRIC_INTERACTIONS_PENDING, {
    description: "Interactions waiting for an answer (pending or delivered), by kind.",
    unit: "{interaction}",
  });
  const callback: OtelObservableCallback = async (result) => {
    // A store that cannot answer now reports nothing for this collection.
    const counts: Record<string, number> | undefined = await count().catch(() => undefined);
    if (!counts) return;
    // Every kind, 0 when none is open: a kind's last count never lingers.
    for (const kind of INTERACTION_KINDS) {
      result.observe(counts[kind] ?? 0, { [ATTR_INTERACTION_KIND]: kind });
    }
  };
  gauge.addCallback(callback);
  return () => gauge.removeCallback(callback);
}
