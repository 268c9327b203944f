// Completes `tsc`: the generated protocol folder is CommonJS-scoped (its imports have no extensions);
// then each entry point is bundled into build/dist (scripts/bundle.mjs), which package.json exports.
import { copyFileSync } from "node:fs";

copyFileSync("src/protocol/generated/package.json", "build/src/protocol/generated/package.json");
await import("./bundle.mjs");
