// The one table of delta streams: which app-server notification each `item.delta` stream comes from.
import type { NotificationMethod } from "../protocol/types.js";
import type { DeltaStream } from "./types.js";

/** The notification method of each delta stream (checked both ways: every stream, real methods). */
export const DELTA_METHOD_OF_STREAM = {
  agent_message: "item/agentMessage/delta",
  reasoning: "item/reasoning/textDelta",
  reasoning_summary: "item/reasoning/summaryTextDelta",
  command_output: "item/commandExecution/outputDelta",
  file_change_output: "item/fileChange/outputDelta",
  plan: "item/plan/delta",
} as const satisfies Record<DeltaStream, NotificationMethod>;

/** The delta stream of each delta notification method. */
export const DELTA_STREAM_OF_METHOD: ReadonlyMap<string, DeltaStream> = new Map(
  Object.entries(DELTA_METHOD_OF_STREAM).map(([stream, method]) => [method, stream as DeltaStream]),
);
