// A goal's run as OpenTelemetry sees it: a `codex_harness.goal` span over the run, and each turn
// codex runs for the goal an invoke_agent span under it, with its tools and approval waits — as a
// turn the program started has. Loaded only when a provider is registered.

import type { WithRaw } from "../events/raw.js";
import type { ExtendedThreadEvent } from "../events/types.js";
import type { GoalRun } from "../goals.js";
import { carrierOf } from "../telemetry/carrier.js";
import { errorTypeOfError, otelScope } from "../telemetry/core.js";
import { SPAN_KIND, STATUS_CODE } from "../telemetry/otel-types.js";
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GOAL_ENDED_BY,
  ATTR_GOAL_STATUS,
  ATTR_GOAL_TURNS,
  SPAN_GOAL,
} from "../telemetry/semconv.js";
import type { ThreadOptions } from "./options.js";
import { providerOf, type TelemetryDefaults } from "./traced-stream.js";
import { traceTurn } from "./turn-telemetry.js";
import type { FollowedTurn, TurnObserver } from "./turn-transport.js";

const UNOBSERVED: TurnObserver = { onOpen() {}, onEvent() {}, onEnd() {} };

/**
 * Runs `run` (a goal's run, given how to wrap each of its turns) inside a goal span; each turn is
 * traced under it. Nothing is traced when telemetry turns out to be off.
 */
export async function traceGoal(
  threadId: string,
  objective: string,
  options: ThreadOptions,
  defaults: TelemetryDefaults,
  run: (wrap: (turn: FollowedTurn) => FollowedTurn) => Promise<GoalRun>,
): Promise<GoalRun> {
  const scope = otelScope();
  if (!scope) return run((turn) => turn);
  const { api, tracer } = scope;
  const parent = api.context.active();
  const span = tracer.startSpan(
    SPAN_GOAL,
    { kind: SPAN_KIND.INTERNAL, attributes: { [ATTR_GEN_AI_CONVERSATION_ID]: threadId } },
    parent,
  );
  const goal = carrierOf(api, span, parent);
  const wrap = (turn: FollowedTurn): FollowedTurn => {
    const traced = traceTurn({
      transport: "app-server",
      recordContent: (options.telemetry ?? defaults.telemetry)?.recordContent === true,
      providerName: options.modelProvider ?? providerOf(options.config) ?? defaults.modelProvider,
      requestModel: options.model,
      threadId,
      input: [{ type: "text", text: objective }],
      parent: goal,
    });
    if (!traced) return turn;
    turn.traceWith?.(traced);
    return { ...turn, events: observed(turn.events, traced.observe(UNOBSERVED)) };
  };
  try {
    const result = await run(wrap);
    span.setAttributes({
      [ATTR_GOAL_ENDED_BY]: result.endedBy,
      [ATTR_GOAL_STATUS]: result.goal.status,
      [ATTR_GOAL_TURNS]: result.turns.length,
    });
    return result;
  } catch (error) {
    span.setAttribute(ATTR_ERROR_TYPE, errorTypeOfError(error));
    span.setStatus({ code: STATUS_CODE.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

/** `events`, told to `observer` as they are read (opened on the first read, ended with the stream). */
async function* observed(
  events: AsyncIterableIterator<WithRaw<ExtendedThreadEvent>>,
  observer: TurnObserver,
): AsyncGenerator<WithRaw<ExtendedThreadEvent>> {
  observer.onOpen();
  let failure: unknown;
  try {
    for await (const event of events) {
      observer.onEvent(event);
      yield event;
    }
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    observer.onEnd(failure);
  }
}
