// Node built-ins that modules the package root reaches use only in some calls, required
// (synchronously) on first use: node:crypto alone is some twenty internal modules to load, and
// importing node:fs as an ES module loads node's streams (its facade reads every export).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** `node:crypto`, loaded the first time it is needed. */
export function nodeCrypto(): typeof import("node:crypto") {
  return require("node:crypto") as typeof import("node:crypto");
}

/** `node:util`, loaded the first time it is needed. */
export function nodeUtil(): typeof import("node:util") {
  return require("node:util") as typeof import("node:util");
}

/** `node:fs`, required (not imported: see above) the first time it is needed. */
export function nodeFs(): typeof import("node:fs") {
  return require("node:fs") as typeof import("node:fs");
}
