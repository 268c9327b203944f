// A chat backend's secrets come from the environment or a file named there, never from arguments.
import { readFileSync } from "node:fs";
import { CodexHarnessError } from "../../errors.js";

/**
 * The secret in `$NAME`, or in the file `$NAME_FILE` names (trimmed). Throws `missing_secret`
 * naming both variables and what needs it; the secret itself is never part of an error.
 */
export function readSecret(env: NodeJS.ProcessEnv, name: string, neededBy: string): string {
  const direct = env[name];
  if (direct) return direct.trim();
  const file = env[`${name}_FILE`];
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, "utf8").trim();
    } catch (error) {
      throw new CodexHarnessError(
        "missing_secret",
        `${neededBy} cannot read ${name}_FILE (${file}): ${(error as Error).message}.`,
        { cause: error },
      );
    }
    if (text) return text;
  }
  throw new CodexHarnessError(
    "missing_secret",
    `${neededBy} needs ${name} (or ${name}_FILE, a file holding it) in the environment.`,
  );
}
