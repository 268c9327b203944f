#!/usr/bin/env node
// Entry point of the `codex-harness` command; the CLI itself is built into build/dist by `npm install`.
import { existsSync } from "node:fs";

const entry = new URL("../build/dist/cli.js", import.meta.url);
if (!existsSync(entry)) {
  console.error(
    "codex-harness is not built: run `npm install` (or `npm run build`) in its folder.",
  );
  process.exit(1);
}
const { main } = await import(entry.href);
try {
  await main();
} catch (error) {
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
