// This package's version and the codex version it pins, from its package.json.
import { createRequire } from "node:module";

interface Manifest {
  version: string;
  dependencies: Record<string, string>;
}

function manifest(): Manifest {
  return createRequire(import.meta.url)("codex-harness/package.json") as Manifest;
}

/** This package's version. */
export function packageVersion(): string {
  return manifest().version;
}

/** The codex version this codex-harness release pins. */
export function pinnedCodexVersion(): string {
  return manifest().dependencies["@openai/codex"] ?? "unknown";
}
