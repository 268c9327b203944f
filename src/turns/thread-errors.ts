// The typed error for a thread codex cannot find, from either transport's wording of it.
import { CodexHarnessError } from "../errors.js";

/** How codex says it has no such thread (`-32600 no rollout found`, or an unparsable id). */
const NOT_FOUND = /no rollout found|invalid session id/;

/** A `thread_not_found` error when `detail` is codex saying it has no thread `threadId`. */
export function threadNotFound(
  threadId: string,
  detail: string,
  cause: unknown,
): CodexHarnessError | undefined {
  if (!NOT_FOUND.test(detail)) return undefined;
  return new CodexHarnessError(
    "thread_not_found",
    `codex has no saved thread ${JSON.stringify(threadId)} (${detail.trim()}). Check the id and CODEX_HOME, or start a new thread.`,
    { cause },
  );
}
