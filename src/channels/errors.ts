// The channels error: a code, and the HTTP status it maps to (0 when the runtime was unreachable).
import { CodexHarnessError } from "../errors.js";

/** An error of the channels runtime or its client; `status` is the HTTP status. */
export class ChannelsError extends CodexHarnessError {
  constructor(
    code: string,
    readonly status: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}
