// Turn events both transports make themselves: a thread's start, an interrupted end, empty usage.
import { type WithRaw, withRaw } from "./raw.js";
import type { ExtendedThreadEvent, ExtendedTurnCompletedEvent, Usage } from "./types.js";

/** Usage of a turn that used nothing (or reported nothing). */
export function zeroUsage(): Usage {
  return {
    input_tokens: 0,
    cached_input_tokens: 0,
    cache_write_input_tokens: 0,
    output_tokens: 0,
    reasoning_output_tokens: 0,
  };
}

/** The `turn.completed` a turn ends with when it was interrupted before codex reported usage. */
export function interruptedTurnEvent(threadId?: string): WithRaw<ExtendedTurnCompletedEvent> {
  return withRaw(
    {
      type: "turn.completed",
      ...(threadId === undefined ? {} : { thread_id: threadId }),
      usage: zeroUsage(),
      status: "interrupted",
    },
    undefined,
  );
}

/** A `thread.started` the transport makes itself (e.g. when a turn never reached codex). */
export function threadStartedEvent(threadId: string): WithRaw<ExtendedThreadEvent> {
  return withRaw({ type: "thread.started", thread_id: threadId }, undefined);
}
