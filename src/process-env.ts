// This process's environment as a plain string map (a copy: `process.env` is never changed).

/** A copy of `process.env` without its unset entries. */
export function definedEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  );
}
