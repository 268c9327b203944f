// smol-toml on first use, through its single-file CommonJS build: nothing at import time, and one
// file to load instead of its nine ES modules.
import { createRequire } from "node:module";

/** The smol-toml module. */
export type SmolToml = typeof import("smol-toml");

let loaded: SmolToml | undefined;

/** smol-toml (`parse`, `stringify`, `TomlError`), required synchronously the first time. */
export function smolToml(): SmolToml {
  loaded ??= createRequire(import.meta.url)("smol-toml") as SmolToml;
  return loaded;
}
