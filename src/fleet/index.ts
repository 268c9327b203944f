// Public entry of `codex-harness/fleet`: turns of many sessions on many workers through one
// PostgreSQL queue (graphile-worker). Needs the optional packages pg and graphile-worker.
export { cancelFleetRun, type FleetCancelOutcome } from "./cancel.js";
export { FleetConsoleQueries } from "./console-queries.js";
export { FencedError } from "./fence.js";
export { LeaseLostError } from "./lease.js";
export {
  MAX_ID_CHARS,
  MAX_PATH_CHARS,
  MAX_PROMPT_CHARS,
  MAX_SESSION_ID_CHARS,
} from "./request-check.js";
export {
  type FleetEvent,
  type FleetRunRow,
  type FleetRunStatus,
  type FleetSessionRow,
  FleetStore,
  type FleetTurnRequest,
} from "./store.js";
export {
  type FleetRun,
  type FollowOptions,
  followFleetRun,
  type SubmitTurnRequest,
  submitTurn,
} from "./submit.js";
export { type FleetWorker, type FleetWorkerOptions, startFleetWorker } from "./worker.js";
