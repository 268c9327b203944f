// Paths the tests need, resolved from the compiled test file (build/test/support/paths.js).
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The package root. */
export const repoRoot = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "..",
);
