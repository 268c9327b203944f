// Completes `tsc`: the generated protocol folder is CommonJS-scoped (its imports have no extensions).
import { copyFileSync } from "node:fs";

copyFileSync("src/protocol/generated/package.json", "build/src/protocol/generated/package.json");
