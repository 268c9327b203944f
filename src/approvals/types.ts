// The approval types live with the event model (approval.requested carries them); re-exported here.
export type * from "../events/approval-types.js";
