// The codex release codex-harness pins, read from package.json, so that tests never name it.
import { readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./paths.js";

/** The exact `@openai/codex` version in package.json's dependencies (e.g. `0.171.0`). */
export const PINNED_CODEX_VERSION: string = (
  JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  }
).dependencies["@openai/codex"] as string;

/** The version as a regular expression's source (dots escaped). */
export const PINNED_CODEX_VERSION_PATTERN = PINNED_CODEX_VERSION.replaceAll(".", "\\.");
