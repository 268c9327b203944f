// Reads a TOML file with errors that name the file, and the line and column of a syntax error.
import { nodeFs } from "./builtins.js";
import { CodexHarnessError } from "./errors.js";
import { smolToml } from "./toml.js";

/** Reads `file` as text; an unreadable file raises `code` saying what it is and how to fix it. */
export function readTextFile(file: string, code: string, what: string, fix: string): string {
  try {
    return nodeFs().readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new CodexHarnessError(code, `${file}: cannot read ${what} (${reason}); ${fix}`, {
      cause: error,
    });
  }
}

/** Parses TOML text; a syntax error raises `code` with `origin:line:column`. */
export function parseToml(text: string, origin: string, code: string): Record<string, unknown> {
  if (typeof text !== "string") {
    throw new CodexHarnessError(
      code,
      `${origin}: expected TOML text (a string), got ${text === null ? "null" : typeof text}; pass the file's contents`,
    );
  }
  const { parse, TomlError } = smolToml();
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = error.message.split("\n")[0];
    throw new CodexHarnessError(
      code,
      `${origin}:${error.line}:${error.column}: not valid TOML (${reason}); fix the syntax there`,
      { cause: error },
    );
  }
}
