// The base error class of codex-harness: every error it throws has a string `code` and keeps `cause`.

/** Options accepted by every codex-harness error. */
export interface CodexHarnessErrorOptions {
  cause?: unknown;
}

/**
 * Base class of the errors codex-harness raises itself. `code` is a stable string to branch on;
 * the message says what to change.
 */
export class CodexHarnessError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options: CodexHarnessErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}
