// The wire layer: codex's generated protocol types, the method map, message shapes and framing.
export * from "./framing.js";
export type * as Protocol from "./generated/ts/index.js";
export * from "./messages.js";
export * from "./method-map.js";
export { REMOVED_SERVER_REQUESTS } from "./removed.js";
export type * from "./types.js";
