// Public entry of `codex-harness/fleet`: turns of many sessions on many workers through one
// PostgreSQL queue (graphile-worker). Needs the optional packages pg and graphile-worker.
export {
  type FleetEvent,
  type FleetRunRow,
  type FleetSessionRow,
  FleetStore,
  type FleetTurnRequest,
} from "./store.js";
export { type FleetRun, followFleetRun, type SubmitTurnRequest, submitTurn } from "./submit.js";
export { type FleetWorker, type FleetWorkerOptions, startFleetWorker } from "./worker.js";
